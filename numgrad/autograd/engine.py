"""The public entry points of reverse mode: backward and grad."""
from __future__ import annotations

from . import tape


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _make_grads(outputs, grad_outputs):
    from ..creation import ones_like
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{out.dtype}")
            g = ones_like(out)
        elif not hasattr(g, "_storage"):
            from ..creation import full_like
            g = full_like(out, g)
        elif tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                f"of {out.shape}.")
        grads.append(g)
    return grads


def _check_roots(outputs):
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates gradients of ``tensors`` into the ``.grad`` of the leaves they depend on."""
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    _check_roots(outputs)
    grads = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        result = grad(outputs, inputs, grads, retain_graph=retain_graph, create_graph=create_graph,
                      allow_unused=True, materialize_grads=False)
        for x, g in zip(inputs, result):
            if g is None:
                continue
            if x.grad is None:
                x.grad = g if create_graph else g.detach().clone()
            else:
                x.grad = x.grad + g if create_graph else x.grad.add_(g.detach())
        return
    tape.run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Returns the gradients of ``outputs`` with respect to ``inputs`` without touching ``.grad``."""
    outputs = _as_tuple(outputs)
    single = not isinstance(inputs, (tuple, list))
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    _check_roots(outputs)
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    capture = {}
    keys = []
    for x in inputs:
        key = tape.edge(x)
        capture[key] = True
        keys.append(key)
    captured = tape.run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph,
                                 capture=capture, accumulate=False)
    result = []
    for x, key in zip(inputs, keys):
        g = captured.get(key)
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                from ..creation import zeros_like
                g = zeros_like(x)
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)
