"""DistributedSampler: each process of a data-parallel job reads its own share of a dataset."""
from __future__ import annotations

import math

from ... import distributed
from ...random import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False)

    Gives replica ``rank`` of ``num_replicas`` (the default process group's rank and size when
    None) every ``num_replicas``-th index of one order of the dataset, from position ``rank``:
    a permutation drawn from a generator seeded with ``seed + epoch`` when ``shuffle``, else
    0, 1, ...; the order is padded with its own first indices to a multiple of
    ``num_replicas``, or cut to one when ``drop_last``. Call ``set_epoch`` before each epoch
    for a new order."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False):
        if num_replicas is None or rank is None:
            if not distributed.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = seed
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            order = randperm(n, generator=g).tolist()
        else:
            order = list(range(n))
        if self.drop_last:
            order = order[:self.total_size]
        else:
            missing = self.total_size - n
            order += (order * math.ceil(missing / n))[:missing] if missing and n else []
        return iter(order[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use the order of ``epoch``: every replica must be given the same epoch."""
        self.epoch = epoch
