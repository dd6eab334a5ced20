"""CPU backend: Numba @njit kernels generated from the op declarations."""
