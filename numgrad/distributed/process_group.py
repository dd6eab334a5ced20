"""Process groups: the default group over all MPI processes, sub-groups from ``new_group``,
and the queries on them (rank, size, backend)."""
from __future__ import annotations

import datetime

from . import _mpi

__all__ = ["Backend", "ProcessGroup", "GroupMember", "group", "init_process_group", "destroy_process_group",
           "is_initialized", "new_group", "get_rank", "get_world_size", "get_backend", "get_global_rank",
           "get_group_rank", "get_process_group_ranks"]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class Backend(str):
    """Backend(name): a backend's name as a lower-case string; numgrad has one, ``Backend.MPI``."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())


class ProcessGroup:
    """A set of processes that run collectives together, on its own MPI communicator."""

    def __init__(self, comm, ranks, timeout=None):
        self._comm = comm
        self._ranks = list(ranks)
        self._timeout = timeout

    def rank(self) -> int:
        """This process's rank within the group."""
        return self._comm.Get_rank()

    def size(self) -> int:
        """The number of processes in the group."""
        return len(self._ranks)

    def name(self) -> str:
        return Backend.MPI

    def __repr__(self):
        return f"ProcessGroup(backend='mpi', ranks={self._ranks})"


class _World:
    default = None
    groups = []


class GroupMember:
    """``GroupMember.WORLD`` (also ``group.WORLD``): the default group, None before
    init_process_group; ``NON_GROUP_MEMBER`` stands for a group this process is not in."""

    NON_GROUP_MEMBER = -100

    class _WorldProperty:
        def __get__(self, obj, owner=None):
            return _World.default

    WORLD = _WorldProperty()


group = GroupMember


def _seconds(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _refuse_backend(backend):
    if backend is None:
        return
    # Gloo is PyTorch's CPU backend: its collectives mean the same on MPI, so CPU programs
    # written for it run as they are.
    names = [part.split(":")[-1].strip().lower() for part in str(backend).split(",")]
    if any(name not in ("mpi", "gloo", "undefined") for name in names):
        raise ValueError(
            f"backend '{backend}' is not available: numgrad.distributed runs on MPI, for CPU tensors. Use "
            f"backend='mpi' or 'gloo' (or leave it unset) and start the processes with mpiexec -n N or "
            f"python -m numgrad.distributed.run --nproc-per-node N")


def init_process_group(backend=None, init_method=None, timeout=None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the default process group: every process the MPI launcher started.

    The rank and world size come from the launcher; ``world_size`` and ``rank`` given here must
    agree with them. ``timeout`` (a timedelta or seconds) bounds every collective of the group."""
    _refuse_backend(backend)
    if _World.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    MPI = _mpi.load()
    world = MPI.COMM_WORLD
    size, me = world.Get_size(), world.Get_rank()
    if world_size not in (-1, None) and int(world_size) != size:
        raise ValueError(f"world_size={world_size} does not match the {size} process(es) started by the MPI "
                         f"launcher: start them with mpiexec -n {world_size} (or leave world_size unset)")
    if rank not in (-1, None) and int(rank) != me:
        raise ValueError(f"rank={rank} does not match this process's MPI rank {me}: the MPI launcher assigns "
                         f"ranks (leave rank unset)")
    _World.default = ProcessGroup(world.Dup(), range(size), _seconds(timeout))


def is_initialized() -> bool:
    """Whether init_process_group has been called (and the group not destroyed)."""
    return _World.default is not None


def default_group() -> ProcessGroup:
    if _World.default is None:
        raise ValueError(_NOT_INITIALIZED)
    return _World.default


def resolve(pg):
    """The ProcessGroup a collective runs on, or None when this process is not a member."""
    if pg is None or pg is GroupMember.WORLD:
        return default_group()
    default_group()
    if isinstance(pg, int) and pg == GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(pg, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup returned by new_group, not {type(pg).__name__}")
    return pg


def destroy_process_group(group=None) -> None:
    """Free ``group``'s communicator; with no argument, every group and the default one."""
    if group is None or group is _World.default:
        if _World.default is None:
            raise ValueError(_NOT_INITIALIZED)
        for pg in _World.groups + [_World.default]:
            pg._comm.Free()
        _World.groups, _World.default = [], None
    elif isinstance(group, ProcessGroup):
        if group in _World.groups:
            _World.groups.remove(group)
            group._comm.Free()
    elif group != GroupMember.NON_GROUP_MEMBER:
        raise TypeError(f"group must be a ProcessGroup, not {type(group).__name__}")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization: bool = False,
              group_desc=None, device_id=None, sort_ranks: bool = True):
    """A group of the processes with global ranks ``ranks`` (all when None), on its own MPI
    communicator. Every process of the default group must call it, members or not; a
    non-member gets ``GroupMember.NON_GROUP_MEMBER``."""
    _refuse_backend(backend)
    world = default_group()
    MPI = _mpi.load()
    size = world.size()
    members = list(range(size)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        members = sorted(members)
    if len(set(members)) != len(members):
        raise ValueError(f"ranks given to new_group contain duplicates: {members}")
    for r in members:
        if not 0 <= r < size:
            raise ValueError(f"The new group's rank should be within the world_size set by init_process_group, "
                             f"got rank {r} for world size {size}")
    me = world.rank()
    inside = me in members
    comm = world._comm.Split(0 if inside else MPI.UNDEFINED, members.index(me) if inside else 0)
    if not inside:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, members, world._timeout if timeout is None else _seconds(timeout))
    _World.groups.append(pg)
    return pg


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (the default group when None); -1 for a non-member."""
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    """The number of processes in ``group``; -1 for a non-member."""
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> Backend:
    """The backend of ``group``: always ``Backend.MPI``."""
    if resolve(group) is None:
        raise ValueError("Invalid process group specified")
    return Backend(Backend.MPI)


def get_process_group_ranks(group) -> list:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = resolve(group)
    if pg is None:
        raise ValueError("Group is not registered, please create group with torch.distributed.new_group API")
    return list(pg._ranks)


def get_global_rank(group, group_rank: int) -> int:
    """The global rank of the member at ``group_rank`` in ``group``."""
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {ranks}")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    """The rank within ``group`` of the process with global rank ``global_rank``."""
    ranks = get_process_group_ranks(group)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {ranks}")
    return ranks.index(global_rank)


def peer(pg, rank, group_rank, what: str) -> int:
    """The group rank of a collective's root or peer, given as a global rank or a group rank."""
    if rank is None and group_rank is None:
        raise ValueError(f"Either {what} or group_{what} must be specified")
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can only specify one of {what} or group_{what}")
    if group_rank is not None:
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"group_{what} {group_rank} is out of range for a group of size {pg.size()}")
        return int(group_rank)
    if rank not in pg._ranks:
        raise ValueError(f"Global rank {rank} is not part of group {pg._ranks}")
    return pg._ranks.index(rank)
