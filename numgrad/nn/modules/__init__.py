"""The module classes of numgrad.nn."""
from __future__ import annotations

from .activation import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
