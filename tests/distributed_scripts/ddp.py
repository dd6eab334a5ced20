"""DistributedDataParallel on N ranks checked against one process: the same parameters as a
single process on the whole batch (SGD and Adam, several buckets), a BatchNorm model against a
replica-by-replica simulation, no_sync accumulation, find_unused_parameters; rank 0 prints
"all ok on N ranks"."""
import sys

import numpy as np

import numgrad
import numgrad.distributed as dist
from numgrad import nn
from numgrad.nn.parallel import DistributedDataParallel as DDP

B = 4  # per-rank batch


def expect(cond, what):
    if not cond:
        raise AssertionError(f"rank {dist.get_rank()}: {what}")


def same(a, b, what, tol=2e-5):
    a, b = a.detach().numpy(), b.detach().numpy()
    expect(np.allclose(a, b, rtol=tol, atol=tol), f"{what}: max diff {np.abs(a - b).max()}")


def mlp(seed, batchnorm=False):
    numgrad.manual_seed(seed)
    layers = [nn.Linear(8, 16)] + ([nn.BatchNorm1d(16)] if batchnorm else []) + [nn.ReLU(), nn.Linear(16, 3)]
    return nn.Sequential(*layers)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 6)
        self.head_a = nn.Linear(6, 3)
        self.head_b = nn.Linear(6, 3)

    def forward(self, x, use_b=False):
        h = self.body(x).relu()
        return self.head_b(h) if use_b else self.head_a(h)


def data(n, steps):
    rng = np.random.default_rng(7)
    xs = [numgrad.tensor(rng.standard_normal((n * B, 8)).astype(np.float32)) for _ in range(steps)]
    ys = [numgrad.tensor(rng.integers(0, 3, n * B)) for _ in range(steps)]
    return xs, ys


def check_whole_batch(rank, n, make_opt, bucket_cap_mb, what):
    xs, ys = data(n, 3)
    ref = mlp(0)
    ddp = DDP(mlp(0 if rank == 0 else 100 + rank), bucket_cap_mb=bucket_cap_mb)  # rank 0's parameters are broadcast
    expect(len(ddp.reducer.buckets) > 1 or bucket_cap_mb is None, "several buckets")
    ref_opt, opt = make_opt(ref.parameters()), make_opt(ddp.parameters())
    loss_fn = nn.CrossEntropyLoss()
    for x, y in zip(xs, ys):
        ref_opt.zero_grad()
        loss_fn(ref(x), y).backward()
        ref_opt.step()
        opt.zero_grad()
        loss_fn(ddp(x[rank * B:(rank + 1) * B]), y[rank * B:(rank + 1) * B]).backward()
        opt.step()
    for (name, p), q in zip(ddp.module.named_parameters(), ref.parameters()):
        same(p, q, f"{what}: {name}")


def check_batchnorm(rank, n):
    xs, ys = data(n, 3)
    ref = mlp(0, batchnorm=True)
    ddp = DDP(mlp(0 if rank == 0 else 100 + rank, batchnorm=True))
    ref_opt = numgrad.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    opt = numgrad.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    bn = ref[1]
    for x, y in zip(xs, ys):
        # Each replica starts from rank 0's buffers; rank 0's updated ones carry on.
        start = [b.clone() for b in bn.buffers()]
        ref_opt.zero_grad()
        for r in reversed(range(n)):
            for b, s in zip(bn.buffers(), start):
                b.copy_(s)
            (loss_fn(ref(x[r * B:(r + 1) * B]), y[r * B:(r + 1) * B]) / n).backward()
        ref_opt.step()
        opt.zero_grad()
        loss_fn(ddp(x[rank * B:(rank + 1) * B]), y[rank * B:(rank + 1) * B]).backward()
        opt.step()
    for p, q in zip(ddp.parameters(), ref.parameters()):
        same(p, q, "batchnorm parameters")
    ddp(xs[0][:B])  # re-broadcasts rank 0's buffers first
    numgrad.manual_seed(0)
    for name, b in ddp.module[1].named_buffers():
        every = [numgrad.zeros_like(b) for _ in range(n)]
        dist.all_gather(every, b)
        expect(all(e.tolist() == every[0].tolist() for e in every) or name == "num_batches_tracked",
               f"buffer {name} after broadcast")


def check_no_sync(rank, n):
    x, y = (t[0] for t in data(n, 1))
    ref, ddp = mlp(0), DDP(mlp(0))
    loss_fn = nn.CrossEntropyLoss()
    half = B // 2
    mine = slice(rank * B, rank * B + half), slice(rank * B + half, (rank + 1) * B)
    with ddp.no_sync():
        loss_fn(ddp(x[mine[0]]), y[mine[0]]).backward()
    local = nn.Sequential(*[m for m in mlp(0)])
    loss_fn(local(x[mine[0]]), y[mine[0]]).backward()
    same(ddp.module[0].weight.grad, local[0].weight.grad, "no_sync keeps the local gradient")
    loss_fn(ddp(x[mine[1]]), y[mine[1]]).backward()
    for r in range(n):
        for part in (slice(r * B, r * B + half), slice(r * B + half, (r + 1) * B)):
            (loss_fn(ref(x[part]), y[part]) / n).backward()
    for p, q in zip(ddp.parameters(), ref.parameters()):
        same(p.grad, q.grad, "gradients accumulated under no_sync then averaged")


def check_unused(rank, n):
    x, y = (t[0] for t in data(n, 1))
    loss_fn = nn.CrossEntropyLoss()
    numgrad.manual_seed(0)
    ddp = DDP(TwoHeads(), find_unused_parameters=True)
    numgrad.manual_seed(0)
    ref = TwoHeads()
    mine = slice(rank * B, (rank + 1) * B)
    # Only rank 0 uses head_b: every rank gets its gradient averaged; head_a is used by the others.
    loss_fn(ddp(x[mine], use_b=rank == 0), y[mine]).backward()
    for r in range(n):
        part = slice(r * B, (r + 1) * B)
        (loss_fn(ref(x[part], use_b=r == 0), y[part]) / n).backward()
    for (name, p), q in zip(ddp.module.named_parameters(), ref.parameters()):
        if q.grad is None:
            expect(p.grad is None, f"{name} unused everywhere keeps no gradient")
        else:
            same(p.grad, q.grad, f"find_unused_parameters: {name}")
    # A second iteration works, and a head unused on every rank keeps its gradient None.
    ddp.zero_grad()
    loss_fn(ddp(x[mine]), y[mine]).backward()
    expect(ddp.module.head_b.weight.grad is None, "globally unused head has no gradient")

    numgrad.manual_seed(0)
    strict = DDP(TwoHeads())
    loss_fn(strict(x[mine]), y[mine]).backward()
    try:
        strict(x[mine])
    except RuntimeError as exc:
        expect("find_unused_parameters=True" in str(exc), str(exc))
    else:
        expect(False, "an unused parameter without find_unused_parameters raises")


def main():
    try:
        dist.init_process_group("mpi", world_size=99)
    except ValueError as exc:
        expect("mpiexec -n 99" in str(exc), str(exc))
    else:
        expect(False, "a wrong world_size raises")
    dist.init_process_group()
    rank, n = dist.get_rank(), dist.get_world_size()
    try:
        DDP(nn.Linear(2 + rank, 2))
    except RuntimeError as exc:
        expect("same model on every rank" in str(exc), str(exc))
    else:
        expect(n == 1, "different models on the ranks raise")
    ddp = DDP(mlp(rank))
    expect(sorted(ddp.state_dict()) == sorted("module." + k for k in mlp(0).state_dict()), "state_dict keys")
    check_whole_batch(rank, n, lambda ps: numgrad.optim.SGD(ps, lr=0.1, momentum=0.9), None, "SGD")
    check_whole_batch(rank, n, lambda ps: numgrad.optim.Adam(ps, lr=0.01), 0.0001, "Adam, small buckets")
    check_batchnorm(rank, n)
    check_no_sync(rank, n)
    check_unused(rank, n)

    from numgrad.utils.data.distributed import DistributedSampler
    sampler = DistributedSampler(range(11), seed=3)
    sampler.set_epoch(2)
    every = [None] * n
    dist.all_gather_object(every, list(sampler))
    expect(sorted(sum(every, [])[:11]) != [] and len(set(sum(every, []))) == 11, "the ranks cover the dataset")
    dist.barrier()
    if rank == 0:
        print(f"all ok on {n} ranks", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
