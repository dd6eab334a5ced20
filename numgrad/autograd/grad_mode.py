"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (per thread)."""
from __future__ import annotations

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _State(threading.local):
    enabled = True
    inference = False


_state = _State()


def is_grad_enabled() -> bool:
    """True when operations are being recorded for autograd in this thread."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _Mode:
    """A context manager that is also a decorator."""

    _enable = True

    def __enter__(self):
        self._prev = _state.enabled
        _state.enabled = self._enable

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_Mode):
    """Context manager (and decorator) that disables gradient recording."""

    _enable = False


class enable_grad(_Mode):
    """Context manager (and decorator) that enables gradient recording inside no_grad."""

    _enable = True


class set_grad_enabled(_Mode):
    """Sets grad mode on or off: immediately as a call, or for a block as a context manager."""

    def __init__(self, mode: bool):
        self._prev = _state.enabled
        self._enable = bool(mode)
        _state.enabled = self._enable

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, fn):
        mode = self._enable
        _state.enabled = self._prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return set_grad_enabled(self._enable)


class inference_mode(_Mode):
    """Like no_grad; tensors made inside are marked as inference tensors."""

    def __init__(self, mode: bool = True):
        self._mode = mode

    def __enter__(self):
        self._prev = _state.enabled
        self._prev_inf = _state.inference
        if self._mode:
            _state.enabled = False
            _state.inference = True

    def __exit__(self, *exc):
        _state.enabled = self._prev
        _state.inference = self._prev_inf
        return False

    def __call__(self, fn):
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper
