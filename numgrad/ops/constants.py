"""The constants PyTorch exposes at the top of its namespace: mathematical ones (``torch.pi`` &
co.) and the memory formats that ``contiguous``, ``to`` and the factories accept."""
from __future__ import annotations

import math

from .. import names

__all__ = ["e", "pi", "inf", "nan", "newaxis", "memory_format", "contiguous_format", "channels_last",
           "channels_last_3d", "preserve_format"]

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
# Indexing with None inserts a dimension, as NumPy's newaxis.
newaxis = None


class memory_format:
    """A memory format: how a tensor's elements are ordered in memory. numgrad's ops accept
    every format and lay results out row-major (as ``contiguous_format``)."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"{names.package()}.{self.name}"

    def __reduce__(self):
        return self.name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
