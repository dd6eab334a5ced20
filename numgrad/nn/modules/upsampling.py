"""Upsampling layers over ``F.interpolate``: Upsample, UpsamplingNearest2d, UpsamplingBilinear2d."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None)

    Resizes (N, C, W), (N, C, H, W) or (N, C, D, H, W) inputs to ``size`` or by
    ``scale_factor`` with :func:`numgrad.nn.functional.interpolate`."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        shown = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """UpsamplingNearest2d(size=None, scale_factor=None)

    Nearest-neighbour upsampling of (N, C, H, W) inputs."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """UpsamplingBilinear2d(size=None, scale_factor=None)

    Bilinear upsampling of (N, C, H, W) inputs with ``align_corners=True``."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
