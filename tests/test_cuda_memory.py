"""The CUDA caching allocator: the pool's size classes, reuse and statistics without a GPU, then
``numgrad.cuda``'s memory functions over live tensors on the simulator."""
import gc
import os
import subprocess
import sys

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest  # noqa: E402

import numgrad  # noqa: E402
from numgrad.backends.cuda.pool import CachingPool, round_size  # noqa: E402


class _Device:
    """A fake raw allocator that records what it was asked for."""

    def __init__(self, capacity=None):
        self.live, self.allocs, self.frees = {}, [], []
        self.capacity = capacity
        self._next = 1

    def alloc(self, n):
        if self.capacity is not None and sum(self.live.values()) + n > self.capacity:
            raise MemoryError("out of memory")
        h = self._next
        self._next += 1
        self.live[h] = n
        self.allocs.append(n)
        return h

    def free(self, h):
        self.frees.append(self.live.pop(h))


@pytest.mark.parametrize("n, size", [(0, 512), (1, 512), (512, 512), (513, 1024), (4000, 4096),
                                     (1 << 20, 1 << 20), ((1 << 20) + 1, 1 << 21), (3 << 20, 4 << 20)])
def test_size_classes(n, size):
    assert round_size(n) == size


def test_pool_reuses_freed_blocks_by_size_class():
    dev = _Device()
    p = CachingPool(dev.alloc, dev.free)
    a = p.malloc(100)
    b = p.malloc(600)
    assert (a.size, b.size) == (512, 1024)
    assert p.stats()["allocated_bytes"] == p.stats()["reserved_bytes"] == 1536
    p.free(a)
    assert p.stats()["allocated_bytes"] == 1024 and p.stats()["reserved_bytes"] == 1536
    c = p.malloc(300)                       # same class as a: reused, no device call
    assert c is a and dev.allocs == [512, 1024]
    d = p.malloc(200)                       # nothing cached in its class: a new block
    assert d is not a and dev.allocs == [512, 1024, 512]
    for blk in (b, c, d):
        p.free(blk)
    s = p.stats()
    assert s["allocated_bytes"] == 0 and s["reserved_bytes"] == 2048 and s["cached_blocks"] == 3
    p.empty_cache()
    assert dev.live == {} and p.stats()["reserved_bytes"] == 0 and p.stats()["num_frees"] == 3


def test_pool_peaks():
    p = CachingPool(_Device().alloc, lambda h: None)
    blocks = [p.malloc(512) for _ in range(3)]
    for blk in blocks:
        p.free(blk)
    p.malloc(512)
    s = p.stats()
    assert s["peak_allocated_bytes"] == 1536 and s["allocated_bytes"] == 512
    p.reset_peak_stats()
    assert p.stats()["peak_allocated_bytes"] == 512 and p.stats()["peak_reserved_bytes"] == 1536


def test_pool_out_of_memory_releases_cache_and_retries():
    dev = _Device(capacity=2048)
    p = CachingPool(dev.alloc, dev.free)
    p.free(p.malloc(1024))
    p.free(p.malloc(512))
    big = p.malloc(2048)                    # only fits once the cached blocks are released
    assert big.size == 2048 and dev.frees == [1024, 512]
    with pytest.raises(MemoryError):
        p.malloc(512)


# ------------------------------------------------------------------------- numgrad.cuda stats
cuda_only = pytest.mark.skipif(not numgrad.cuda.is_available(), reason="numba.cuda is not available")


@cuda_only
def test_memory_functions_count_live_tensors():
    gc.collect()
    numgrad.cuda.empty_cache()
    base = numgrad.cuda.memory_allocated()
    x = numgrad.zeros(1000, device="cuda")           # 4000 B -> a 4096 B block
    assert numgrad.cuda.memory_allocated() == base + 4096
    assert numgrad.cuda.memory_reserved() >= numgrad.cuda.memory_allocated()
    numgrad.cuda.reset_peak_memory_stats()
    y = x[10:20]                                     # a view allocates nothing and keeps x's block
    del x
    assert numgrad.cuda.memory_allocated() == base + 4096 and y.tolist() == [0.0] * 10
    del y
    gc.collect()
    assert numgrad.cuda.memory_allocated() == base
    reserved = numgrad.cuda.memory_reserved()
    assert reserved >= 4096                          # the block stays cached ...
    z = numgrad.ones(1024, device="cuda")            # ... and is reused for the same size class
    assert numgrad.cuda.memory_reserved() == reserved
    assert numgrad.cuda.max_memory_allocated() == base + 4096
    stats = numgrad.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == numgrad.cuda.memory_allocated()
    del z
    gc.collect()
    numgrad.cuda.empty_cache()
    assert numgrad.cuda.memory_reserved() == numgrad.cuda.memory_allocated() == base


@cuda_only
def test_reused_memory_holds_new_values():
    a = numgrad.full((300,), 7.0, device="cuda")
    del a
    b = numgrad.arange(300.0, device="cuda")
    assert b.cpu().tolist() == list(map(float, range(300)))
    assert numgrad.zeros(0, device="cuda").tolist() == []


# Numba's plugin interface without a GPU: the driver's alloc/free are replaced by fakes, in a
# fresh process because the real CUDA target (not the simulator) must be imported.
_EMM_SCRIPT = """
import gc
from numgrad.backends.cuda import memory, runtime
cuda = runtime.module()
assert not runtime.simulated()
from numba.cuda.cudadrv import driver as drv
if not hasattr(drv, "binding"):
    print("no bindings")
    raise SystemExit
addresses = iter(range(1 << 20, 1 << 30, 1 << 16))
freed = []
drv.driver.cuMemAlloc = lambda n: drv.binding.CUdeviceptr(next(addresses))
drv.driver.cuMemFree = lambda p: freed.append(int(p))
assert memory._emm_installed and drv._memory_manager.__name__ == "CachingMemoryManager"

class Context:
    pass

ctx = Context()
mgr = drv._memory_manager(context=ctx)
mgr.initialize()
p = mgr.memalloc(1000)
q = p.view(8)                      # a view keeps the block alive after p is gone
assert memory.stats()["allocated_bytes"] == 1024
addr = p.device_pointer_value
del p
gc.collect()
assert memory.stats()["allocated_bytes"] == 1024
del q
gc.collect()
s = memory.stats()
assert s["allocated_bytes"] == 0 and s["reserved_bytes"] == 1024, s
r = mgr.memalloc(600)              # same size class: the cached block comes back
assert r.device_pointer_value == addr and memory.stats()["num_allocs"] == 1
del r
gc.collect()
memory.pool().empty_cache()
assert freed == [addr] and memory.stats()["reserved_bytes"] == 0
print("ok")
"""


def test_emm_plugin_routes_numba_allocations_through_the_pool():
    pytest.importorskip("numba.cuda")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0", PYTHONPATH=root)
    env.pop("NUMGRAD_NO_CUDA_MEMORY_CACHING", None)
    run = subprocess.run([sys.executable, "-c", _EMM_SCRIPT], env=env, cwd=root, capture_output=True,
                         text=True, timeout=120)
    if "CudaSupportError" in run.stderr or "cuda.bindings" in run.stderr:
        pytest.skip("Numba's CUDA driver bindings are unavailable")
    if run.stdout.strip() == "no bindings":
        pytest.skip("the fake driver speaks numba-cuda's bindings (pip install numgrad[cuda])")
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
