"""When a kernel should take its parallel (``prange``) form.

Fork-join loops finish only when every thread has finished its share: one descheduled thread
stalls the whole loop for a scheduler time slice, far longer than the loop itself. Two causes
are ruled out here. Other processes: large inputs go parallel only while the load average
leaves a core idle (sampled at most twice a second). Our own BLAS: OpenBLAS's worker threads
keep spinning on every core for about a tenth of a second after a threaded gemm, so Numba's
thread pool waits that long after one before it starts (a training step, where a gemm comes
every few hundred microseconds, runs its elementwise kernels serially and its gemms threaded).
"""
from __future__ import annotations

import os
import time

import numba

# Seconds OpenBLAS workers spin after a call (2**28 cycles, its default timeout, at ~2.5 GHz).
_BLAS_SPIN_S = 0.15
# OpenBLAS gives a gemm a second thread once each thread gets at least 2**18 multiply-adds.
_BLAS_THREADED_WORK = 1 << 19

_state = [-1.0, False]
_last_threaded_blas = [-1.0]


def note_blas(work: int) -> None:
    """Record a BLAS/LAPACK call of ``work`` multiply-adds, which may wake OpenBLAS's threads."""
    if work >= _BLAS_THREADED_WORK:
        _last_threaded_blas[0] = time.monotonic()


def use_parallel(n: int, threshold: int) -> bool:
    """True if ``n`` elements of work are worth spreading over threads right now."""
    if n < threshold:
        return False
    now = time.monotonic()
    if now - _last_threaded_blas[0] < _BLAS_SPIN_S:
        return False
    if now - _state[0] > 0.5:
        threads = numba.get_num_threads()
        try:
            idle = os.getloadavg()[0] < threads - 0.5
        except OSError:
            idle = True
        _state[0], _state[1] = now, threads > 1 and idle
    return _state[1]
