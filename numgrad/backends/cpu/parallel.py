"""When a kernel should take its parallel (``prange``) form.

Fork-join loops finish only when every thread has finished its share: on a machine whose cores
are busy with other processes, one descheduled thread stalls the whole loop for a scheduler
time slice, far longer than the loop itself. So large inputs go parallel only while the load
average leaves a core idle (sampled at most twice a second).
"""
from __future__ import annotations

import os
import time

import numba

_state = [-1.0, False]


def use_parallel(n: int, threshold: int) -> bool:
    """True if ``n`` elements of work are worth spreading over threads right now."""
    if n < threshold:
        return False
    now = time.monotonic()
    if now - _state[0] > 0.5:
        threads = numba.get_num_threads()
        try:
            idle = os.getloadavg()[0] < threads - 0.5
        except OSError:
            idle = True
        _state[0], _state[1] = now, threads > 1 and idle
    return _state[1]
