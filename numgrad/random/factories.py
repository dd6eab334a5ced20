"""The random factories: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal`` and the
``*_like`` forms, each a new tensor (or ``out=``) filled by one of the in-place fills.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, shapes
from ..autograd.grad_mode import no_grad
from ..backends.cpu import mt19937
from ..devices import as_device
from ..layouts import check_layout
from ..ops.registry import check_out_grad, resize_out
from ..dtypes import torch_type_name
from ..tensor import Tensor, make_requires_grad
from .fills import draw_integers, draw_into, exact_int_bounds, normal_, uniform_
from .generator import generator_or_default
from ..creation import empty_strided
from ..ops.functional_elementwise import lt
from ..ops.reductions import any as any_


def _new(size, dtype, device, default=None, keyword=None, name="size", out=None, op=None) -> Tensor:
    """A tensor to draw into: a new one, or ``out`` resized (then the draw runs in its dtype,
    as PyTorch's factories fill ``out`` in place)."""
    if out is not None and op is not None:
        _check_out(out, dtype, op)
    shape = shapes.parse_size(size, name, keyword)
    if out is not None:
        return resize_out(out, shape) if tuple(out.shape) != shape else out
    d = dtypes.as_dtype(dtype) if dtype is not None else (default or dtypes.get_default_dtype())
    return Tensor._empty(shape, d, as_device(device))


def _check_out(out: Tensor, dtype, op: str):
    """PyTorch's checks of a factory's ``out=`` before anything is drawn."""
    if dtype is not None and dtypes.as_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {torch_type_name(dtypes.as_dtype(dtype))} does not match dtype of out "
                           f"parameter ({torch_type_name(out.dtype)})")
    if op == "randn":
        # PyTorch's randn resizes ``out`` unconditionally, which refuses in any grad mode.
        if out._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
    else:
        check_out_grad("aten::" + op, out)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        make_requires_grad(t)
    return t


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False) -> Tensor:
    """rand(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Numbers drawn uniformly from [0, 1)."""
    check_layout(layout, "rand")
    return _finish(uniform_(_new(args, dtype, device, None, size, "rand", out, "rand"), generator=generator),
                   requires_grad)


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False) -> Tensor:
    """randn(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Numbers drawn from the standard normal distribution."""
    check_layout(layout, "randn")
    return _finish(normal_(_new(args, dtype, device, None, size, "randn", out, "randn"), generator=generator),
                   requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            out=None, layout=None, pin_memory=False) -> Tensor:
    """randint(low=0, high, size, *, generator=None, dtype=int64, device=None) -> Tensor

    Integers drawn uniformly from [low, high)."""
    check_layout(layout, "randint")
    if out is not None:
        _check_out(out, dtype, "randint")
    if size is not None:
        args = args + (size,)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() expects (high, size) or (low, high, size)")
    if not isinstance(size, (tuple, list, shapes.Size)):
        raise TypeError(f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    t = _new(size, None if out is not None else dtype, device, dtypes.int64, out=out)
    return _finish(draw_integers(t, low, high, generator), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False) -> Tensor:
    """randperm(n, *, generator=None, dtype=int64, device=None) -> Tensor: a random
    permutation of 0 .. n-1."""
    check_layout(layout, "randperm")
    if out is not None:
        _check_out(out, dtype, "randperm")
    n = shapes._as_index(n, "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    t = _new((n,), None if out is not None else dtype, device, dtypes.int64, out=out)
    if n - 1 > exact_int_bounds(t.dtype)[1]:
        raise RuntimeError(f"n is too large for result tensor type: '{torch_type_name(t.dtype)}'")
    state = generator_or_default(generator)._state
    return _finish(draw_into(t, np.dtype(np.int64), mt19937.permutation, state, n >= mt19937.WIDE_PERMUTATION),
                   requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False, out=None) -> Tensor:
    """normal(mean, std, size=None, *, generator=None) -> Tensor

    Draws from N(mean, std**2). ``mean`` and ``std`` may be tensors (broadcast together, giving
    the result's shape) or numbers (then ``size`` gives the shape)."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        if size is None:
            raise TypeError("normal() missing the size argument for number mean and std")
        t = normal_(_new(size, dtype, device, out=out, op="normal"), float(mean), float(std), generator=generator)
        return _finish(t, requires_grad)
    if out is not None:
        check_out_grad("normal", out, mean, std)
    if st and std.numel() and _negative(std):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = shapes.broadcast_shapes(*[x.shape for x in (mean, std) if isinstance(x, Tensor)])
    d = dtypes.result_type(*[x for x in (mean, std) if isinstance(x, Tensor)])
    if not d.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{torch_type_name(d)}'")
    dev = (mean if mt else std).device
    if out is not None:
        return _normal_into(out, mean, std, shape, generator)
    z = normal_(Tensor._empty(shape, d, dev), generator=generator)
    return mean + std * z


def _normal_into(out, mean, std, shape, generator) -> Tensor:
    """normal(mean, std, out=out) as PyTorch computes it: the draw in ``out``'s dtype, then
    scaled and shifted in place (a number std widens ``out``'s own shape into the broadcast)."""
    if not isinstance(std, Tensor):
        shape = shapes.broadcast_shapes(shape, out.shape)
    if tuple(out.shape) != tuple(shape):
        resize_out(out, tuple(shape))
    with no_grad():
        if isinstance(std, Tensor):
            normal_(out, generator=generator).mul_(std)
        else:
            normal_(out, 0.0, float(std), generator=generator)
        return out.add_(mean)


def _negative(std: Tensor) -> bool:
    return bool(any_(lt(std.detach(), 0)))


def empty_in_memory_order(input, dtype, device) -> Tensor:
    """An uninitialised tensor shaped as ``input`` whose memory runs in the order of
    ``input``'s strides (PyTorch's preserve_format), so that a fill in memory order puts each
    number where PyTorch puts it."""
    shape, order = input.shape, sorted(range(input.ndim), key=lambda k: -input.stride(k))
    strides, step = [0] * input.ndim, 1
    for k in reversed(order):
        strides[k] = step
        step *= max(shape[k], 1)
    return empty_strided(shape, strides, dtype=dtype or input.dtype, device=device or input.device)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """Uniform [0, 1) numbers with ``input``'s shape, dtype and device."""
    t = uniform_(empty_in_memory_order(input, dtype, device), generator=generator)
    return _finish(t, requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Standard normal numbers with ``input``'s shape, dtype and device."""
    t = normal_(empty_in_memory_order(input, dtype, device), generator=generator)
    return _finish(t, requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None) -> Tensor:
    """Integers from [low, high) with ``input``'s shape, dtype and device; ``randint_like(x, high)``."""
    if high is None:
        low, high = 0, low
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    t = draw_integers(empty_in_memory_order(input, dtype, device), low, high, generator)
    return _finish(t, requires_grad)
