"""CopySlices: the node a base tensor takes when one of its views is written in place.

The written region's cotangent goes to the write's history; the rest of the base's cotangent
goes to the base's previous history, with the written region zeroed (those values were
overwritten). Geometry is in storage coordinates, so any view (slice, select, diagonal,
as_strided, ...) of any base is handled the same way.
"""
from __future__ import annotations

from .nodes import Node, grad_accumulator


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
