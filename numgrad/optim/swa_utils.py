"""Weight averaging: AveragedModel (SWA and EMA of a model's weights), SWALR and update_bn."""
from __future__ import annotations

import copy
import itertools
import math

from ..autograd.grad_mode import no_grad
from ..creation import tensor
from .. import dtypes
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ._lr_base import LRScheduler, _per_group

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_avg_fn", "get_swa_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn"]


def get_ema_avg_fn(decay: float = 0.999):
    """``avg_fn`` of an exponential moving average: ``decay * avg + (1 - decay) * current``."""
    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` of the running mean of every model seen: ``avg + (current - avg) / (n + 1)``."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_ema_multi_avg_fn(decay: float = 0.999):
    """``multi_avg_fn`` of an exponential moving average, updating lists of tensors in place."""
    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        for ema, current in zip(ema_param_list, current_param_list):
            if ema.is_floating_point():
                ema.lerp_(current, 1 - decay)
            else:
                ema.mul_(decay).add_(current, alpha=1 - decay)
    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` of the running mean of every model seen, updating lists of tensors in place."""
    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        n = num_averaged.item() if hasattr(num_averaged, "item") else num_averaged
        for averaged, current in zip(averaged_param_list, current_param_list):
            averaged.copy_(averaged + (current - averaged) / (n + 1))
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters are an average of the weights passed to
    :meth:`update_parameters`: the running mean (SWA) by default, or what ``avg_fn(averaged,
    current, num_averaged)`` / ``multi_avg_fn(averaged_list, current_list, num_averaged)`` compute.

    With ``use_buffers=True`` buffers are averaged too; otherwise they are copied from ``model``."""

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers: bool = False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=dtypes.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model: Module):
        if self.use_buffers:
            return (list(itertools.chain(self.module.parameters(), self.module.buffers())),
                    list(itertools.chain(model.parameters(), model.buffers())))
        return list(self.parameters()), list(model.parameters())

    @no_grad()
    def update_parameters(self, model: Module) -> None:
        """Folds ``model``'s current weights into the average."""
        averaged, current = self._averaged_tensors(model)
        averaged = [p.detach() for p in averaged]
        current = [p.detach().to(a.device) for a, p in zip(averaged, current)]
        n = self.n_averaged
        if n.item() == 0:
            for a, c in zip(averaged, current):
                a.copy_(c)
        elif self.avg_fn is not None:
            for a, c in zip(averaged, current):
                a.copy_(self.avg_fn(a, c, n.to(a.device)))
        elif self.multi_avg_fn is not None:
            self.multi_avg_fn(averaged, current, n)
        else:
            swa = get_swa_avg_fn()
            for a, c in zip(averaged, current):
                a.copy_(swa(a, c, n.to(a.device)))
        if not self.use_buffers:
            # Buffers such as BatchNorm's running statistics follow the latest model; update_bn
            # recomputes them for the averaged weights.
            for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    """Recomputes the running statistics of ``model``'s BatchNorm layers with one pass over
    ``loader`` (a batch that is a list or tuple contributes its first element)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        # momentum=None: a cumulative average over the whole pass.
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate to ``swa_lr`` over ``anneal_epochs`` epochs
    (``anneal_strategy`` ``"cos"`` or ``"linear"``), then holds it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1):
        for group, lr in zip(optimizer.param_groups, _per_group("swa_lr", optimizer, swa_lr)):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _start_lr(lr, swa_lr, alpha):
        # The learning rate this annealing started from, recovered from the current one.
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + self._start_lr(group["lr"], group["swa_lr"], prev_alpha) * (1 - alpha)
                for group in self.optimizer.param_groups]
