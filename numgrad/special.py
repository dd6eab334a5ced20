"""``numgrad.special``: PyTorch's ``torch.special`` names for the special functions."""
from __future__ import annotations

from .ops.functional_elementwise import (digamma, erf, erfc, erfinv, exp2, expm1, i0, lgamma, log1p, logit,
                                         polygamma, round, sigmoid, sinc, xlogy)
from .ops.functional_elementwise import special_i1 as i1, special_xlog1py as xlog1py

expit = sigmoid
gammaln = lgamma
psi = digamma

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i1", "log1p", "logit",
           "polygamma", "psi", "round", "sinc", "xlog1py", "xlogy"]
