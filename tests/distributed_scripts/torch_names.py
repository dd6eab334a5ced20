"""A PyTorch-style data-parallel script run under numgrad.compat by the launcher: checks the
environment the launcher sets, then exits with argv[1] on rank 1 (0 elsewhere)."""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="gloo")  # PyTorch's CPU backend, served by MPI
rank = dist.get_rank()
assert rank == int(os.environ["RANK"]) == int(os.environ["LOCAL_RANK"]), os.environ.get("RANK")
assert dist.get_world_size() == int(os.environ["WORLD_SIZE"])
assert type(torch.ones(1)).__module__.startswith("numgrad")
t = torch.ones(3) * (rank + 1)
dist.all_reduce(t, op=dist.ReduceOp.SUM)
model = DDP(torch.nn.Linear(4, 2))
model(torch.ones(2, 4)).sum().backward()
for turn in range(dist.get_world_size()):
    # One line per rank, in rank order, each in one write: the ranks share the launcher's stdout.
    if turn == rank:
        sys.stdout.write(f"torch names {rank} {t.tolist()}\n")
        sys.stdout.flush()
    dist.barrier()
dist.destroy_process_group()
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 and rank == 1 else 0)
