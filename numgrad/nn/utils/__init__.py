"""numgrad.nn.utils: gradient clipping, parameter vectors, packed sequences for recurrent layers,
parametrizations, weight/spectral normalisation and stateless module calls."""
from __future__ import annotations

from . import parametrizations, parametrize, rnn, stateless
from .clip_grad import *  # noqa: F401,F403
from .clip_grad import __all__ as _clip_all
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["rnn", "stateless", "parametrize", "parametrizations", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm"] + _clip_all
