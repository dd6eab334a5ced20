"""numgrad.nn.functional: the stateless functions behind the layers and losses."""
from __future__ import annotations

from . import activation as _activation, attention as _attention, common as _common, conv as _conv
from . import conv_transpose as _conv_transpose, ctc as _ctc, distance as _distance, loss as _loss
from . import normalization as _normalization, padding as _padding, pooling as _functional_pooling
from . import ranking_loss as _ranking_loss, sampling as _sampling
from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .conv_transpose import *  # noqa: F401,F403
from .ctc import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .ranking_loss import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
from ...batched import intercept_namespace
from ...ops import pooling as _pooling
from ...ops.pooling import *  # noqa: F401,F403

__all__ = (_activation.__all__ + _attention.__all__ + _common.__all__ + _conv.__all__ + _conv_transpose.__all__
           + _ctc.__all__ + _distance.__all__ + _loss.__all__ + _normalization.__all__ + _padding.__all__
           + _functional_pooling.__all__ + _ranking_loss.__all__ + _sampling.__all__ + _pooling.__all__)

# Inside vmap, each function runs by its batching rule.
intercept_namespace(globals(), "F", __all__)
