"""Dropout layers: random zeroing of elements or channels in training mode, identity in eval mode."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Dropout(p=0.5, inplace=False): zeroes elements with probability ``p`` while training and
    scales the rest by 1 / (1 - p)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Dropout1d(p=0.5, inplace=False): zeroes whole channels of (N, C, L) or (C, L) inputs."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Dropout2d(p=0.5, inplace=False): zeroes whole channels of (N, C, H, W) inputs."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Dropout3d(p=0.5, inplace=False): zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """AlphaDropout(p=0.5, inplace=False): dropout that keeps SELU's mean and variance."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """FeatureAlphaDropout(p=0.5, inplace=False): alpha dropout of whole channels."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
