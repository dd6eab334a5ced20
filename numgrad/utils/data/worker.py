"""DataLoader worker processes: what runs inside one, and how tensors travel back.

A worker reads ``(task id, indices)`` from its own queue, builds and collates the batch, and
puts ``(task id, batch)`` on the shared result queue. Tensors in the batch travel through
shared memory blocks: the worker writes each into a block it hands over, and the main process
copies it out and frees the block; everything else is pickled by the queue.
"""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from collections import namedtuple
from dataclasses import dataclass
from multiprocessing import resource_tracker, shared_memory

import numpy as np

__all__ = ["get_worker_info", "WorkerInfo"]

# Seconds a worker waits on its queue before checking that the main process still lives.
_POLL_S = 1.0


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker process knows about itself: ``id``, ``num_workers``, ``seed`` (its
    numgrad and ``random`` seed) and its copy of ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: object


_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This DataLoader worker's :class:`WorkerInfo`; None in the main process."""
    return _info


class ExceptionWrapper:
    """An exception raised in a worker, re-raised in the main process with the worker's traceback."""

    def __init__(self, exc: BaseException, where: str):
        self.exc_type = type(exc)
        self.message = f"Caught {type(exc).__name__} {where}.\nOriginal {''.join(traceback.format_exception(exc))}"

    def reraise(self):
        try:
            error = self.exc_type(self.message)
        except Exception:
            error = RuntimeError(self.message)
        raise error


class StreamEnded:
    """A worker's reply once its iterable dataset is exhausted."""

    def __init__(self, worker_id: int):
        self.worker_id = worker_id


_SharedTensor = namedtuple("_SharedTensor", "name shape dtype requires_grad")


def _to_shared(obj, tensor_type):
    if isinstance(obj, tensor_type) and obj.device.type == "cpu":
        array = np.ascontiguousarray(obj.detach()._np_view())
        block = shared_memory.SharedMemory(create=True, size=max(array.nbytes, 1))
        np.ndarray(array.shape, array.dtype, buffer=block.buf)[...] = array
        # The main process frees the block: this process must not track it past its own exit.
        resource_tracker.unregister(block._name, "shared_memory")
        block.close()
        return _SharedTensor(block.name, array.shape, array.dtype, obj.requires_grad)
    return _walk(obj, lambda x: _to_shared(x, tensor_type))


def _from_shared(obj, from_numpy):
    if isinstance(obj, _SharedTensor):
        block = shared_memory.SharedMemory(name=obj.name)
        try:
            array = np.ndarray(obj.shape, np.dtype(obj.dtype), buffer=block.buf).copy()
        finally:
            block.close()
            block.unlink()
        t = from_numpy(array)
        return t.requires_grad_() if obj.requires_grad else t
    return _walk(obj, lambda x: _from_shared(x, from_numpy))


def _walk(obj, fn):
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(fn(x) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(fn(x) for x in obj)
    if isinstance(obj, dict):
        return type(obj)((k, fn(v)) for k, v in obj.items())
    return obj


def release(obj) -> None:
    """Frees the shared blocks of a batch that will never be read."""
    if isinstance(obj, _SharedTensor):
        try:
            block = shared_memory.SharedMemory(name=obj.name)
            block.close()
            block.unlink()
        except FileNotFoundError:
            pass
    else:
        _walk(obj, release)


def receive(obj, from_numpy):
    """A batch as the main process uses it: shared blocks copied into tensors and freed."""
    return _from_shared(obj, from_numpy)


def loop(dataset, index_queue, result_queue, done_event, fetch, auto_collation, collate_fn, drop_last,
         seed, init_fn, worker_id, num_workers, iterable, parent_pid):
    """The body of one worker process."""
    global _info
    import numba

    from ...random.generator import manual_seed
    from ...tensor import Tensor
    # One thread per worker, as the workers themselves are the parallelism.
    numba.set_num_threads(1)
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(seed % 2 ** 32)
    _info = WorkerInfo(worker_id, num_workers, seed, dataset)
    stream = None
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        if iterable:
            stream = iter(dataset)
    except Exception as exc:
        init_error = ExceptionWrapper(exc, f"in DataLoader worker process {worker_id}")
    ended = False
    while not done_event.is_set():
        try:
            task = index_queue.get(timeout=_POLL_S)
        except queue.Empty:
            if os.getppid() != parent_pid:  # the main process died: nobody will read the results
                return
            continue
        if task is None:
            break
        if task == "restart":
            stream, ended = iter(dataset), False
            continue
        task_id, indices = task
        if init_error is not None:
            reply, init_error = init_error, None
        elif ended:
            reply = StreamEnded(worker_id)
        else:
            try:
                data = fetch(dataset, stream, indices, auto_collation, drop_last)
                reply = _to_shared(collate_fn(data), Tensor)
            except StopIteration:
                ended = True
                reply = StreamEnded(worker_id)
            except Exception as exc:
                reply = ExceptionWrapper(exc, f"in DataLoader worker process {worker_id}")
        result_queue.put((task_id, reply))
    sys.stdout.flush()
