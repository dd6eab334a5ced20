"""vmap's machinery: BatchedTensor, the batching rules, and vmap itself (``numgrad.vmap``,
``numgrad.func.vmap``)."""
from __future__ import annotations

from .. import linalg as _linalg, special as _special
from . import table as _table
from .api import vmap
from .dispatch import fallback_keys, intercept, intercept_namespace
from .tensor import BatchedTensor, running

__all__ = ["vmap", "BatchedTensor", "intercept", "intercept_namespace", "fallback_keys", "running"]

_table.install()
for _module, _prefix in ((_linalg, "linalg"), (_special, "special")):
    intercept_namespace(vars(_module), _prefix, [n for n in dir(_module) if not n.startswith("_")])
