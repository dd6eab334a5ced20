"""Random numbers: the Generator, manual_seed, and the random factories and in-place fills.

After ``manual_seed(s)``, the same calls give the same numbers as PyTorch's CPU generator
(``generator``); elements are drawn in memory order (``fills``).
"""
from __future__ import annotations

from .generator import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,
                        set_rng_state)
from .fills import (bernoulli_, cauchy_, exponential_, geometric_, log_normal_, normal_, random_,
                    uniform_)
from .sampling import bernoulli, multinomial, poisson
from .factories import normal, rand, rand_like, randint, randint_like, randn, randn_like, randperm

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "rand", "randn", "randint", "randperm", "normal", "bernoulli",
           "rand_like", "randn_like", "randint_like", "uniform_", "normal_", "random_", "bernoulli_",
           "exponential_", "geometric_", "cauchy_", "log_normal_", "multinomial", "poisson"]

# In-place fills and ``bernoulli`` are also Tensor methods (bound in tensor_methods.py).
TENSOR_METHODS = ("uniform_", "normal_", "random_", "bernoulli_", "bernoulli", "exponential_", "geometric_",
                  "cauchy_", "log_normal_", "multinomial")
