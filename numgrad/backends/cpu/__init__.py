"""CPU backend: Numba @njit kernels generated from the op declarations."""
from .memory import keep_freed_memory as _keep_freed_memory

_keep_freed_memory()
