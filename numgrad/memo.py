"""Bounded memo tables for what hot paths work out once per call layout (plans, geometries)."""
from __future__ import annotations


class Memo(dict):
    """A dict that empties itself when a new entry would exceed ``limit``.

    Call layouts repeat, so the entries that matter come straight back after a reset, while a
    program that keeps making new layouts cannot grow the table without bound. Reads are plain
    dict reads.
    """

    __slots__ = ("limit",)

    def __init__(self, limit: int = 4096):
        super().__init__()
        self.limit = limit

    def __setitem__(self, key, value):
        if len(self) >= self.limit:
            self.clear()
        dict.__setitem__(self, key, value)
