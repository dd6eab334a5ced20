"""How a view comes to be: new metadata over its input's storage, its tape entry, its view
history (for later in-place writes) and its forward-mode tangent, and how an in-place view op
rewrites its input's own metadata."""
from __future__ import annotations

from ..autograd import inplace as _inplace, profiler as _profiler, tape
from ..autograd.inplace import adopts_base_grad, check_inplace
from ..autograd.grad_mode import _state as _grad_state
from ..tensor import Tensor

_dual_levels = tape._dual_levels
_new = Tensor._make


def make_view(x, op, shape, strides, offset=None, params=None, variant=None):
    """A view of ``x`` with ``shape``, ``strides`` and ``offset`` (x's own when None), recorded as
    ``op`` with ``params`` (named by ``variant``) when autograd sees it."""
    start = _profiler.now_us() if _profiler.enabled else None
    out = _new(x._storage, shape if shape.__class__ is tuple else tuple(shape),
               strides if strides.__class__ is tuple else tuple(strides), x._offset if offset is None else offset,
               x.dtype)
    out._base = x if x._base is None else x._base
    # tape.should_record and tape.has_tangents for one input, inlined: views run on every step.
    enabled = _grad_state.enabled
    if enabled and op.differentiable and (x._requires_grad or x._base is not None and adopts_base_grad(x)):
        tape.record(op, (x,), out, params, variant=variant)
    if not enabled:
        if x._requires_grad:
            # As PyTorch's, a view requires grad when its base does, even made without grad.
            out._requires_grad = True
        if _grad_state.inference or x._base is not None and x._view_meta is not None:
            _inplace.mark_view(x, out, op, variant)
        else:
            # mark_view's common case, inlined: optimizers and init make views under no_grad.
            out._view_meta = _inplace.NO_GRAD_MARK
            if x._requires_grad:
                _inplace.note_version(out)
    elif x._base is not None and x._view_meta is not None:
        # Only views carry a mark; the slot read first is the cheaper one.
        _inplace.mark_view(x, out, op, variant)
    if start is not None:
        # Before the tangent: its rule runs ops, which the event, having no children, cannot hold.
        _profiler.leaf_event(op.event, start, (x,))
    if _dual_levels[0] and x._fw_tangent is not None:
        tape.forward_jvp(op, (x,), out, params)
    return out


def inplace_view(input, fn, *args):
    """Apply view ``fn`` to ``input``'s own metadata (``x.unsqueeze_(0)`` and friends)."""
    check_inplace(input)
    # The op sees an alias so that its tape entry keeps the old shape of its input.
    alias = input._view(input._shape, input._strides)
    alias._requires_grad, alias._grad_fn, alias._output_nr = input._requires_grad, input._grad_fn, input._output_nr
    alias._base = input._base
    out = fn(alias, *args)
    input._shape, input._strides, input._offset = out._shape, out._strides, out._offset
    if out._grad_fn is not None:
        input._grad_fn, input._output_nr = out._grad_fn, out._output_nr
    return input
