"""Optimizers and learning-rate schedulers."""
from __future__ import annotations

import importlib as _importlib

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "ASGD", "Rprop", "LBFGS", "lr_scheduler", "swa_utils"]


def __getattr__(name: str):
    # swa_utils builds on numgrad.nn, which the package imports after optim: it loads on first use.
    if name == "swa_utils":
        return _importlib.import_module(__name__ + ".swa_utils")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
