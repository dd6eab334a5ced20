"""Distance layers: CosineSimilarity and PairwiseDistance."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """CosineSimilarity(dim=1, eps=1e-8): :func:`numgrad.nn.functional.cosine_similarity` of two inputs."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """PairwiseDistance(p=2.0, eps=1e-6, keepdim=False): :func:`numgrad.nn.functional.pairwise_distance`."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
