"""DistributedDataParallel: one model replica per process, gradients averaged over the
processes during backward."""
from __future__ import annotations

import contextlib

from ...autograd.grad_mode import is_grad_enabled
from ...distributed.buffers import broadcast_coalesced
from ...distributed.process_group import resolve
from ...distributed.reducer import Reducer
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


def _unique(tensors):
    seen, out = set(), []
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out


class DistributedDataParallel(Module):
    """DistributedDataParallel(module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
    init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False, ...)

    Wraps ``module`` so that each process of ``process_group`` (the default group when None)
    trains the same model on its own batch: parameters and buffers start as rank 0's, and
    backward averages the gradients over the processes, bucket by bucket (``bucket_cap_mb``
    megabytes each), while later gradients are still being computed. ``no_sync()`` accumulates
    gradients locally instead; ``find_unused_parameters=True`` allows parameters that do not
    take part in the loss. The wrapped module is ``self.module``."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0, broadcast_buffers=None,
                 init_sync: bool = True, process_group=None, bucket_cap_mb=None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 **kwargs):
        super().__init__()
        pg = resolve(process_group)
        if pg is None:
            raise ValueError("DistributedDataParallel needs a process group this process belongs to")
        self.module = module
        self.process_group = pg
        self.device_ids = None if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        params = _unique(p for p in module.parameters() if p.requires_grad)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self._check_same_model(pg, module)
        if init_sync and pg.size() > 1:
            broadcast_coalesced(_unique(list(module.parameters()) + list(module.buffers())), pg)
        self.reducer = Reducer(params, pg, self.bucket_bytes_cap, find_unused_parameters)

    @staticmethod
    def _check_same_model(pg, module):
        mine = [(tuple(p.shape), str(p.dtype)) for p in module.parameters()]
        every = pg._comm.allgather(mine)
        for rank, theirs in enumerate(every):
            if theirs != every[0]:
                raise RuntimeError(f"DDP expects the same model on every rank, but rank {pg._ranks[rank]} has "
                                   f"{len(theirs)} parameters of shapes {[s for s, _ in theirs]} while rank "
                                   f"{pg._ranks[0]} has {len(every[0])} of shapes {[s for s, _ in every[0]]}")

    def forward(self, *inputs, **kwargs):
        sync = is_grad_enabled() and self.require_backward_grad_sync
        if self.broadcast_buffers and self.process_group.size() > 1:
            buffers = _unique(self.module.buffers())
            if buffers:
                broadcast_coalesced(buffers, self.process_group)
        output = self.module(*inputs, **kwargs)
        if sync:
            self.reducer.prepare_for_backward(output)
        else:
            self.reducer.armed = False
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward accumulates gradients locally without averaging them over the
        processes; the first backward after it averages the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous
