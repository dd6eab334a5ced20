"""Point-to-point transfers of numgrad CPU tensors between two ranks."""
from __future__ import annotations

from . import _mpi
from .buffers import contiguous_array, write_back
from .process_group import peer, resolve
from .work import Work

__all__ = ["send", "recv", "isend", "irecv"]


def _destination(pg, dst, group_dst):
    to = peer(pg, dst, group_dst, "dst")
    if to == pg.rank():
        raise ValueError("Invalid destination rank: should not be the same as the rank of the current process.")
    return to


def _source(pg, src, group_src):
    if src is None and group_src is None:
        return _mpi.load().ANY_SOURCE
    return peer(pg, src, group_src, "src")


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Send ``tensor`` to rank ``dst``, blocking until it may be reused."""
    pg = resolve(group)
    if pg is None:
        return None
    arr, _ = contiguous_array(tensor)
    pg._comm.Send(arr, _destination(pg, dst, group_dst), tag)
    return None


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    pg = resolve(group)
    if pg is None:
        return -1
    MPI = _mpi.load()
    arr, view = contiguous_array(tensor)
    status = MPI.Status()
    pg._comm.Recv(arr, _source(pg, src, group_src), tag, status)
    write_back(tensor, arr, view)
    return pg._ranks[status.Get_source()]


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; do not modify it before the Work completes."""
    pg = resolve(group)
    if pg is None:
        return None
    arr, _ = contiguous_array(tensor)
    request = pg._comm.Isend(arr, _destination(pg, dst, group_dst), tag)
    work = Work(_mpi.load(), [request], None, pg._timeout, "isend", [tensor])
    work._staged = arr  # MPI reads it until the transfer is done
    return work


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None)."""
    pg = resolve(group)
    if pg is None:
        return None
    arr, view = contiguous_array(tensor)
    request = pg._comm.Irecv(arr, _source(pg, src, group_src), tag)
    return Work(_mpi.load(), [request], lambda: write_back(tensor, arr, view), pg._timeout, "irecv", [tensor],
                source=lambda r: pg._ranks[r])
