"""Autograd around in-place writes.

- The check every write runs first (:func:`check_inplace`).
- How a view catches up with its base's history once the base (or another view of it) was
  written (:func:`refresh_view`, :func:`regenerate`), which every reader of a tensor's history
  goes through (:func:`edge`).
- Views made in no_grad or inference mode, or by a multi-output op (PyTorch's creation meta),
  which may not be written while autograd records (:func:`mark_view`).
- CopySlices: the node a base takes when one of its views is written in place. The written
  region's cotangent goes to the write's history; the rest of the base's cotangent goes to the
  base's previous history, with the written region zeroed (those values were overwritten).
  Geometry is in storage coordinates, so any view (slice, select, diagonal, as_strided, ...) of
  any base is handled the same way.

What a write records afterwards is :func:`numgrad.autograd.tape.rebase`.
"""
from __future__ import annotations

import re

from ..ops.records import OPS
from . import grad_mode, tape
from .nodes import Node, grad_accumulator


def check_inplace(target, others=()):
    """The one check every in-place op (arithmetic, fills, copies, index writes, random fills,
    in-place view ops) runs before writing into ``target``, as PyTorch's: with grad mode on, no
    write into a leaf that requires grad or a view of one, and, when the write needs grad
    (``target``, its base or one of the ``others`` operands requires grad), none into a view
    made in no_grad or inference mode or by a multi-output op (see :func:`mark_view`)."""
    if not grad_mode._state.enabled:
        return
    base = target._base
    if base is not None and target._view_meta is not None and (
            target._requires_grad or base._requires_grad or any(getattr(o, "_requires_grad", False) for o in others)):
        check_write(target)
    if target._requires_grad and target._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if base is None:
        return
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.")


def refresh_view(x):
    """A view made before its base was written in place reads the base's new history."""
    if x._view_meta is not None:
        check_version(x)
    base = x._base
    at = base.__dict__.get("_rebased_at")
    if at is None:
        return
    fn = x._grad_fn
    if fn is not None and fn.position > at:
        return
    regenerate(x)


def adopts_base_grad(view) -> bool:
    """Whether ``view``, which does not require grad, now must because its base does (the base
    was written in place with a tensor that requires grad, or became a leaf that does, after the
    view was made): as in PyTorch, the view then reads the base's history, as an as_strided view.
    Callers check ``view._base`` first; this runs in grad mode only."""
    base = view._base
    if not base._requires_grad or view._view_meta is not None or not grad_mode._state.enabled:
        return False
    regenerate(view)
    return True

def edge(x):
    """(node, output index) through which a cotangent reaches ``x``; (None, 0) if none does."""
    if x.__class__ is float or x.__class__ is int or not hasattr(x, "_storage"):
        return (None, 0)
    if x._base is not None:
        refresh_view(x)
    fn = x._grad_fn
    if fn is not None:
        return (fn, x._output_nr)
    if x._requires_grad:
        return (grad_accumulator(x), 0)
    return (None, 0)


# ------------------------------------------------------------------------------ views written in place

NO_GRAD, INFERENCE, MULTI_OUTPUT = "no_grad", "inference", "multi_output"
# A view's mark: (how it was made, the node PyTorch's error names when numgrad's view has none).
NO_GRAD_MARK = (NO_GRAD, None)


def propagate_view_write(base, view):
    """Called after ``view`` (a view of ``base``) was modified in place; the write already gave
    ``base`` its CopySlices node when it went through ``tape.rebase``."""
    if base._grad_fn is not None and base.__dict__.get("_rebased_at") == base._grad_fn.position:
        return
    if view._requires_grad or base._requires_grad:
        record_copy_slices(base, view)


def mark_view(x, out, op=None, variant=None, multi=False):
    """Note on ``out``, a new view of ``x`` (made by ``op``), how it was made: in no_grad or
    inference mode, by a multi-output op, or from a view so noted (as PyTorch's creation meta: a
    new mark replaces the parent's, except that inference mode's stays)."""
    state = grad_mode._state
    kind = None if state.enabled else INFERENCE if state.inference else NO_GRAD
    if kind is None and multi:
        kind = MULTI_OUTPUT
    parent = x._view_meta
    if parent is not None and (kind is None or parent[0] == INFERENCE):
        kind = parent[0]
    if kind is None:
        return
    if kind == NO_GRAD and not state.enabled:
        out._view_meta = NO_GRAD_MARK
        if out._requires_grad:
            note_version(out)
        return
    header = None
    if state.enabled and out._grad_fn is None and op is not None and (
            x._requires_grad or x._base is not None and x._base._requires_grad):
        # PyTorch's view would have a node here (its requires_grad follows the base's); the
        # error names that node.
        name = re.sub(r"Backward[0-9]*$", "", tape.node_class(op, variant).__name__)
        header = f"Output {out._output_nr} of {name}"
    out._view_meta = (kind, header)
    if out._requires_grad:
        note_version(out)


def note_version(view):
    """Remember the version ``view`` (carrying a creation mark) was made at: a write since, to
    it, its base or another view, forbids reading its history (see :func:`check_version`)."""
    view.__dict__["_view_version"] = view._storage._counter[0]


def check_version(view):
    """Refuse to read the history of a marked view written in place since it was made: PyTorch
    cannot rebuild it."""
    made = view.__dict__.get("_view_version")
    if made is not None and made != view._storage._counter[0]:
        raise RuntimeError(_message(view, view._view_meta, True))


def check_write(view):
    """Refuse writing in place into ``view`` when it carries a creation mark; the caller
    (:func:`check_inplace`) has checked that grad mode is on and that the write needs grad."""
    meta = view._view_meta
    if meta is not None:
        raise RuntimeError(_message(view, meta, False))


def regenerate(view):
    """Re-derive ``view``'s grad_fn as an as_strided view of its base's current history."""
    meta = view._view_meta
    if meta is not None:
        raise RuntimeError(_message(view, meta, True))
    base = view._base
    prev = grad_mode._state.enabled
    grad_mode._state.enabled = True
    try:
        tape.record(OPS["as_strided"], (base,), view,
                    {"size": view._shape, "stride": view._strides, "offset": view._offset})
    finally:
        grad_mode._state.enabled = prev


_SUFFIX = {
    MULTI_OUTPUT: "This view is the output of a function that returns multiple views. Such functions do not "
                  "allow the output views to be modified inplace. You should replace the inplace operation by "
                  "an out-of-place one.",
    NO_GRAD: "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
             "by moving both the view and the inplace either both inside the no_grad block (if you don't want "
             "the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
    INFERENCE: "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
               "code by moving both the view and the inplace either both inside the inference_mode block (if "
               "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
               "tracked).",
}


def _message(view, meta, indirect):
    """PyTorch's words for a forbidden write into ``view`` (``indirect``: into its base or
    another view of it)."""
    kind, header = meta
    if view._grad_fn is not None:
        header = f"Output {view._output_nr} of {re.sub(r'Backward[0-9]*$', '', view._grad_fn.name())}"
    what = "its base or another view of its base has been" if indirect else "is being"
    if kind == INFERENCE:
        made, mode = "inference mode", "in normal mode"
    else:
        made, mode = "no_grad mode", "with grad mode enabled"
    if header is None:
        head = f"A view was created in {made} and {what} modified inplace {mode}."
    elif kind == MULTI_OUTPUT:
        head = f"{header} is a view and {what} modified inplace."
    else:
        head = f"{header} is a view of a view which was created in {made} and {what} modified inplace {mode}."
    return f"{head} {_SUFFIX[kind]}"

# ------------------------------------------------------------------------------ CopySlices

class CopySlices(Node):
    """grad_fn of a base after an in-place write into one of its views."""

    __slots__ = ("_base_geom", "_view_geom", "_span")

    def apply(self, grads_out, create_graph=False):
        g = grads_out[0]
        base_shape, base_strides, base_offset = self._base_geom
        view_shape, view_strides, view_offset = self._view_geom
        # Lay the base's cotangent out in a buffer shaped like the storage, then read the view's
        # region from it and zero that region for the base's previous history.
        buf = g.new_zeros(self._span)
        buf.as_strided(base_shape, base_strides, base_offset).copy_(g)
        region = buf.as_strided(view_shape, view_strides, view_offset)
        to_write = region.clone()
        if region._requires_grad:
            region.copy_(g.new_zeros(view_shape))
        else:
            region.fill_(0)
        rest = buf.as_strided(base_shape, base_strides, base_offset)
        return [rest if self.next_functions[0][0] is not None else None,
                to_write if self.next_functions[1][0] is not None else None]


def record_copy_slices(base, view):
    """Give ``base`` a CopySlices node after ``view`` (a view of it) took new history."""
    node = CopySlices()
    prev = base._grad_fn
    base_edge = (prev, base._output_nr) if prev is not None else \
        ((grad_accumulator(base), 0) if base._requires_grad else (None, 0))
    write_edge = (view._grad_fn, view._output_nr) if view._requires_grad and view._grad_fn is not None \
        else (None, 0)
    node.next_functions = (base_edge, write_edge)
    node._input_meta = ((base._shape, base.dtype), (view._shape, view.dtype))
    node._out_meta = ((base._shape, base.dtype, base.device),)
    node._base_geom = (base._shape, base._strides, base._offset)
    node._view_geom = (view._shape, view._strides, view._offset)
    node._span = base._storage.data.shape[0]
    base._grad_fn = node
    base._output_nr = 0
    base._requires_grad = True
    base.__dict__["_rebased_at"] = node.position
    return node
