"""numgrad.distributed: process groups and collectives over MPI, as ``torch.distributed``.

Start the processes with ``mpiexec -n N python script.py`` or
``python -m numgrad.distributed.run --nproc-per-node N script.py``; each calls
:func:`init_process_group`. mpi4py is imported on first use only."""
from ._mpi import mpi_available as _mpi_available
from .collectives import (all_gather, all_gather_into_tensor, all_gather_object, all_reduce, barrier, broadcast,
                          broadcast_object_list, gather, reduce, reduce_scatter_tensor, scatter)
from .p2p import irecv, isend, recv, send
from .process_group import (Backend, GroupMember, ProcessGroup, destroy_process_group, get_backend,
                            get_global_rank, get_group_rank, get_process_group_ranks, get_rank, get_world_size,
                            group, init_process_group, is_initialized, new_group)
from .reduce_op import ReduceOp
from .work import Work

__all__ = ["is_available", "is_mpi_available", "is_gloo_available", "is_nccl_available", "init_process_group",
           "destroy_process_group", "is_initialized", "new_group", "get_rank", "get_world_size", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "Backend", "ProcessGroup",
           "GroupMember", "group", "ReduceOp", "Work", "all_reduce", "broadcast", "all_gather",
           "all_gather_into_tensor", "reduce_scatter_tensor", "reduce", "gather", "scatter", "barrier",
           "all_gather_object", "broadcast_object_list", "send", "recv", "isend", "irecv"]


def is_available() -> bool:
    """Whether numgrad.distributed can run: mpi4py is installed."""
    return _mpi_available()


def is_mpi_available() -> bool:
    """Whether the MPI backend is available (mpi4py is installed)."""
    return _mpi_available()


def is_gloo_available() -> bool:
    """False: numgrad.distributed runs on MPI only."""
    return False


def is_nccl_available() -> bool:
    """False: numgrad.distributed runs on MPI only."""
    return False
