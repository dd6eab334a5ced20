"""A caching allocator's bookkeeping: size classes, bins of freed blocks, and memory statistics.

Plain Python over two callables (allocate raw bytes, release them), so it is testable without a
GPU; ``memory.py`` plugs it into Numba's allocation path.
"""
from __future__ import annotations

import collections
import threading

_MIN_BLOCK = 512
_LARGE = 1 << 20


def round_size(nbytes: int) -> int:
    """The size class of a request: multiples of 512 B up to 1 MiB, powers of two above."""
    if nbytes <= _LARGE:
        return max(_MIN_BLOCK, (nbytes + _MIN_BLOCK - 1) // _MIN_BLOCK * _MIN_BLOCK)
    return 1 << (nbytes - 1).bit_length()


class Block:
    """One raw allocation of ``size`` bytes; ``handle`` is whatever the raw allocator returned."""

    __slots__ = ("handle", "size")

    def __init__(self, handle, size: int):
        self.handle = handle
        self.size = size


class CachingPool:
    """Hands out blocks, keeping freed ones in per-size bins for reuse instead of releasing them.

    ``raw_alloc(nbytes) -> handle`` and ``raw_free(handle)`` talk to the device. ``free`` may be
    called from finalizers (any thread, even in the middle of ``malloc``): it only queues the
    block, and every other method files queued blocks first, under the lock.
    """

    def __init__(self, raw_alloc, raw_free):
        self._raw_alloc = raw_alloc
        self._raw_free = raw_free
        self._lock = threading.Lock()
        self._bins: dict = collections.defaultdict(list)
        self._returned: collections.deque = collections.deque()
        self.allocated = 0        # bytes in blocks handed out and not yet freed
        self.reserved = 0         # bytes held from the device: handed out + cached
        self.peak_allocated = 0
        self.peak_reserved = 0
        self.num_allocs = 0       # raw allocations made
        self.num_frees = 0        # raw allocations released

    def _file_returned(self):
        while self._returned:
            block = self._returned.popleft()
            self.allocated -= block.size
            self._bins[block.size].append(block)

    def malloc(self, nbytes: int) -> Block:
        """A block of at least ``nbytes``: a cached one of the same size class, else a new one.

        When the device is out of memory, the cache is released and the allocation retried."""
        size = round_size(nbytes)
        with self._lock:
            self._file_returned()
            free = self._bins.get(size)
            if free:
                block = free.pop()
            else:
                try:
                    handle = self._raw_alloc(size)
                except MemoryError:
                    self._release_cached()
                    handle = self._raw_alloc(size)
                block = Block(handle, size)
                self.reserved += size
                self.num_allocs += 1
                self.peak_reserved = max(self.peak_reserved, self.reserved)
            self.allocated += size
            self.peak_allocated = max(self.peak_allocated, self.allocated)
            return block

    def free(self, block: Block) -> None:
        """Give ``block`` back to the cache (safe from finalizers)."""
        self._returned.append(block)

    def _release_cached(self):
        for blocks in self._bins.values():
            for block in blocks:
                self._raw_free(block.handle)
                self.reserved -= block.size
                self.num_frees += 1
        self._bins.clear()

    def empty_cache(self) -> None:
        """Release every cached (unused) block to the device."""
        with self._lock:
            self._file_returned()
            self._release_cached()

    def forget(self) -> None:
        """Drop all state without releasing anything: the device memory is already gone."""
        with self._lock:
            self._returned.clear()
            self._bins.clear()
            self.allocated = self.reserved = 0

    def stats(self) -> dict:
        """Current and peak byte counts, and raw allocation counts."""
        with self._lock:
            self._file_returned()
            return {"allocated_bytes": self.allocated, "reserved_bytes": self.reserved,
                    "peak_allocated_bytes": self.peak_allocated, "peak_reserved_bytes": self.peak_reserved,
                    "num_allocs": self.num_allocs, "num_frees": self.num_frees,
                    "cached_blocks": sum(len(b) for b in self._bins.values())}

    def reset_peak_stats(self) -> None:
        """Peaks restart from the current values."""
        with self._lock:
            self._file_returned()
            self.peak_allocated = self.allocated
            self.peak_reserved = self.reserved
