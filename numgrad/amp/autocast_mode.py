"""``autocast``: mixed-precision regions, as ``torch.autocast``.

numgrad runs every op in the dtypes it is given: an enabled region it cannot honour raises
instead of silently computing in full precision.
"""
from __future__ import annotations

import functools
import warnings

from .. import cuda, dtypes
from ..devices import device as _device

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled"]


def is_autocast_available(device_type: str) -> bool:
    """False: numgrad casts no op automatically, on any device."""
    return False


def is_autocast_enabled(device_type=None) -> bool:
    """False: no autocast region is ever active in numgrad."""
    return False


class autocast:
    """Context manager and decorator for regions run in lower precision.

    ``enabled=False`` makes it a no-op, so device-agnostic programs run unchanged. Enabled on
    ``'cuda'`` without a GPU it warns and disables itself, as PyTorch does. Enabled on the CPU
    it raises: PyTorch casts to bfloat16 there, a dtype numgrad does not have.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device(device_type).type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if not self._enabled:
            return
        if self.device == "cuda" and not cuda.is_available():
            warnings.warn("CUDA is not available. Disabling autocast.")
            self._enabled = False
            return
        wanted = "bfloat16" if self.device == "cpu" and dtype is None else \
            "float16" if dtype is None else str(dtypes.as_dtype(dtype)).replace("numgrad.", "")
        if wanted == "bfloat16":
            raise RuntimeError(f"autocast(device_type='{self.device}') casts to bfloat16, a dtype numgrad does not "
                               "have; run in float32 (autocast(..., enabled=False)) instead")
        raise RuntimeError(f"autocast(device_type='{self.device}', dtype={wanted}) is not supported: numgrad "
                           "runs each op in its inputs' dtypes; cast the model and inputs explicitly, or pass "
                           "enabled=False")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run_in_region(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run_in_region
