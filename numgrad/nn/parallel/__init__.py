"""numgrad.nn.parallel: the data-parallel wrappers.

numgrad runs a module on one device, so :class:`DataParallel` runs the wrapped module as is;
:class:`DistributedDataParallel` needs a process group, which ``numgrad.distributed`` does not
provide yet, and says so when constructed."""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    """DataParallel(module, device_ids=None, output_device=None, dim=0)

    Runs ``module`` on its one device; the wrapped module is ``self.module``, so state-dict keys
    carry the ``module.`` prefix as PyTorch's do."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """DistributedDataParallel(module, device_ids=None, ...)

    Requires an initialised default process group."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0, broadcast_buffers: bool = True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters: bool = False, **kwargs):
        super().__init__()
        raise RuntimeError("Default process group has not been initialized, please make sure to call "
                           "init_process_group.")
