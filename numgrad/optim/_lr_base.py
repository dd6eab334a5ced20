"""LRScheduler, the base of the learning-rate schedules, and the small functions they share."""
from __future__ import annotations

import contextlib
import functools
import warnings
import weakref

from .optimizer import Optimizer

__all__ = ["LRScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available.")

_STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. You should call them in the order "
    "`optimizer.step()` then `lr_scheduler.step()`; otherwise the first value of the learning rate schedule "
    "is skipped.")

_STEP_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. Please, "
    "make sure to call `optimizer.step()` before `lr_scheduler.step()`.")

_GET_LR_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _group_values(optimizer: Optimizer, key: str) -> list:
    return [group[key] for group in optimizer.param_groups]


def _per_group(name: str, optimizer: Optimizer, value) -> list:
    """``value`` repeated for each parameter group, or checked to have one entry per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(value)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


def _set_momentum(group: dict, momentum: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _check_momentum_support(optimizer: Optimizer) -> bool:
    """Whether momentum cycling writes ``betas[0]`` (True) or ``momentum`` (False)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in optimizer.defaults


def _track_optimizer_steps(optimizer: Optimizer) -> None:
    """Wraps ``optimizer.step`` so that a scheduler can tell whether it ran before its own first step."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @functools.wraps(func)
    def step(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func.__get__(opt, type(opt))(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    optimizer.step = step


class LRScheduler:
    """Base class of the schedules: subclasses give ``get_lr()``, the learning rates of epoch
    ``last_epoch`` computed from the current ones (the chainable form), and optionally
    ``_get_closed_form_lr()``, used by ``step(epoch)``."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   "scheduler with last_epoch >= 0.")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        with self._initial_mode():
            self.step()

    @contextlib.contextmanager
    def _initial_mode(self):
        self._is_initial = True
        try:
            yield
        finally:
            self._is_initial = False

    @contextlib.contextmanager
    def _within_step(self):
        self._get_lr_called_within_step = True
        try:
            yield
        finally:
            self._get_lr_called_within_step = False

    def _warn_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=3)

    def get_lr(self) -> list:
        """The learning rates of epoch ``last_epoch``."""
        raise NotImplementedError

    def get_last_lr(self) -> list:
        """The learning rates set by the last ``step()``."""
        return self._last_lr

    def step(self, epoch=None) -> None:
        """Advances one epoch (or jumps to ``epoch``) and writes the new learning rates into the optimizer."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_STEP_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        with self._within_step():
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _group_values(self.optimizer, "lr")

    def state_dict(self) -> dict:
        """Every attribute except the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores the attributes saved by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
