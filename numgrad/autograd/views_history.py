"""Autograd for views written in place: views whose base was written read the base's new
history; views made in no_grad or inference mode, or by a multi-output op (PyTorch's creation
meta), may not be written while autograd records."""
from __future__ import annotations

import re

from . import grad_mode, tape

NO_GRAD, INFERENCE, MULTI_OUTPUT = "no_grad", "inference", "multi_output"
# A view's mark: (how it was made, the node PyTorch's error names when numgrad's view has none).
NO_GRAD_MARK = (NO_GRAD, None)


def propagate_view_write(base, view):
    """Called after ``view`` (a view of ``base``) was modified in place; the write already gave
    ``base`` its CopySlices node when it went through ``tape.rebase``."""
    if base._grad_fn is not None and base.__dict__.get("_rebased_at") == base._grad_fn.position:
        return
    if view._requires_grad or base._requires_grad:
        from .copyslices import record_copy_slices
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
    (``inplace.check_inplace``) has checked that grad mode is on and that the write needs grad."""
    meta = view._view_meta
    if meta is not None:
        raise RuntimeError(_message(view, meta, False))


def regenerate(view):
    """Re-derive ``view``'s grad_fn as an as_strided view of its base's current history."""
    meta = view._view_meta
    if meta is not None:
        raise RuntimeError(_message(view, meta, True))
    base = view._base
    from ..ops.registry import OPS
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
