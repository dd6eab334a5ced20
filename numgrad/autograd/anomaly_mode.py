"""Anomaly detection: nodes remember the forward traceback that made them, and the backward
pass stops at the first node whose gradients hold NaN."""
from __future__ import annotations

import functools
import warnings

from .saving import watched
from .tape import anomaly as state

# ``state`` is [enabled, check_nan]: read by the tape on every record and by the engine once per
# backward.
__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return state[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks the backward pass for NaN."""
    return state[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    _set(enabled, check_nan)


def _set(mode: bool, check_nan: bool):
    mode = bool(mode)
    if mode != state[0]:
        watched[0] += 1 if mode else -1
    state[0] = mode
    state[1] = bool(check_nan)


class _AnomalyContext:
    """What detect_anomaly and set_detect_anomaly share: the mode to restore on exit."""

    def __exit__(self, *exc):
        _set(*self._prev)
        return False


class detect_anomaly(_AnomalyContext):
    """Context manager (or decorator) that enables anomaly detection for the autograd engine.

    Nodes recorded inside keep the traceback of the forward call that made them; a backward
    error, or NaN in a node's gradients when ``check_nan`` is True, is raised with a warning
    that shows that traceback. Slows every op down: for debugging only.
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        self._prev = None
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._prev = (state[0], state[1])
        _set(True, self.check_nan)
        return self

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly(_AnomalyContext):
    """Sets anomaly detection on or off (``mode``) and NaN checks (``check_nan``), as a call or
    as a context manager that restores the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self._prev = (state[0], state[1])
        _set(mode, check_nan)

    def __enter__(self):
        return self
