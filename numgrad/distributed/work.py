"""Work: the handle of a collective started with ``async_op=True``."""
from __future__ import annotations

import time

__all__ = ["Work"]


class Work:
    """The pending result of a non-blocking collective or point-to-point transfer.

    ``wait()`` blocks until it is done (and writes the result into the tensors);
    ``is_completed()`` asks without blocking."""

    def __init__(self, MPI, requests, finish=None, timeout=None, what: str = "collective", result=None,
                 source=None):
        self._MPI = MPI
        self._requests = list(requests)
        self._finish = finish
        self._timeout = timeout
        self._what = what
        self._result = result
        self._done = False
        self._statuses = [MPI.Status() for _ in self._requests]
        self._source = source

    def _complete(self):
        self._done = True
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()

    def is_completed(self) -> bool:
        """Whether the operation has finished, driving MPI's progress once."""
        if not self._done and self._MPI.Request.Testall(self._requests, self._statuses):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self):
        return None

    def wait(self, timeout=None) -> bool:
        """Block until done; with a timeout (seconds or timedelta) raise RuntimeError past it."""
        if self._done:
            return True
        limit = self._timeout if timeout is None else getattr(timeout, "total_seconds", lambda: timeout)()
        if limit is None:
            self._MPI.Request.Waitall(self._requests, self._statuses)
        else:
            deadline = time.monotonic() + float(limit)
            spins = 0
            while not self._MPI.Request.Testall(self._requests, self._statuses):
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{self._what} timed out after {float(limit):g} s: another rank has not joined it (a "
                        f"rank that failed, skipped the call or called a different collective)")
                spins += 1
                if spins > 1000:
                    time.sleep(1e-4)
        self._complete()
        return True

    def result(self):
        """The output tensors, once done."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """For a receive from any source, the sender's rank."""
        self.wait()
        if self._source is None:
            raise RuntimeError("source_rank() is only available on the work of a receive")
        return self._source(self._statuses[0].Get_source())
