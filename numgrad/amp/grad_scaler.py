"""``GradScaler``: dynamic loss scaling, as ``torch.amp.GradScaler``."""
from __future__ import annotations

import warnings

import numpy as np

from .. import cuda, dtypes
from ..autograd.grad_mode import no_grad
from ..creation import full
from ..tensor import Tensor

__all__ = ["GradScaler"]

# An optimizer's place in one iteration: gradients as backward left them, unscaled, stepped.
_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """Scales the loss so that small gradients survive low precision, and unscales them before the step.

    ``scaler.scale(loss).backward()``, then ``scaler.step(optimizer)`` (which skips the step when a
    gradient is inf or NaN) and ``scaler.update()`` (which lowers the scale after such a step and
    raises it after ``growth_interval`` clean ones). With ``enabled=False`` every method passes
    through: ``scale`` returns its input and ``step`` calls ``optimizer.step()``.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda" and not cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale = None
        self._growth_tracker = None
        self._states = {}

    # ---------------------------------------------------------------- the iteration
    def scale(self, outputs):
        """``outputs`` (a tensor or nested lists and tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale_on(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _scale_on(self, device) -> Tensor:
        if self._scale is None:
            self._scale = full((), self._init_scale, dtype=dtypes.float32, device=device)
            self._growth_tracker = self._init_growth_tracker
        return self._scale

    def _state(self, optimizer) -> dict:
        return self._states.setdefault(id(optimizer), {"stage": _READY, "found_inf": False})

    def unscale_(self, optimizer) -> None:
        """Divides ``optimizer``'s gradients by the scale in place, noting any inf or NaN among them."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        # The reciprocal is taken in float64 and rounded once to float32.
        inv_scale = float(np.float32(1.0 / float(self._scale.item())))
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv_scale)
                    if not found_inf and not bool(p.grad.isfinite().all()):
                        found_inf = True
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` on unscaled gradients, skipped (returning None) when
        any was inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Sets the scale for the next iteration: ``new_scale`` if given, else backed off after an
        inf or NaN gradient and grown after ``growth_interval`` clean steps in a row."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted update but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        if new_scale is not None:
            value = float(new_scale.item()) if isinstance(new_scale, Tensor) else float(new_scale)
        else:
            found = [s["found_inf"] for s in self._states.values() if s["stage"] is not _READY]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            value = float(self._scale.item())
            if any(found):
                value *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    value *= self._growth_factor
                    self._growth_tracker = 0
        self._scale = full((), value, dtype=dtypes.float32, device=self._scale.device)
        self._states = {}

    # ---------------------------------------------------------------- settings and state
    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """The scale and its settings (an empty dict when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores what :meth:`state_dict` returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._scale is not None:
            self._scale = full((), self._init_scale, dtype=dtypes.float32, device=self._scale.device)
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker
