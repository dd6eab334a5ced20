"""Reflect, replicate and circular padding as index gathers along the padded dims.

Each mode is one primitive: its forward picks source slices with ``index_select`` per dim, its
VJP scatter-adds the cotangent back with ``index_add`` (numgrad ops, so it nests).
"""
from __future__ import annotations

from ..autograd import tape
from .gather import index_add, index_select
from .records import primitive
from ..creation import zeros

__all__ = ["index_pad", "source_indices"]


def _scatter_back(g, ans, x, steps):
    shape = list(g.shape)
    # Each step padded one dim of x, and each dim only once: undo them last to first.
    for dim, index in reversed(steps):
        shape[dim] = x.shape[dim]
        g = index_add(zeros(shape, dtype=g.dtype, device=g.device), dim, index, g)
    return g


def _declare(mode: str, name: str, backward_names):
    return primitive(
        f"{name}_pad", 1, backward_name=backward_names[0],
        variants={str(k + 1): name for k, name in enumerate(backward_names)},
        vjp=(_scatter_back,),
        jvp=(lambda t, ans, x, steps: index_pad(t, steps, mode),))


# PyTorch names the node after the number of padded dims; circular padding is slice copies there.
_OPS = {
    "reflect": _declare("reflect", "reflection", [f"ReflectionPad{k}DBackward0" for k in (1, 2, 3)]),
    "replicate": _declare("replicate", "replication", [f"ReplicationPad{k}DBackward0" for k in (1, 2, 3)]),
    "circular": _declare("circular", "circular", ["CopySlices"] * 3),
}


def source_indices(n: int, lo: int, hi: int, mode: str) -> list:
    """The source position of each output position along a dim of size ``n`` padded by
    (``lo``, ``hi``); negative amounts crop. Circular padding wraps the cropped interior."""
    if mode == "circular":
        start, stop = max(-lo, 0), n - max(-hi, 0)
        size = stop - start
        return [start + (j - max(lo, 0)) % size for j in range(size + max(lo, 0) + max(hi, 0))] if size else []
    if mode == "replicate":
        return [min(max(i, 0), n - 1) for i in range(-lo, n + hi)]
    period = 2 * (n - 1)
    out = []
    for i in range(-lo, n + hi):
        i = abs(i) % period if period else 0
        out.append(period - i if i >= n else i)
    return out


def index_pad(x, steps, mode: str):
    """``x`` padded in ``mode``: ``steps`` holds (dim, int64 index tensor) pairs, each dim once,
    the index listing the source position of every output position along that dim."""
    op = _OPS[mode]
    out = x.detach()
    for dim, index in steps:
        out = index_select(out, dim, index)
    params = {"steps": tuple(steps)}
    if tape.should_record((x,)):
        tape.record(op, (x,), out, params, variant=str(len(steps)))
    if tape.has_tangents((x,)):
        tape.forward_jvp(op, (x,), out, params)
    return out
