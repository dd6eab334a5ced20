"""Samplers, as ``torch.utils.data``: the orders in which a DataLoader reads a dataset's indices,
and BatchSampler, which groups them into batches."""
from __future__ import annotations

from ... import dtypes

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Sampler:
    """Sampler(data_source=None)

    Base class: subclasses define ``__iter__`` over dataset indices (and ``__len__`` when known)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """SequentialSampler(data_source): indices 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator(generator):
    """``generator``, or when None a new one seeded from the default generator: each pass
    draws a new order, and ``numgrad.manual_seed`` makes the sequence of orders reproducible."""
    from ...random import Generator
    from ...creation import empty
    if generator is not None:
        return generator
    seed = int(empty((), dtype=dtypes.int64).random_().item())
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """RandomSampler(data_source, replacement=False, num_samples=None, generator=None)

    A random permutation of the indices (a new one each pass), or with ``replacement=True``
    ``num_samples`` indices drawn independently."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from ...random import randint, randperm
        n = len(self.data_source)
        gen = _fresh_generator(self.generator)
        if self.replacement:
            # Drawn lazily, 32 at a time as PyTorch draws them: num_samples may be far larger
            # than memory, and a given generator advances exactly as PyTorch's does.
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=gen).tolist()
            yield from randint(0, n, (self.num_samples % 32,), generator=gen).tolist()
            return
        # Whole permutations, then part of one more (drawn even when no part of it is used, as
        # PyTorch draws it: a given generator is left where PyTorch leaves it).
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=gen).tolist()
        yield from randperm(n, generator=gen).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """SubsetRandomSampler(indices, generator=None): the given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        from ...random import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """WeightedRandomSampler(weights, num_samples, replacement=True, generator=None)

    ``num_samples`` indices in [0, len(weights)), index ``i`` drawn with probability
    proportional to ``weights[i]`` (without replacement: successively, among those not drawn)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        from ...creation import as_tensor
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = as_tensor(weights, dtype=dtypes.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        if not replacement and num_samples > int((w > 0).sum()):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from ...random import multinomial
        yield from multinomial(self.weights, self.num_samples, self.replacement,
                               generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """BatchSampler(sampler, batch_size, drop_last)

    Lists of ``batch_size`` indices from ``sampler``; the last, shorter one is dropped when
    ``drop_last``."""

    def __init__(self, sampler, batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
