"""Activation checkpointing: run part of a model without keeping what its backward reads, and
recompute it, with the same random numbers, when the backward pass needs it."""
from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, Iterable

from ..autograd import grad_mode
from ..autograd.engine import backward as _backward
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]


class CheckpointError(RuntimeError):
    """The recomputation of a checkpointed region did not save what its forward saved."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(x) -> bool:
    return hasattr(x, "_storage")


def _detached(args):
    """The tensors of ``args`` cut from their history (requires_grad kept), others as they are."""
    return tuple(a.detach().requires_grad_(a.requires_grad) if _is_tensor(a) else a for a in args)


@contextlib.contextmanager
def _rng_replay(state):
    """Run the body from RNG ``state`` (when not None), then restore the current state."""
    if state is None:
        yield
        return
    current = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(current)


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None, context_fn: Callable = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, **kwargs) -> Any:
    """Runs ``function(*args, **kwargs)`` without keeping the intermediate values its backward
    needs; the backward pass recomputes them, from the same RNG state when
    ``preserve_rng_state`` (default True).

    With ``use_reentrant=False`` (recommended) the region records its graph as usual, but each
    tensor it saves is replaced by a placeholder and recomputed on first use: gradients reach
    every tensor used inside, inputs and parameters alike. With ``use_reentrant=True`` the
    region is one node that saves only its inputs and runs a nested backward pass.
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
            "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
            "is recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return _ReentrantCheckpoint.apply(function, preserve, *args)
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    return _Frame(function, args, kwargs, preserve, context_fn, determinism_check == "default").run()


_DETERMINISM_CHECKS = ("default", "none")


class _Frame:
    """One non-reentrant checkpointed call: packs saved tensors as their index, and recomputes
    the call to unpack them."""

    def __init__(self, function, args, kwargs, preserve, context_fn, check):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.context_fn = context_fn
        self.check = check
        self.rng_state = get_rng_state() if preserve else None
        self.metas = []  # shape and dtype of each tensor the forward saved
        self.recomputed = {}

    def run(self):
        forward_ctx, self.recompute_ctx = self.context_fn()
        self.grad_enabled = grad_mode.is_grad_enabled()
        with saved_tensors_hooks(self._pack, self._unpack), forward_ctx:
            return self.function(*self.args, **self.kwargs)

    def _pack(self, x):
        self.metas.append((x._shape, x.dtype))
        return len(self.metas) - 1

    def _unpack(self, index):
        if index not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(index)

    def _recompute(self):
        saved = []

        def keep(x):
            if len(saved) >= len(self.metas):
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      "than during the original forward pass.")
            saved.append(x)
            return len(saved) - 1

        with _rng_replay(self.rng_state), grad_mode.set_grad_enabled(self.grad_enabled), \
                saved_tensors_hooks(keep, _recomputed_only), self.recompute_ctx:
            self.function(*_detached(self.args), **self.kwargs)
        if len(saved) != len(self.metas):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                f"and recomputation.\nNumber of tensors saved during forward: {len(self.metas)}\n"
                f"Number of tensors saved during recomputation: {len(saved)}.")
        if self.check:
            for i, (x, meta) in enumerate(zip(saved, self.metas)):
                if (x._shape, x.dtype) != meta:
                    raise CheckpointError(
                        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                        f"metadata than during the forward pass.\ntensor at position {i}:\nsaved metadata: "
                        f"{{'shape': {list(meta[0])}, 'dtype': {meta[1]}}}\nrecomputed metadata: "
                        f"{{'shape': {list(x._shape)}, 'dtype': {x.dtype}}}\n")
        self.recomputed = dict(enumerate(saved))


def _recomputed_only(index):
    # The recomputed graph is never replayed; its nodes must not reference the values it saved
    # (a cycle that only the garbage collector would free).
    raise RuntimeError("torch.utils.checkpoint: the recomputed graph of a checkpointed region cannot be "
                       "differentiated")


class _ReentrantCheckpoint(Function):
    """The reentrant variant: one node that recomputes its region and runs a nested backward."""

    @staticmethod
    def forward(ctx, function, preserve, *args):
        ctx.function = function
        ctx.rng_state = get_rng_state() if preserve else None
        ctx.grad_enabled = grad_mode.is_grad_enabled()
        ctx.inputs = [None if _is_tensor(a) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.save_for_backward(*[a for a in args if _is_tensor(a)])
        if not any(_is_tensor(a) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")
        return function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        inputs = _detached(inputs)
        with _rng_replay(ctx.rng_state), grad_mode.enable_grad():
            outputs = ctx.function(*inputs)
        if _is_tensor(outputs):
            outputs = (outputs,)
        roots, root_grads = [], []
        for o, g in zip(outputs, grads):
            if _is_tensor(o) and o.requires_grad:
                roots.append(o)
                root_grads.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward(roots, root_grads)
        return (None, None) + tuple(a.grad if _is_tensor(a) else None for a in inputs)


def checkpoint_sequential(functions: Iterable, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Runs the sequence ``functions`` (a list of modules or a Sequential) on ``input`` in
    ``segments`` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
            "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children"):
        functions = list(functions.children())

    def run_segment(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run_segment(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_segment(end + 1, len(functions) - 1)(input)
