"""``numgrad.amp``: mixed-precision training helpers, as ``torch.amp``."""
from __future__ import annotations

from .autocast_mode import autocast, is_autocast_available, is_autocast_enabled
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available", "is_autocast_enabled"]
