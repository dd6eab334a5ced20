"""``numgrad.cuda.amp``: the older CUDA-only spellings of :class:`GradScaler` and :class:`autocast`."""
from __future__ import annotations

import warnings

from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler", "autocast"]


class GradScaler(_GradScaler):
    """``numgrad.amp.GradScaler('cuda', ...)`` under its deprecated name."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class autocast(_autocast):
    """``numgrad.amp.autocast('cuda', ...)`` under its deprecated name."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype, enabled, cache_enabled)
