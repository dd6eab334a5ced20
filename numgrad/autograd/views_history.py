"""Autograd for views whose base was written in place: they read the base's new history."""
from __future__ import annotations

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
    base = view._base
    from ..ops.registry import OPS
    prev = tape.grad_mode._state.enabled
    tape.grad_mode._state.enabled = True
    try:
        tape.record(OPS["as_strided"], (base,), view,
                    {"size": view._shape, "stride": view._strides, "offset": view._offset})
    finally:
        tape.grad_mode._state.enabled = prev
