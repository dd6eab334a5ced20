"""When a kernel should take its parallel (``prange``) form, and how it is launched safely.

Fork-join loops finish only when every thread has finished its share: one descheduled thread
stalls the whole loop for a scheduler time slice, far longer than the loop itself. Two causes
are ruled out here. Other processes: large inputs go parallel only while other processes leave
a core per thread free, measured from the CPU time the machine and this process spent over the
last half second (``/proc/stat``; the load average elsewhere), and OpenBLAS runs one thread
while they do not. Our own BLAS: OpenBLAS's worker threads keep spinning on every core for
about a tenth of a second after a threaded gemm, so Numba's thread pool waits that long after
one before it starts (a training step, where a gemm comes every few hundred microseconds, runs
its elementwise kernels serially and its gemms threaded).

Every ``parallel=True`` kernel is compiled through :func:`parallel_njit`, whose launches hold a
process-wide lock unless Numba's active threading layer is thread-safe: the workqueue layer
(the one left where neither TBB nor OpenMP is installed) aborts the process when two threads
enter parallel regions at once.
"""
from __future__ import annotations

import os
import threading
import time

import numba

# Seconds OpenBLAS workers spin after a call (2**28 cycles, its default timeout, at ~2.5 GHz).
_BLAS_SPIN_S = 0.15
# OpenBLAS gives a gemm a second thread once each thread gets at least 2**18 multiply-adds.
_BLAS_THREADED_WORK = 1 << 19

_SAMPLE_S = 0.5
try:
    _CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
    _MY_CPUS = frozenset(os.sched_getaffinity(0))
except (AttributeError, ValueError, OSError):
    _CLOCK_TICKS, _MY_CPUS = 100, frozenset(range(os.cpu_count() or 1))
# The CPUs this process may run on.
CORES = len(_MY_CPUS)
# The /proc/stat lines of the CPUs this process may run on ("cpu3 ..."): on a shared host the
# others are someone else's business.
_MY_CPU_LINES = frozenset(b"cpu%d" % c for c in _MY_CPUS)

# [time of the last sample, whether threads may be used, the machine's busy CPU seconds then,
# this process's CPU seconds then]
_state = [-1.0, False, None, 0.0]
_last_threaded_blas = [-1.0]
# The BLAS library's thread setter and its own count, registered by the module that binds it;
# whether it runs threaded now.
_blas_threads = {"set": None, "default": 1, "threaded": True}


def _machine_busy_seconds():
    """CPU seconds the CPUs this process may use have spent busy since boot, or None where the
    system does not say."""
    busy = 0
    try:
        with open("/proc/stat", "rb") as f:
            for line in f:
                fields = line.split()
                if fields and fields[0] in _MY_CPU_LINES:
                    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
                    busy += user + nice + system + irq + softirq + steal
    except (OSError, ValueError):
        return None
    return busy / _CLOCK_TICKS


def _sample(now: float) -> bool:
    """Whether every thread would find a core that other processes leave free."""
    threads = numba.get_num_threads()
    busy, own = _machine_busy_seconds(), time.process_time()
    last_busy, last_own, elapsed = _state[2], _state[3], now - _state[0]
    _state[2], _state[3] = busy, own
    if threads < 2:
        return False
    if busy is not None:
        if last_busy is None:
            return True  # the first sample: nothing to compare with for half a second
        # The other processes' share: the machine's busy time less this process's own (its
        # spinning workers included).
        others = max(busy - last_busy - (own - last_own), 0.0) / elapsed
        return CORES - others >= threads - 0.5
    try:
        return os.getloadavg()[0] < threads - 0.5
    except OSError:
        return True


def machine_free() -> bool:
    """Whether threads may be used now (re-measured at most twice a second)."""
    now = time.monotonic()
    if now - _state[0] > _SAMPLE_S:
        _state[1] = _sample(now)
        _state[0] = now
    return _state[1]


def register_blas_threads(setter, default: int) -> None:
    """Let the BLAS library's thread count follow the machine: ``setter(n)`` sets it, ``default``
    is the count it starts with."""
    _blas_threads["set"], _blas_threads["default"] = setter, default


def note_blas(work: int) -> None:
    """Record a BLAS/LAPACK call of ``work`` multiply-adds, which may wake OpenBLAS's threads;
    the library runs one thread while other processes leave no core free."""
    if work < _BLAS_THREADED_WORK:
        return  # OpenBLAS runs a call this small on one thread, whatever its count
    free = machine_free()
    if free != _blas_threads["threaded"] and _blas_threads["set"] is not None:
        _blas_threads["set"](_blas_threads["default"] if free else 1)
        _blas_threads["threaded"] = free
    if free:
        _last_threaded_blas[0] = time.monotonic()


def use_parallel(n: int, threshold: int) -> bool:
    """True if ``n`` elements of work are worth spreading over threads right now."""
    if n < threshold:
        return False
    if time.monotonic() - _last_threaded_blas[0] < _BLAS_SPIN_S:
        return False
    return machine_free()


# The layers whose thread pool may be entered by several threads at once.
_THREAD_SAFE_LAYERS = frozenset({"tbb", "omp"})
_launch_lock = threading.Lock()
# [serialise, layer known]: launches serialise until the first one shows a thread-safe layer
# (Numba picks the layer lazily, so it cannot be asked before then).
_guard = [True, False]


def _learn_layer() -> None:
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return
    _guard[1] = True
    if layer in _THREAD_SAFE_LAYERS:
        _guard[0] = False


def _new_lock_after_fork() -> None:
    # A fork while another thread held the lock would leave the child's copy locked forever.
    global _launch_lock
    _launch_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)


def parallel_njit(**options):
    """``numba.njit(parallel=True, **options)`` for a kernel called from Python, made safe to
    launch from any thread: on a layer that is not thread-safe, launches take turns (one launch
    already occupies every worker, so waiting costs little)."""
    def wrap(fn):
        dispatcher = numba.njit(parallel=True, **options)(fn)

        def launch(*args):
            if not _guard[0]:
                return dispatcher(*args)
            with _launch_lock:
                out = dispatcher(*args)
                if not _guard[1]:
                    _learn_layer()
            return out
        launch.__name__, launch.__qualname__ = fn.__name__, fn.__qualname__
        launch.__module__, launch.__doc__ = fn.__module__, fn.__doc__
        launch.__wrapped__ = dispatcher
        return launch
    return wrap
