"""Autograd for views written in place: views whose base was written read the base's new
history; pieces of a multi-output view op may not be written while autograd records."""
from __future__ import annotations

import re

from . import tape


def propagate_view_write(base, view):
    """Called after ``view`` (a view of ``base``) was modified in place; the write already gave
    ``base`` its CopySlices node when it went through ``tape.rebase``."""
    if base.grad_fn is not None and base.__dict__.get("_rebased_at") == base.grad_fn.position:
        return
    if view.requires_grad or base.requires_grad:
        from .copyslices import record_copy_slices
        record_copy_slices(base, view)


def regenerate(view):
    """Re-derive ``view``'s grad_fn as an as_strided view of its base's current history."""
    if _multi_output_piece(view):
        raise RuntimeError(f"{_output_of(view)} is a view and its base or another view of its base has been "
                           "modified inplace. " + _MULTI_OUTPUT)
    base = view._base
    from ..ops.registry import OPS
    prev = tape.grad_mode._state.enabled
    tape.grad_mode._state.enabled = True
    try:
        tape.record(OPS["as_strided"], (base,), view,
                    {"size": view._shape, "stride": view._strides, "offset": view._offset})
    finally:
        tape.grad_mode._state.enabled = prev


_MULTI_OUTPUT = ("This view is the output of a function that returns multiple views. Such functions do not "
                 "allow the output views to be modified inplace. You should replace the inplace operation "
                 "by an out-of-place one.")


def _multi_output_piece(view) -> bool:
    """Whether ``view`` is a piece of a multi-output view op, or a view of one."""
    fn = view.grad_fn
    while fn is not None:
        op = fn.op
        if op is None or op.kind != "view":
            return False
        if op.extra.get("multi_output"):
            return True
        fn = fn.next_functions[0][0]
    return False


def _output_of(view) -> str:
    return f"Output {view._output_nr} of {re.sub(r'Backward[0-9]*$', '', view.grad_fn.name())}"


def check_multi_output_write(view):
    """Refuse a recorded in-place write into a piece of a multi-output view op (unbind, split,
    chunk) or into a view of one, as PyTorch does: the pieces share one node, which a write into
    one of them cannot be rebased onto."""
    if _multi_output_piece(view):
        raise RuntimeError(f"{_output_of(view)} is a view and is being modified inplace. " + _MULTI_OUTPUT)
    if view.__dict__.get("_made_in_no_grad"):
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
            "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
            "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
            "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
