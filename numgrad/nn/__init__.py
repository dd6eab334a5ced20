"""numgrad.nn: modules, layers, losses, parameter initialisation and the functional API."""
from __future__ import annotations

from . import functional, init, parallel, utils
from .modules import *  # noqa: F401,F403
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .parallel import DataParallel
