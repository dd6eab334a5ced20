"""``autocast``: mixed-precision regions, as ``torch.autocast``.

Inside an enabled region, products, convolutions and attention run in the region's 16-bit
dtype (bfloat16 on the CPU by default) and losses and accuracy-sensitive reductions in float32;
every other op runs in the dtypes it is given. Which op does what is declared with the op
(``autocast=`` of its ``op_event``, or ``cast_policy``); the state lives in
``numgrad.autograd.autocast_state``.
"""
from __future__ import annotations

import functools
import warnings

from .. import cuda, dtypes
from ..autograd import autocast_state
from ..devices import device as _device

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "set_autocast_enabled", "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "clear_autocast_cache", "is_autocast_cpu_enabled", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"]

# The dtypes a region may cast to, per device type.
_SUPPORTED = {"cpu": (dtypes.bfloat16, dtypes.float16), "cuda": (dtypes.float16,)}


def _device_type(device_type) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    return _device(device_type).type


def is_autocast_available(device_type: str) -> bool:
    """True where autocast regions can be enabled: the CPU, and CUDA when a GPU is present."""
    kind = _device_type(device_type)
    return kind == "cpu" or (kind == "cuda" and cuda.is_available())


def is_autocast_enabled(device_type=None) -> bool:
    """Whether this thread is inside an enabled region of ``device_type`` (CUDA by default, as PyTorch's)."""
    return autocast_state.state.enabled.get("cuda" if device_type is None else _device_type(device_type), False)


def set_autocast_enabled(device_type, enabled=None) -> None:
    """Enables or disables autocast for ``device_type`` in this thread (one argument: CUDA's flag)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    kind = _device_type(device_type)
    was = autocast_state.state.enabled.get(kind, False)
    autocast_state.state.enabled[kind] = bool(enabled)
    autocast_state.regions[0] += bool(enabled) - was


def get_autocast_dtype(device_type: str):
    """The dtype that autocast regions of ``device_type`` cast to."""
    return autocast_state.state.dtype.get(_device_type(device_type), dtypes.float16)


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Sets the dtype that autocast regions of ``device_type`` cast to in this thread."""
    autocast_state.state.dtype[_device_type(device_type)] = dtypes.as_dtype(dtype)


def is_autocast_cpu_enabled() -> bool:
    """``is_autocast_enabled('cpu')`` (deprecated in PyTorch)."""
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    """``get_autocast_dtype('cpu')`` (deprecated in PyTorch)."""
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    """``get_autocast_dtype('cuda')`` (deprecated in PyTorch)."""
    return get_autocast_dtype("cuda")


def is_autocast_cache_enabled() -> bool:
    """Whether regions may keep the casts of parameters; numgrad casts each time, so this only records the flag."""
    return autocast_state.state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Records the cache flag (numgrad keeps no cast cache: each op casts its arguments)."""
    autocast_state.state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Nothing to clear: numgrad keeps no cast cache."""


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None)

    Context manager and decorator for regions run in mixed precision. On ``'cpu'`` the ops
    PyTorch lists as lower-precision (``linear``, ``matmul`` and the other products,
    convolutions, ``prelu``, ``scaled_dot_product_attention``, the LSTM and RNN layers) cast
    their float32 arguments to ``dtype`` (bfloat16 by default, or float16), and its float32 ops (losses, ``prod``,
    ``cdist``, ``trace``, quantiles, decompositions, 3-D pooling, ``grid_sample``) cast 16-bit
    arguments to float32. Backward runs in the dtypes of the forward. Enabled on ``'cuda'``
    without a GPU it warns and disables itself, as PyTorch does.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        self.device = _device_type(device_type)
        self.fast_dtype = autocast_state.state.dtype.get(self.device, dtypes.float16) if dtype is None \
            else dtypes.as_dtype(dtype)
        self._enabled = bool(enabled)
        self._cache_enabled = cache_enabled
        if self.device not in _SUPPORTED:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        if self._enabled and self.device == "cuda" and not cuda.is_available():
            warnings.warn("CUDA is not available. Disabling autocast.")
            self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED[self.device]:
            kind = self.device.upper()
            names = ", ".join(f"torch.{d.name}" for d in _SUPPORTED[self.device])
            warnings.warn(f"In {kind} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{kind} Autocast only supports dtypes of {names} currently.")
            self._enabled = False

    def __enter__(self):
        s = autocast_state.state
        self._saved = (s.enabled.get(self.device, False), s.dtype.get(self.device), s.cache_enabled)
        set_autocast_enabled(self.device, self._enabled)
        s.dtype[self.device] = self.fast_dtype
        if self._cache_enabled is not None:
            s.cache_enabled = bool(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        s = autocast_state.state
        enabled, dtype, s.cache_enabled = self._saved
        set_autocast_enabled(self.device, enabled)
        s.dtype[self.device] = dtype
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run_in_region(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run_in_region
