"""Autograd for in-place writes through views: the base tensor takes the write's history."""
from __future__ import annotations


def propagate_view_write(base, view):
    """Called after ``view`` (a view of ``base``) was modified in place.

    When the write carries a gradient history, ``base`` gets a node that routes the
    cotangent: the written region's part goes to the written value, the rest to base's previous
    history.
    """
    if view.grad_fn is None:
        return
    from ..ops.registry import OPS
    from . import tape
    # The view's new grad_fn already depends on its old history, so recording "base is the
    # view written back" is enough: a CopySlices node.
    from .copyslices import record_copy_slices
    record_copy_slices(base, view)
