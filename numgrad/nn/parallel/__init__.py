"""numgrad.nn.parallel: the data-parallel wrappers.

numgrad runs a module on one device, so :class:`DataParallel` runs the wrapped module as is;
:class:`DistributedDataParallel` runs one replica per process of a ``numgrad.distributed``
process group."""
from __future__ import annotations

from ..modules.module import Module
from .distributed import DistributedDataParallel

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
