"""One pass of a DataLoader over worker processes: handing out indices, putting the batches
back in order, and stopping the workers."""
from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import time

from ...creation import from_numpy
from . import worker
from .dataset import IterableDataset

# Seconds between checks that every worker is still alive while waiting for a batch.
_CHECK_S = 2.0


class MultiProcessIter:
    """Iterates a DataLoader with ``num_workers`` processes, keeping ``prefetch_factor`` tasks
    per worker in flight."""

    def __init__(self, loader, draw_seed, fetch):
        self._loader = loader
        n = self._n = loader.num_workers
        self._prefetch = 2 if loader.prefetch_factor is None else loader.prefetch_factor
        self._iterable = isinstance(loader.dataset, IterableDataset)
        context = loader.multiprocessing_context
        if context is None:
            context = multiprocessing.get_context()
        elif isinstance(context, str):
            context = multiprocessing.get_context(context)
        base_seed = draw_seed(loader.generator)
        self._results = context.Queue()
        self._done = context.Event()
        self._index_queues, self._workers = [], []
        self._shut = False
        for wid in range(n):
            tasks = context.Queue()
            tasks.cancel_join_thread()
            process = context.Process(
                target=worker.loop, daemon=True,
                args=(loader.dataset, tasks, self._results, self._done, fetch, loader._auto_collation,
                      loader.collate_fn, loader.drop_last, base_seed + wid, loader.worker_init_fn, wid, n,
                      self._iterable, os.getpid()))
            process.start()
            self._index_queues.append(tasks)
            self._workers.append(process)
        self._start_epoch()

    def _start_epoch(self):
        self._indices = iter(self._loader._index_sampler)
        # Task ids keep counting across epochs, so a late reply to an abandoned epoch is known.
        self._received = self._sent = getattr(self, "_sent", 0)
        self._tasks: dict = {}  # task id -> [worker id] while pending, [worker id, batch] once here
        self._active = [True] * self._n
        self._next_worker = itertools.cycle(range(self._n))
        for _ in range(self._prefetch * self._n):
            self._send_next()

    def reset(self):
        """Starts a new epoch on the same workers (``persistent_workers``)."""
        for info in self._tasks.values():
            if len(info) == 2:
                worker.release(info[1])
        if self._iterable:
            for tasks in self._index_queues:
                tasks.put("restart")
        self._start_epoch()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _send_next(self):
        for _ in range(self._n):
            wid = next(self._next_worker)
            if self._active[wid]:
                break
        else:
            return
        try:
            index = next(self._indices)
        except StopIteration:
            return
        self._index_queues[wid].put((self._sent, index))
        self._tasks[self._sent] = [wid]
        self._sent += 1

    def __next__(self):
        in_order = self._loader.in_order
        while True:
            while self._received < self._sent:
                info = self._tasks[self._received]
                if len(info) == 2 or self._active[info[0]]:
                    break
                del self._tasks[self._received]  # its worker's stream ended before this task
                self._received += 1
            else:
                if not self._loader.persistent_workers:
                    self._shutdown()
                raise StopIteration
            info = self._tasks[self._received]
            if len(info) == 2:
                del self._tasks[self._received]
                self._received += 1
                return self._deliver(info[1])
            task_id, data = self._get()
            if task_id not in self._tasks:
                worker.release(data)
                continue
            if isinstance(data, worker.StreamEnded):
                self._active[data.worker_id] = False
                continue
            if task_id == self._received:
                del self._tasks[task_id]
                self._received += 1
                return self._deliver(data)
            if not in_order:
                del self._tasks[task_id]
                return self._deliver(data)
            self._tasks[task_id].append(data)

    def _deliver(self, data):
        self._send_next()
        if isinstance(data, worker.ExceptionWrapper):
            data.reraise()
        return worker.receive(data, from_numpy)

    def _get(self):
        timeout = self._loader.timeout
        start = time.monotonic()
        while True:
            wait = _CHECK_S if not timeout else min(_CHECK_S, max(timeout - (time.monotonic() - start), 0.01))
            try:
                return self._results.get(timeout=wait)
            except queue.Empty:
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    self._shutdown()
                    pids = ", ".join(str(w.pid) for w in dead)
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
                if timeout and time.monotonic() - start >= timeout:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None

    def _shutdown(self):
        if self._shut:
            return
        self._shut = True
        self._done.set()
        for tasks in self._index_queues:
            try:
                tasks.put(None)
            except (OSError, ValueError):
                pass
        for process in self._workers:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for info in self._tasks.values():
            if len(info) == 2:
                worker.release(info[1])
        while True:
            try:
                worker.release(self._results.get_nowait()[1])
            except (queue.Empty, OSError, ValueError, EOFError):
                break
        self._results.cancel_join_thread()
        self._results.close()

    def __del__(self):
        try:
            self._shutdown()
        except Exception:
            pass
