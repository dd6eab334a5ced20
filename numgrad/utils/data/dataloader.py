"""DataLoader: batches of a dataset in sampler order, collated, as ``torch.utils.data.DataLoader``.

With ``num_workers=0`` loading runs in the calling process; otherwise in that many worker
processes (``worker.py``), whose batches come back in sampler order.
"""
from __future__ import annotations

from ... import dtypes
from ...creation import empty
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .multiprocess import MultiProcessIter
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler
from .worker import get_worker_info

__all__ = ["DataLoader", "get_worker_info"]


class _StreamSampler(Sampler):
    """Stands in for an IterableDataset's sampler: yields None forever."""

    def __iter__(self):
        while True:
            yield None


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader:
    """DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
    worker_init_fn=None, multiprocessing_context=None, generator=None, *, prefetch_factor=None,
    persistent_workers=False, pin_memory_device='', in_order=True)

    Iterates over ``dataset`` in batches of ``batch_size`` samples collated by ``collate_fn``
    (:func:`default_collate`: tensors stacked, numbers turned into tensors). ``shuffle=True``
    draws a new random order each epoch from ``generator`` (or the default generator, so
    ``numgrad.manual_seed`` makes it reproducible). ``batch_size=None`` yields single samples,
    converted by :func:`default_convert`. ``num_workers > 0`` loads in that many processes,
    each seeded with the loader's base seed plus its id (see :func:`get_worker_info`); tensors
    come back through shared memory and batches keep the sampler's order (``in_order``);
    ``persistent_workers`` keeps the processes from one epoch to the next."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn=None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} "
                                     f"option, but got {name}={value}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")
        if sampler is None:
            if iterable:
                sampler = _StreamSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name, value):
        if name in _FROZEN and self.__dict__.get("_initialized"):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is "
                             "initialized")
        object.__setattr__(self, name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _LoaderIter(self)
        if not self.persistent_workers:
            return MultiProcessIter(self, draw_seed, fetch)
        if self._iterator is None:
            self._iterator = MultiProcessIter(self, draw_seed, fetch)
        else:
            self._iterator.reset()
        return self._iterator

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)


def draw_seed(generator) -> int:
    """The base seed of one pass, drawn as PyTorch draws it, so that every later number
    (shuffles included) stays the same as PyTorch's after a manual_seed."""
    return int(empty((), dtype=dtypes.int64).random_(generator=generator).item())


def fetch(dataset, stream, index, auto_collation: bool, drop_last: bool):
    """The samples of ``index`` (one index or a batch of them): read from a map-style dataset,
    or the next ones of an iterable dataset's ``stream``."""
    if stream is not None:
        if not auto_collation:
            return next(stream)
        batch = []
        for _ in index:
            try:
                batch.append(next(stream))
            except StopIteration:
                break
        if not batch or (drop_last and len(batch) < len(index)):
            raise StopIteration
        return batch
    if not auto_collation:
        return dataset[index]
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems):
        return getitems(index)
    return [dataset[i] for i in index]


class _LoaderIter:
    """One pass over a DataLoader in this process: reads the samples of each index (or batch of
    indices) from the dataset and collates them."""

    def __init__(self, loader: DataLoader):
        self._loader = loader
        self._collate = loader.collate_fn
        self._indices = iter(loader._index_sampler)
        draw_seed(loader.generator)
        self._stream = iter(loader.dataset) if isinstance(loader.dataset, IterableDataset) else None

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        index = next(self._indices)
        loader = self._loader
        return self._collate(fetch(loader.dataset, self._stream, index, loader._auto_collation, loader.drop_last))
