"""The autocast state of each thread and the casts it makes, as PyTorch's autocast.

Inside an enabled region (``numgrad.autocast``), the ops declared with a cast policy convert
their floating tensor arguments before running: ``"lower"`` ops (products, convolutions,
attention) to the region's dtype, ``"float32"`` ops (losses, reductions and decompositions
that lose accuracy in 16 bits) to float32. float64 tensors are left alone, and so is every op
an op of either kind runs inside itself.
"""
from __future__ import annotations

import functools
import threading

from .. import dtypes

__all__ = ["cast_policy", "run", "regions", "state"]

# Default dtype of a region per device type.
DEFAULT_DTYPES = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}


class _State(threading.local):
    def __init__(self):
        self.enabled = {}                   # device type -> True inside an enabled region
        self.dtype = dict(DEFAULT_DTYPES)   # device type -> the region's lower-precision dtype
        self.cache_enabled = True
        self.inside = False                 # running a cast op: the ops it runs are not cast again


state = _State()
# Enabled regions open in any thread: the ops' one check while no region is open anywhere.
regions = [0]


def _cast(value, policy: str, enabled: dict, lower: dict):
    d = getattr(value, "dtype", None)
    if d.__class__ is dtypes.dtype:
        if not d.is_floating_point or d is dtypes.float64:
            return value
        device = value.device.type
        if not enabled.get(device):
            return value
        target = lower[device] if policy == "lower" else dtypes.float32
        return value if d is target else value.to(target)
    if value.__class__ in (list, tuple):
        return value.__class__(_cast(v, policy, enabled, lower) for v in value)
    return value


def run(policy: str, fn, args, kwargs):
    """``fn(*args, **kwargs)`` with its tensor arguments cast by ``policy`` ("lower" or "float32")
    where this thread is inside an enabled region."""
    s = state
    if s.inside or not any(s.enabled.values()):
        return fn(*args, **kwargs)
    args = tuple(_cast(a, policy, s.enabled, s.dtype) for a in args)
    kwargs = {k: _cast(v, policy, s.enabled, s.dtype) for k, v in kwargs.items()}
    s.inside = True
    try:
        return fn(*args, **kwargs)
    finally:
        s.inside = False


def cast_policy(policy: str):
    """Decorator: the op's cast ``policy`` in autocast regions, for op functions that have no
    :func:`~numgrad.autograd.profiler.op_event` (which takes the policy itself)."""
    def decorate(fn):
        @functools.wraps(fn)
        def op(*args, **kwargs):
            if regions[0]:
                return run(policy, fn, args, kwargs)
            return fn(*args, **kwargs)
        return op
    return decorate
