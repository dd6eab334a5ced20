"""numgrad.nn.functional: the stateless functions behind the layers and losses."""
from __future__ import annotations

from . import activation as _activation, common as _common, conv as _conv, loss as _loss
from . import normalization as _normalization, padding as _padding, distance as _distance
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from ...ops import pooling as _pooling
from ...ops.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d  # noqa: F401

__all__ = (_activation.__all__ + _common.__all__ + _conv.__all__ + _loss.__all__
           + _normalization.__all__ + _padding.__all__ + _distance.__all__ + _pooling.__all__)
