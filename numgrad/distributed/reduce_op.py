"""ReduceOp: the reductions a collective applies, and their MPI counterparts."""
from __future__ import annotations

import enum

__all__ = ["ReduceOp"]


class RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class ReduceOp:
    """ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR: the reduction of a collective."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR


_NAMES = {RedOpType.SUM: "SUM", RedOpType.AVG: "SUM", RedOpType.PRODUCT: "PROD", RedOpType.MIN: "MIN",
          RedOpType.MAX: "MAX", RedOpType.BAND: "BAND", RedOpType.BOR: "BOR", RedOpType.BXOR: "BXOR"}
# MPI defines no arithmetic on booleans: their reductions are the logical ones.
_LOGICAL = {RedOpType.SUM: "LOR", RedOpType.AVG: "LOR", RedOpType.MAX: "LOR", RedOpType.BOR: "LOR",
            RedOpType.PRODUCT: "LAND", RedOpType.MIN: "LAND", RedOpType.BAND: "LAND", RedOpType.BXOR: "LXOR"}


def mpi_op(MPI, op, dtype=None):
    """The MPI operation computing ``op`` on ``dtype``: AVG is a SUM divided afterwards; on
    booleans, SUM and MAX are a logical or, PRODUCT and MIN a logical and."""
    try:
        key = RedOpType(op)
    except (ValueError, TypeError):
        raise ValueError(f"unknown reduce op {op!r}: use a member of numgrad.distributed.ReduceOp") from None
    table = _LOGICAL if dtype is not None and dtype.kind == "b" else _NAMES
    return getattr(MPI, table[key])
