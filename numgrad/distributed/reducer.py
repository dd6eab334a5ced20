"""The gradient reducer of DistributedDataParallel: parameters grouped into buckets, each
bucket's gradients averaged over the ranks by a non-blocking allreduce started as soon as its
last gradient has been accumulated during backward."""
from __future__ import annotations

import numpy as np

from ..autograd.nodes import AccumulateGrad
from ..creation import from_numpy
from ..tensor import Tensor
from . import _mpi
from .buffers import refuse_bfloat16

DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    """Parameters reduced together, and the flat array their gradients travel in."""

    def __init__(self, indices, params):
        self.indices = indices
        refuse_bfloat16(params[indices[0]].dtype, "a parameter")
        sizes = [params[i].numel() for i in indices]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()
        self.flat = np.empty(self.offsets[-1], dtype=params[indices[0]]._np_view().dtype)
        self.pending = len(indices)
        self.request = None


def assign_buckets(params, bucket_bytes_cap: int, first_bucket_bytes: int = DEFAULT_FIRST_BUCKET_BYTES):
    """Lists of parameter indices, last-registered first (the order backward produces gradients),
    one dtype per bucket: the first bucket closes at ``first_bucket_bytes`` so communication
    starts early, later ones at ``bucket_bytes_cap``."""
    buckets, open_buckets = [], {}
    for i in reversed(range(len(params))):
        p = params[i]
        indices, size = open_buckets.get(p.dtype, ([], 0))
        indices.append(i)
        size += p.numel() * p.element_size()
        cap = first_bucket_bytes if not buckets else bucket_bytes_cap
        if size >= min(cap, bucket_bytes_cap):
            buckets.append(indices)
            open_buckets.pop(p.dtype, None)
        else:
            open_buckets[p.dtype] = (indices, size)
    buckets.extend(indices for indices, _ in open_buckets.values())
    return buckets


def _tensors_in(obj):
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors_in(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors_in(item)


def reachable_leaves(outputs) -> set:
    """The ids of the leaf tensors whose gradients backward from ``outputs`` would reach."""
    seen, found = set(), set()
    stack = []
    for t in _tensors_in(outputs):
        if t._grad_fn is not None:
            stack.append(t._grad_fn)
        elif t._requires_grad:
            found.add(id(t))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            found.add(id(node.variable))
            continue
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                stack.append(child)
    return found


class Reducer:
    """Averages the gradients of ``params`` over ``pg`` after each armed backward."""

    def __init__(self, params, pg, bucket_bytes_cap: int, find_unused_parameters: bool = False):
        self.params = list(params)
        self.pg = pg
        self.find_unused_parameters = find_unused_parameters
        self.buckets = [_Bucket(indices, self.params) for indices in assign_buckets(self.params, bucket_bytes_cap)]
        self.bucket_of = {i: b for b, bucket in enumerate(self.buckets) for i in bucket.indices}
        self.armed = False
        self.started = False
        self.ready = [False] * len(self.params)
        self.used = np.ones(len(self.params), dtype=np.uint8)
        self.next_bucket = 0
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i)) for i, p in enumerate(self.params)]

    def _hook(self, i):
        def on_accumulated(param):
            if self.armed:
                self.started = True
                self._mark_ready(i)
        return on_accumulated

    def remove_hooks(self):
        for handle in self.handles:
            handle.remove()
        self.handles = []

    def prepare_for_backward(self, outputs=None):
        """Arm the hooks for the next backward; with ``find_unused_parameters``, parameters that
        ``outputs`` do not depend on are ready at once."""
        if self.started:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. Some "
                "parameters received no gradient in the last backward: pass find_unused_parameters=True to "
                "DistributedDataParallel if the module has parameters not used to produce the loss, and make "
                "sure every output of forward takes part in computing the loss.")
        self.ready = [False] * len(self.params)
        for bucket in self.buckets:
            bucket.pending, bucket.request = len(bucket.indices), None
        self.next_bucket = 0
        self.armed = True
        self.used[:] = 1
        if self.find_unused_parameters:
            reached = reachable_leaves(outputs)
            for i, p in enumerate(self.params):
                if id(p) not in reached:
                    self.used[i] = 0
                    self._mark_ready(i)

    def _mark_ready(self, i):
        if self.ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once: parameter {i} received a gradient twice in one "
                f"backward (a reentrant backward, or a parameter shared outside the module).")
        self.ready[i] = True
        self.buckets[self.bucket_of[i]].pending -= 1
        MPI = _mpi.load()
        # Buckets start in the same order on every rank, as MPI matches collectives by order.
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(MPI, self.buckets[self.next_bucket], self.next_bucket == len(self.buckets) - 1)
            self.next_bucket += 1
        launched = [bucket.request for bucket in self.buckets[:self.next_bucket] if bucket.request is not None]
        if self.next_bucket == len(self.buckets):
            self._finish(MPI, launched)
        elif launched:
            MPI.Request.Testall(launched)  # lets MPI progress the reductions in flight

    def _launch(self, MPI, bucket, last: bool):
        for slot, i in enumerate(bucket.indices):
            grad = self.params[i].grad
            piece = bucket.flat[bucket.offsets[slot]:bucket.offsets[slot + 1]]
            if grad is None:
                piece.fill(0)
            else:
                np.copyto(piece.reshape(grad._shape), grad.detach()._np_view())
        if last:
            # Nothing is left to overlap with, and MPI's blocking reduction is the faster one.
            self.pg._comm.Allreduce(MPI.IN_PLACE, bucket.flat, MPI.SUM)
        else:
            bucket.request = self.pg._comm.Iallreduce(MPI.IN_PLACE, bucket.flat, MPI.SUM)

    def _finish(self, MPI, requests):
        MPI.Request.Waitall(requests)
        self.armed = self.started = False
        used = self.used
        if self.find_unused_parameters:
            used = self.used.copy()
            self.pg._comm.Allreduce(MPI.IN_PLACE, used, MPI.MAX)
        n = self.pg.size()
        for bucket in self.buckets:
            bucket.flat /= n
            for slot, i in enumerate(bucket.indices):
                if used[i]:
                    self._write_grad(self.params[i], bucket.flat[bucket.offsets[slot]:bucket.offsets[slot + 1]])

    @staticmethod
    def _write_grad(param, values):
        grad = param.grad
        if grad is not None and not grad._requires_grad and grad.is_contiguous() and grad._base is None:
            np.copyto(grad._np_view(), values.reshape(grad._shape))
            grad._bump_version()
        else:
            param.grad = from_numpy(values.reshape(param._shape).copy())
