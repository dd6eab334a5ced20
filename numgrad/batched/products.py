"""Batching rules of matrix products and of the functions built on them."""
from __future__ import annotations

from .dispatch import call
from .rules import at_level, padded, wrap
from .tensor import front


def matmul(key, level, args, kwargs):
    """matmul's rule (and mm, bmm, mv, dot, @): a 1-D sample becomes a row (or column) matrix,
    both sides are padded to one rank, the product broadcasts over the batch dim."""
    if kwargs.get("out") is not None or len(args) != 2:
        return NotImplemented
    a, b = (args[1], args[0]) if key.endswith("__rmatmul__") else args
    if a.ndim == 0 or b.ndim == 0:
        return NotImplemented
    row, col = a.ndim == 1, b.ndim == 1
    va = front(a) if at_level(a, level) else a
    vb = front(b) if at_level(b, level) else b
    if row:
        va = va.unsqueeze(-2)
    if col:
        vb = vb.unsqueeze(-1)
    rank = max(a.ndim + row, b.ndim + col)
    if at_level(a, level):
        va = padded(va, rank)
    if at_level(b, level):
        vb = padded(vb, rank)
    r = call("torch.matmul", va, vb)
    if col:
        r = r.squeeze(-1)
    if row:
        r = r.squeeze(-1 if col else -2)
    return wrap(r, level)


def outer(key, level, args, kwargs):
    a, b = args
    return call("torch.mul", call("Tensor.unsqueeze", a, -1), call("Tensor.unsqueeze", b, 0))


def linear(key, level, args, kwargs):
    """F.linear: one product over the batch when the weights are shared; per-sample weights (as
    under a gradient in vmap) multiply through matmul's rule."""
    names = ("input", "weight", "bias")
    given = dict(zip(names, args))
    given.update(kwargs)
    x, w, bias = given.get("input"), given.get("weight"), given.get("bias")
    if x is None or w is None:
        return NotImplemented
    if not at_level(w, level) and not at_level(bias, level):
        return wrap(call(key, front(x), w, bias), level)
    r = call("torch.matmul", x, call("Tensor.t", w) if w.ndim == 2 else w)
    return r if bias is None else call("torch.add", r, bias)


def addmm(key, level, args, kwargs):
    """addmm, addmv, addr, baddbmm, addbmm: beta * input + alpha * product, from their rules."""
    product = {"addmm": "torch.matmul", "addmv": "torch.matmul", "baddbmm": "torch.matmul", "addbmm": "torch.matmul",
               "addr": "torch.outer"}
    name = key.rpartition(".")[2]
    if name not in product or len(args) != 3:
        return NotImplemented
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    if set(kwargs) - {"beta", "alpha"}:
        return NotImplemented
    p = call(product[name], args[1], args[2])
    if name == "addbmm":  # the sample's stack of products, summed
        p = call("torch.sum", p, 0)
    if alpha != 1:
        p = call("torch.mul", p, alpha)
    if beta == 0:
        return p
    base = args[0] if beta == 1 else call("torch.mul", args[0], beta)
    return call("torch.add", base, p)


def trace(key, level, args, kwargs):
    return call("torch.sum", call("torch.diagonal", args[0], 0, -2, -1), -1)


def einsum(key, level, args, kwargs):
    """einsum with a new index letter for the batch dim of each batched operand."""
    equation, *operands = args
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    if kwargs or "..." in equation or "->" not in equation:
        return NotImplemented
    inputs, output = equation.replace(" ", "").split("->")
    terms = inputs.split(",")
    free = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in equation)
    values = []
    for i, x in enumerate(operands):
        if at_level(x, level):
            values.append(front(x))
            terms[i] = free + terms[i]
        else:
            values.append(x)
    return wrap(call(key, ",".join(terms) + "->" + free + output, *values), level)
