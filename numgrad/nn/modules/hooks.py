"""Running a module's hooks around its forward and backward passes.

Forward hooks see and may replace the arguments and the output. Backward hooks see the
gradients with respect to the module's outputs and its tensor inputs: the inputs and the
outputs each pass through an identity autograd Function, whose backward is where those
gradients meet.
"""
from __future__ import annotations

import warnings

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.nodes import RemovableHandle
from ...tensor import Tensor

__all__: list = []


def register(table: dict, hook, prepend: bool = False, extra: dict | None = None) -> RemovableHandle:
    """Adds ``hook`` to the ordered ``table`` (first when ``prepend``); ``extra`` tables record
    per-hook flags under the same handle id and are cleared with it."""
    handle = RemovableHandle(table, hook)
    if prepend:
        table.move_to_end(handle.id, last=False)
    for flags in (extra or {}).values():
        flags.add(handle.id)
    if extra:
        remove = handle.remove

        def remove_with_flags():
            remove()
            for flags in extra.values():
                flags.discard(handle.id)
        handle.remove = remove_with_flags
    return handle


def call_with_hooks(module, args, kwargs):
    """``module.forward(*args, **kwargs)`` run between its forward pre- and post-hooks, with its
    inputs and outputs routed through the backward hooks when it has any."""
    d = module.__dict__
    for key, hook in list(d["_forward_pre_hooks"].items()):
        if key in d["_forward_pre_hooks_with_kwargs"]:
            r = hook(module, args, kwargs)
            if r is not None:
                if not (isinstance(r, tuple) and len(r) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {r}.")
                args, kwargs = r
        else:
            r = hook(module, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
    backward = _BackwardHooks(module) if (d["_backward_hooks"] or d["_backward_pre_hooks"]) \
        and grad_mode.is_grad_enabled() else None
    if backward is not None:
        args = backward.wrap_inputs(args)
    try:
        out = module.forward(*args, **kwargs)
    except Exception:
        for key, hook in list(d["_forward_hooks"].items()):
            if key in d["_forward_hooks_always_called"]:
                _run_forward_hook(module, key, hook, args, kwargs, None)
        raise
    for key, hook in list(d["_forward_hooks"].items()):
        r = _run_forward_hook(module, key, hook, args, kwargs, out)
        if r is not None:
            out = r
    if backward is not None:
        out = backward.wrap_outputs(out)
    return out


def _run_forward_hook(module, key, hook, args, kwargs, out):
    if key in module.__dict__["_forward_hooks_with_kwargs"]:
        return hook(module, args, kwargs, out)
    return hook(module, args, out)


class _BackwardHooks:
    """One forward call's meeting point of output and input gradients for the module's
    full backward hooks."""

    def __init__(self, module):
        self.module = module
        self.n_inputs = 0
        self.input_positions = ()
        self.grad_outputs = None

    def wrap_inputs(self, args):
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.n_inputs = len(args)
        self.input_positions = tuple(positions)
        if not positions:
            return args
        wrapped = BackwardHookFunction.apply(self.on_input_grads, *(args[i] for i in positions))
        args = list(args)
        for i, t in zip(positions, wrapped if isinstance(wrapped, tuple) else (wrapped,)):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, out):
        single = isinstance(out, Tensor)
        outs = (out,) if single else out
        if not isinstance(outs, tuple):
            return out
        positions = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        if not positions:
            return out
        wrapped = BackwardHookFunction.apply(self.on_output_grads, *(outs[i] for i in positions))
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        new = list(outs)
        for i, t in zip(positions, wrapped):
            new[i] = t
        return new[0] if single else tuple(new)

    def on_output_grads(self, grads):
        for hook in list(self.module._backward_pre_hooks.values()):
            r = hook(self.module, grads)
            if r is not None:
                grads = _replace(r, grads, "backward pre hook")
        self.grad_outputs = grads
        if not self.input_positions:
            # No input needs a gradient: the hooks still learn the output gradients now.
            if self.module._backward_hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                              "module outputs since no inputs require gradients.", UserWarning, stacklevel=2)
            self._run_full_hooks((None,) * self.n_inputs)
        return grads

    def on_input_grads(self, grads):
        grad_input = [None] * self.n_inputs
        for i, g in zip(self.input_positions, grads):
            grad_input[i] = g
        result = self._run_full_hooks(tuple(grad_input))
        return tuple(result[i] for i in self.input_positions)

    def _run_full_hooks(self, grad_input):
        for hook in list(self.module._backward_hooks.values()):
            r = hook(self.module, grad_input, self.grad_outputs)
            if r is not None:
                grad_input = _replace(r, grad_input, "backward hook")
        return grad_input


def _replace(new, old, what):
    new = new if isinstance(new, tuple) else (new,)
    if len(new) != len(old):
        raise RuntimeError(f"{what} returned an invalid number of grad_input, got {len(new)}, but expected "
                           f"{len(old)}")
    return new


class BackwardHookFunction(Function):
    """Identity on tensors whose backward hands their gradients to ``on_grads`` (which may
    replace them): where a module's backward hooks see its input and output gradients."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_grads(grads))
