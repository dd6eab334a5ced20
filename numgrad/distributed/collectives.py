"""Collectives over a process group, writing in place into numgrad CPU tensors.

Each returns None, or a Work handle with ``async_op=True``; ``timeout`` (seconds or a
timedelta) bounds the wait, over the group's own timeout."""
from __future__ import annotations

import numpy as np

from . import _mpi
from .buffers import check_match, contiguous_array, copy_into, divide, run, write_back
from .process_group import peer, resolve
from .reduce_op import ReduceOp, mpi_op

__all__ = ["all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor", "reduce",
           "gather", "scatter", "barrier", "all_gather_object", "broadcast_object_list"]


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False, *, timeout=None):
    """Reduce ``tensor`` over all ranks of ``group`` with ``op``; every rank gets the result in place."""
    pg = resolve(group)
    if pg is None:
        return None
    MPI = _mpi.load()
    arr, view = contiguous_array(tensor)
    mop = mpi_op(MPI, op, arr.dtype)
    check_match(pg, "all_reduce", arr.size, arr.dtype, int(op))
    comm = pg._comm

    def finish():
        if op == ReduceOp.AVG:
            divide(arr, pg.size())
        write_back(tensor, arr, view)
    return run(pg, "all_reduce", lambda: comm.Allreduce(MPI.IN_PLACE, arr, mop),
               lambda: comm.Iallreduce(MPI.IN_PLACE, arr, mop), finish, async_op, timeout, [tensor])


def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None, *, timeout=None):
    """Copy ``tensor`` of rank ``src`` into ``tensor`` on every rank of ``group``."""
    pg = resolve(group)
    if pg is None:
        return None
    root = peer(pg, src, group_src, "src")
    arr, view = contiguous_array(tensor)
    check_match(pg, "broadcast", arr.size, arr.dtype, root)
    comm = pg._comm
    return run(pg, "broadcast", lambda: comm.Bcast(arr, root), lambda: comm.Ibcast(arr, root),
               lambda: write_back(tensor, arr, view), async_op, timeout, [tensor])


def _same_kind(tensors, like, what):
    for t in tensors:
        if t.dtype != like.dtype:
            raise TypeError(f"{what}: all tensors must have the dtype {like.dtype}, got {t.dtype}")


def all_gather(tensor_list, tensor, group=None, async_op: bool = False, *, timeout=None):
    """Fill ``tensor_list[r]`` with ``tensor`` of rank r, on every rank."""
    pg = resolve(group)
    if pg is None:
        return None
    arr, _ = contiguous_array(tensor)
    n = pg.size()
    if len(tensor_list) != n:
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors, expected one per rank ({n})")
    _same_kind(tensor_list, tensor, "all_gather")
    check_match(pg, "all_gather", arr.size, arr.dtype)
    every = np.empty((n, arr.size), dtype=arr.dtype)
    comm = pg._comm

    def finish():
        for out, row in zip(tensor_list, every):
            copy_into(out, row)
    return run(pg, "all_gather", lambda: comm.Allgather(arr, every), lambda: comm.Iallgather(arr, every),
               finish, async_op, timeout, list(tensor_list))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False, *, timeout=None):
    """Concatenate every rank's ``input_tensor`` into ``output_tensor`` (``world_size`` times
    as many elements, stacked or concatenated along dim 0)."""
    pg = resolve(group)
    if pg is None:
        return None
    _same_kind([output_tensor], input_tensor, "all_gather_into_tensor")
    src, _ = contiguous_array(input_tensor, "input_tensor")
    out, view = contiguous_array(output_tensor, "output_tensor")
    if out.size != src.size * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    check_match(pg, "all_gather_into_tensor", src.size, src.dtype)
    flat = out.reshape(-1)
    comm = pg._comm
    return run(pg, "all_gather_into_tensor", lambda: comm.Allgather(src, flat), lambda: comm.Iallgather(src, flat),
               lambda: write_back(output_tensor, out, view), async_op, timeout, [output_tensor])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False, *, timeout=None):
    """Reduce ``input`` over the ranks with ``op`` and give rank r the r-th of ``world_size``
    equal pieces, in ``output``."""
    pg = resolve(group)
    if pg is None:
        return None
    MPI = _mpi.load()
    _same_kind([output], input, "reduce_scatter_tensor")
    src, _ = contiguous_array(input, "input")
    mop = mpi_op(MPI, op, src.dtype)
    out, view = contiguous_array(output, "output")
    if src.size != out.size * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    check_match(pg, "reduce_scatter_tensor", src.size, src.dtype, int(op))
    flat = out.reshape(-1)
    comm = pg._comm

    def finish():
        if op == ReduceOp.AVG:
            divide(out, pg.size())
        write_back(output, out, view)
    return run(pg, "reduce_scatter_tensor", lambda: comm.Reduce_scatter_block(src, flat, mop),
               lambda: comm.Ireduce_scatter_block(src, flat, mop), finish, async_op, timeout, [output])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False, group_dst=None, *,
           timeout=None):
    """Reduce ``tensor`` over the ranks with ``op`` into ``tensor`` of rank ``dst`` only."""
    pg = resolve(group)
    if pg is None:
        return None
    MPI = _mpi.load()
    root = peer(pg, dst, group_dst, "dst")
    arr, view = contiguous_array(tensor)
    mop = mpi_op(MPI, op, arr.dtype)
    check_match(pg, "reduce", arr.size, arr.dtype, root * 16 + int(op))
    comm = pg._comm
    if pg.rank() == root:
        send, recv = MPI.IN_PLACE, arr
    else:
        send, recv = arr, None

    def finish():
        if pg.rank() == root:
            if op == ReduceOp.AVG:
                divide(arr, pg.size())
            write_back(tensor, arr, view)
    return run(pg, "reduce", lambda: comm.Reduce(send, recv, mop, root), lambda: comm.Ireduce(send, recv, mop, root),
               finish, async_op, timeout, [tensor])


def _rooted_list(pg, root, tensors, tensor, op, arg, role):
    """Whether this rank is the root of ``op``; the list ``arg`` must be given there alone, one
    tensor per rank of ``tensor``'s kind."""
    here = pg.rank() == root
    if here and not tensors:
        raise ValueError(f"Argument ``{arg}`` must be specified on {role} rank.")
    if not here and tensors:
        raise ValueError(f"Argument ``{arg}`` must NOT be specified on non-{role} ranks.")
    if here:
        if len(tensors) != pg.size():
            raise ValueError(f"{op}: {arg} has {len(tensors)} tensors, expected {pg.size()}")
        _same_kind(tensors, tensor, op)
    return here


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False, group_dst=None, *,
           timeout=None):
    """Collect every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    pg = resolve(group)
    if pg is None:
        return None
    root = peer(pg, dst, group_dst, "dst")
    arr, _ = contiguous_array(tensor)
    here = _rooted_list(pg, root, gather_list, tensor, "gather", "gather_list", "destination")
    check_match(pg, "gather", arr.size, arr.dtype, root)
    every = np.empty((pg.size(), arr.size), dtype=arr.dtype) if here else None
    comm = pg._comm

    def finish():
        if here:
            for out, row in zip(gather_list, every):
                copy_into(out, row)
    return run(pg, "gather", lambda: comm.Gather(arr, every, root), lambda: comm.Igather(arr, every, root),
               finish, async_op, timeout, list(gather_list or []))


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False, group_src=None, *,
            timeout=None):
    """Give rank r ``scatter_list[r]`` of rank ``src``, in ``tensor``."""
    pg = resolve(group)
    if pg is None:
        return None
    root = peer(pg, src, group_src, "src")
    arr, view = contiguous_array(tensor)
    here = _rooted_list(pg, root, scatter_list, tensor, "scatter", "scatter_list", "source")
    pieces = None
    if here:
        pieces = np.empty((pg.size(), arr.size), dtype=arr.dtype)
        for row, t in zip(pieces, scatter_list):
            piece, _ = contiguous_array(t, "scatter_list entry")
            if piece.size != arr.size:
                raise ValueError(f"scatter: a scatter_list tensor has {piece.size} elements, expected {arr.size}")
            row[...] = piece.reshape(-1)
    check_match(pg, "scatter", arr.size, arr.dtype, root)
    comm = pg._comm
    return run(pg, "scatter", lambda: comm.Scatter(pieces, arr, root), lambda: comm.Iscatter(pieces, arr, root),
               lambda: write_back(tensor, arr, view), async_op, timeout, [tensor])


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """Wait until every rank of ``group`` has reached the barrier."""
    pg = resolve(group)
    if pg is None:
        return None
    comm = pg._comm
    return run(pg, "barrier", comm.Barrier, comm.Ibarrier, None, async_op, timeout)


def all_gather_object(object_list, obj, group=None):
    """Fill ``object_list[r]`` with the picklable ``obj`` of rank r."""
    pg = resolve(group)
    if pg is None:
        return None
    every = pg._comm.allgather(obj)
    if len(object_list) != len(every):
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries, expected {len(every)}")
    object_list[:] = every
    return None


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace ``object_list``'s entries by those of rank ``src`` (picklable objects)."""
    pg = resolve(group)
    if pg is None:
        return None
    root = peer(pg, src, group_src, "src")
    sent = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root)
    object_list[:] = sent
    return None
