"""Train the tutorial MLP (784-256-10) data-parallel: every process trains a replica on its own
share of a synthetic 10-class set (a DistributedSampler picks it), and DistributedDataParallel
averages the gradients over the processes during backward. Rank 0 prints the loss.

Run: python -m numgrad.distributed.run --nproc-per-node 2 examples/ddp_train.py [--epochs 3]
 or: mpiexec -n 2 python examples/ddp_train.py
"""
import argparse

import numgrad as ng
import numgrad.distributed as dist
from numgrad import nn, optim
from numgrad.nn.parallel import DistributedDataParallel
from numgrad.utils.data import DataLoader, TensorDataset
from numgrad.utils.data.distributed import DistributedSampler


def make_data(samples, dim=784, classes=10):
    """Noisy copies of ``classes`` random prototypes: the same set on every rank (seeded)."""
    g = ng.Generator().manual_seed(1234)
    prototypes = ng.randn(classes, dim, generator=g)
    labels = ng.randint(0, classes, (samples,), generator=g)
    return TensorDataset(prototypes[labels] + 12.0 * ng.randn(samples, dim, generator=g), labels)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--batch-size", type=int, default=64, help="per process")
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args(argv)

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    ng.manual_seed(0)
    model = DistributedDataParallel(nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)))
    opt = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    data = make_data(args.samples)
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = ng.zeros(2, dtype=ng.float64)  # loss sum, sample count
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total += ng.tensor([loss.item() * len(y), len(y)], dtype=ng.float64)
        dist.all_reduce(total)
        if rank == 0:
            print(f"epoch {epoch + 1}/{args.epochs}: loss {total[0].item() / total[1].item():.4f} "
                  f"({world} processes, {int(total[1].item())} samples)", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
