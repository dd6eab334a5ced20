"""A line on the terminal while Numba compiles kernels for their first use.

A first run compiles each kernel it needs once (later runs load them from Numba's cache), which
can take many seconds. So that the wait is not silent, once compiling has taken a second a
line says what is happening, another follows every few seconds of compiling, and a last one
gives the total when the program ends. Only an interactive terminal (stderr a TTY) sees them;
``NUMGRAD_COMPILE_NOTICE=1`` shows them anywhere, ``=0`` never.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
import time

from numba.core import event

_FIRST_AFTER_S = 1.0
_EVERY_S = 5.0


class CompileNotice(event.Listener):
    """Counts Numba's compilations (cache misses only) and their wall time, and reports them."""

    def __init__(self, stream):
        self.stream = stream
        self.count = 0
        self.seconds = 0.0
        self.reported_at = None   # compile seconds at the last line written
        self._local = threading.local()
        self._lock = threading.Lock()
        self._timer = None

    def on_start(self, ev):
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        if depth:
            return  # a callee compiled inside an outer compilation: timed with it
        self._local.started = time.perf_counter()
        with self._lock:
            if self.reported_at is None and self._timer is None:
                # A single long compilation is announced while it runs.
                self._timer = threading.Timer(max(0.0, _FIRST_AFTER_S - self.seconds), self._announce)
                self._timer.daemon = True
                self._timer.start()

    def on_end(self, ev):
        self._local.depth -= 1
        if self._local.depth:
            return
        with self._lock:
            self.count += 1
            self.seconds += time.perf_counter() - self._local.started
            if self._timer is not None and self.reported_at is None:
                self._timer.cancel()
                self._timer = None
                if self.seconds >= _FIRST_AFTER_S:
                    self._write_first()
            elif self.reported_at is not None and self.seconds - self.reported_at >= _EVERY_S:
                self._write(f"numgrad: {self.count} kernels compiled so far ({self.seconds:.0f} s)")

    def _announce(self):
        with self._lock:
            self._timer = None
            if self.reported_at is None:
                self._write_first()

    def _write_first(self):
        self._write("numgrad: compiling kernels for their first use; later runs load them from the cache")

    def _write(self, line):
        self.reported_at = self.seconds
        try:
            print(line, file=self.stream, flush=True)
        except (OSError, ValueError):
            pass  # the stream was closed: the notice is not worth an error

    def summary(self):
        """The closing line, if any line was written."""
        if self.reported_at is not None:
            self._write(f"numgrad: compiled {self.count} kernels in {self.seconds:.1f} s")


def _wanted(stream) -> bool:
    setting = os.environ.get("NUMGRAD_COMPILE_NOTICE", "")
    if setting in ("0", "1"):
        return setting == "1"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def install(stream=None):
    """Report long compilations on ``stream`` (stderr), if wanted; returns the listener or None."""
    stream = sys.stderr if stream is None else stream
    if not _wanted(stream):
        return None
    notice = CompileNotice(stream)
    event.register("numba:compile", notice)
    atexit.register(notice.summary)
    return notice
