"""Every collective, ReduceOp, async handle, new_group and point-to-point call, checked on each
rank against the values NumPy computes; rank 0 prints "all ok on N ranks" at the end."""
import os
import sys

import numpy as np

import numgrad
import numgrad.distributed as dist


def expect(cond, what):
    if not cond:
        raise AssertionError(f"rank {dist.get_rank()}: {what}")


def close(t, values, what):
    expect(np.allclose(t.numpy(), values), f"{what}: {t.numpy()} != {values}")


def main():
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    expect(dist.is_initialized() and dist.get_backend() == "mpi", "initialised with the mpi backend")
    base = np.arange(6, dtype=np.float64).reshape(2, 3)
    mine = base + rank  # rank r holds base + r
    every = np.stack([base + r for r in range(n)])
    reductions = {dist.ReduceOp.SUM: every.sum(0), dist.ReduceOp.AVG: every.mean(0),
                  dist.ReduceOp.PRODUCT: every.prod(0), dist.ReduceOp.MIN: every.min(0),
                  dist.ReduceOp.MAX: every.max(0)}
    for dtype in (numgrad.float32, numgrad.float64):
        for op, want in reductions.items():
            t = numgrad.tensor(mine, dtype=dtype)
            version = t._version
            dist.all_reduce(t, op=op)
            close(t, want, f"all_reduce {op!r} {dtype}")
            expect(t._version > version, "all_reduce bumps the version")
    ints = numgrad.tensor([rank, 1, 2 * rank])
    dist.all_reduce(ints)
    expect(ints.tolist() == [sum(range(n)), n, 2 * sum(range(n))], "integer all_reduce")
    flags = numgrad.tensor([rank == 0, True, False])
    dist.all_reduce(flags)
    expect(flags.tolist() == [True, True, False], "boolean SUM is a logical or")
    flags = numgrad.tensor([rank == 0, True, False])
    dist.all_reduce(flags, op=dist.ReduceOp.MIN)
    expect(flags.tolist() == [n == 1, True, False], "boolean MIN is a logical and")
    # A non-contiguous tensor is reduced through a copy written back into its view.
    holder = numgrad.tensor(np.tile(mine, (1, 2)))
    strided = holder[:, ::2]
    expect(not strided.is_contiguous(), "the view is non-contiguous")
    dist.all_reduce(strided)
    close(holder[:, ::2], np.tile(every.sum(0), (1, 2))[:, ::2], "non-contiguous all_reduce")
    close(holder[:, 1::2], np.tile(mine, (1, 2))[:, 1::2], "untouched columns")
    empty = numgrad.zeros(0, 3)
    dist.all_reduce(empty)
    expect(empty.shape == (0, 3), "0-size all_reduce")

    # async handles
    t = numgrad.tensor(mine)
    work = dist.all_reduce(t, async_op=True)
    expect(work.wait() and work.is_completed(), "async all_reduce completes")
    close(t, every.sum(0), "async all_reduce")
    t = numgrad.tensor(mine)
    dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True).wait(timeout=30)
    close(t, every.mean(0), "async AVG with timeout")

    for root in (0, n - 1):
        t = numgrad.tensor(mine)
        dist.broadcast(t, src=root)
        close(t, base + root, f"broadcast from {root}")
        t = numgrad.tensor(mine)
        dist.broadcast(t, src=root, async_op=True).wait()
        close(t, base + root, "async broadcast")

        t = numgrad.tensor(mine)
        dist.reduce(t, dst=root, op=dist.ReduceOp.MAX)
        if rank == root:
            close(t, every.max(0), "reduce MAX at dst")

        outs = [numgrad.zeros(2, 3, dtype=numgrad.float64) for _ in range(n)] if rank == root else None
        dist.gather(numgrad.tensor(mine), outs, dst=root)
        if rank == root:
            for r, o in enumerate(outs):
                close(o, base + r, "gather")

        t = numgrad.zeros(2, 3, dtype=numgrad.float64)
        pieces = [numgrad.tensor(base * 10 + r) for r in range(n)] if rank == root else None
        dist.scatter(t, pieces, src=root)
        close(t, base * 10 + rank, "scatter")

    outs = [numgrad.empty(2, 3, dtype=numgrad.float64) for _ in range(n)]
    dist.all_gather(outs, numgrad.tensor(mine))
    for r, o in enumerate(outs):
        close(o, base + r, "all_gather")
    outs = [numgrad.empty(2, 3, dtype=numgrad.float64) for _ in range(n)]
    dist.all_gather(outs, numgrad.tensor(mine), async_op=True).wait()
    close(outs[-1], base + n - 1, "async all_gather")

    out = numgrad.empty(2 * n, 3, dtype=numgrad.float64)
    dist.all_gather_into_tensor(out, numgrad.tensor(mine))
    close(out, every.reshape(2 * n, 3), "all_gather_into_tensor")
    stacked = numgrad.empty(n, 2, 3, dtype=numgrad.float64)
    dist.all_gather_into_tensor(stacked, numgrad.tensor(mine))
    close(stacked, every, "all_gather_into_tensor stacked")

    big = np.arange(4 * n, dtype=np.float32) * (rank + 1)
    out = numgrad.empty(4, dtype=numgrad.float32)
    dist.reduce_scatter_tensor(out, numgrad.tensor(big))
    total = np.arange(4 * n, dtype=np.float32) * sum(r + 1 for r in range(n))
    close(out, total[4 * rank:4 * rank + 4], "reduce_scatter_tensor")
    dist.reduce_scatter_tensor(out, numgrad.tensor(big), op=dist.ReduceOp.AVG, async_op=True).wait()
    close(out, total[4 * rank:4 * rank + 4] / n, "async reduce_scatter_tensor AVG")

    objects = [None] * n
    dist.all_gather_object(objects, {"rank": rank})
    expect(objects == [{"rank": r} for r in range(n)], "all_gather_object")
    payload = [rank, "x"]
    dist.broadcast_object_list(payload, src=n - 1)
    expect(payload == [n - 1, "x"], "broadcast_object_list")

    # point to point around a ring
    right, left = (rank + 1) % n, (rank - 1) % n
    got = numgrad.zeros(2, 3, dtype=numgrad.float64)
    if rank % 2 == 0:
        dist.send(numgrad.tensor(mine), dst=right)
        sender = dist.recv(got, src=left)
    else:
        sender = dist.recv(got)
        dist.send(numgrad.tensor(mine), dst=right)
    expect(sender == left, "recv returns the sender")
    close(got, base + left, "send/recv")
    got = numgrad.zeros(2, 3, dtype=numgrad.float64)
    requests = [dist.irecv(got, src=left), dist.isend(numgrad.tensor(mine), dst=right)]
    for w in requests:
        w.wait()
    close(got, base + left, "isend/irecv")
    expect(requests[0].source_rank() == left, "irecv source")

    # a sub-group of the even ranks, on its own communicator
    evens = list(range(0, n, 2))
    sub = dist.new_group(evens)
    t = numgrad.tensor(mine)
    dist.all_reduce(t, group=sub)
    if rank in evens:
        close(t, sum(base + r for r in evens), "all_reduce over a sub-group")
        expect(dist.get_rank(sub) == evens.index(rank) and dist.get_world_size(sub) == len(evens),
               "sub-group rank and size")
        expect(dist.get_process_group_ranks(sub) == evens, "sub-group ranks")
        t = numgrad.tensor(mine)
        dist.broadcast(t, src=evens[-1], group=sub)
        close(t, base + evens[-1], "broadcast in a sub-group from a global rank")
    else:
        expect(sub == dist.GroupMember.NON_GROUP_MEMBER, "non-members get NON_GROUP_MEMBER")
        close(t, mine, "a non-member's tensor is untouched")
        expect(dist.get_rank(sub) == -1, "non-member rank")
    expect(dist.group.WORLD is not None and dist.get_world_size(dist.group.WORLD) == n, "group.WORLD")

    dist.barrier()
    dist.barrier(async_op=True).wait()

    # mismatched sizes raise on every rank instead of hanging
    os.environ["NUMGRAD_DISTRIBUTED_DEBUG"] = "DETAIL"
    try:
        dist.all_reduce(numgrad.ones(3 + rank))
    except RuntimeError as exc:
        expect("do not match" in str(exc), f"mismatch message: {exc}")
    else:
        expect(n == 1, "mismatched sizes raise")
    del os.environ["NUMGRAD_DISTRIBUTED_DEBUG"]
    # a rank missing from a collective: the timeout bounds the wait (on a group of its own, as
    # the abandoned reduction stays pending)
    lonely = dist.new_group(list(range(n)))
    if rank == 0:
        try:
            dist.all_reduce(numgrad.ones(3), group=lonely, timeout=0.5)
        except RuntimeError as exc:
            expect("timed out" in str(exc), f"timeout message: {exc}")
        else:
            expect(n == 1, "a missing rank times out")
    dist.barrier()
    if rank == 0:
        print(f"all ok on {n} ranks", flush=True)
    dist.destroy_process_group()
    expect(not dist.is_initialized(), "destroyed")


if __name__ == "__main__":
    sys.exit(main())
