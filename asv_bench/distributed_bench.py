"""numgrad.distributed timings, run by hand under MPI:

    mpiexec -n 2 python asv_bench/distributed_bench.py allreduce   # numgrad all_reduce / raw mpi4py
    python asv_bench/distributed_bench.py ddp                     # DDP MLP step: 2 ranks / 1 rank

``allreduce`` times float32 allreduces of 1 KB to 64 MB through numgrad.distributed.all_reduce
and through mpi4py's Allreduce on a NumPy array (with and without the size check that
NUMGRAD_DISTRIBUTED_DEBUG=DETAIL turns on); ``ddp`` times a training step of the 784-256-10 MLP
(batch 64 per rank) on 1 rank without DDP, on 2 ranks with it, and on 2 ranks without DDP but
with one mpi4py Allreduce of all the gradients' size per step (what any synchronous data-parallel
step pays). Rank 0 prints medians.
"""
import os
import subprocess
import sys
import time

import numpy as np

SIZES = [2 ** k for k in range(10, 27, 2)]  # bytes: 1 KB .. 64 MB


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def allreduce():
    from mpi4py import MPI

    import numgrad
    import numgrad.distributed as dist
    dist.init_process_group()
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if rank == 0:
        print(f"{'bytes':>10} {'mpi4py us':>11} {'numgrad us':>11} {'ratio':>6} {'checked':>8}")
    for nbytes in SIZES:
        n = nbytes // 4
        arr = np.ones(n, dtype=np.float32)
        t = numgrad.ones(n)
        repeat = max(5, min(200, 2 ** 24 // nbytes))
        results = []
        for fn in (lambda: comm.Allreduce(MPI.IN_PLACE, arr, MPI.SUM), lambda: dist.all_reduce(t)):
            fn()
            comm.Barrier()
            results.append(_median_time(fn, repeat))
        os.environ["NUMGRAD_DISTRIBUTED_DEBUG"] = "DETAIL"
        comm.Barrier()
        checked = _median_time(lambda: dist.all_reduce(t), repeat)
        del os.environ["NUMGRAD_DISTRIBUTED_DEBUG"]
        if rank == 0:
            raw, ours = results
            print(f"{nbytes:>10} {raw * 1e6:>11.1f} {ours * 1e6:>11.1f} {ours / raw:>6.2f} {checked / raw:>8.2f}")
    dist.destroy_process_group()


def ddp_step(mode):
    from mpi4py import MPI

    import numgrad
    import numgrad.distributed as dist
    from numgrad import nn
    numgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    if mode == "ddp":
        dist.init_process_group()
        model = nn.parallel.DistributedDataParallel(model)
    flat = np.zeros(sum(p.numel() for p in model.parameters()), dtype=np.float32)
    rng = np.random.default_rng(0)
    x = numgrad.tensor(rng.standard_normal((64, 784)).astype(np.float32))
    y = numgrad.tensor(rng.integers(0, 10, 64))
    opt = numgrad.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        if mode == "raw":
            MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, flat, MPI.SUM)
    for _ in range(5):
        step()
    best = min(_median_time(step, 50) for _ in range(3))
    if mode != "ddp" or dist.get_rank() == 0:
        print(f"step {best * 1e3:.3f} ms", flush=True)


def ddp():
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    one = subprocess.run([sys.executable, __file__, "step", "plain"], env=env, capture_output=True, text=True)
    two, raw = (subprocess.run([mpiexec, "-n", "2", sys.executable, __file__, "step", mode], env=env,
                               capture_output=True, text=True) for mode in ("ddp", "raw"))
    t1, t2, tr = (float(r.stdout.split()[1]) for r in (one, two, raw))
    print(f"MLP step, batch 64 per rank: 1 rank {t1:.3f} ms; 2 ranks with DDP {t2:.3f} ms (ratio {t2 / t1:.2f}); "
          f"2 ranks, plain step + raw mpi4py Allreduce {tr:.3f} ms (ratio {tr / t1:.2f})")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "allreduce"
    if mode == "allreduce":
        allreduce()
    elif mode == "ddp":
        ddp()
    else:
        ddp_step(sys.argv[2])
