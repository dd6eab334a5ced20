"""Adaptive average pooling: each output cell averages one window of the input's last two dims,
the windows chosen so that any input size pools to the requested output size.

Declared as kernel ops (see ``kernel_ops.py``): the forward and its adjoint each have a CPU
kernel in ``backends/cpu/pool.py`` and run on host copies for CUDA tensors. Both are linear, so
each one's derivative is the other. Global pooling to (1, 1) is the mean PyTorch takes, computed by
a kernel of its own that sums each plane in PyTorch's order.
"""
from __future__ import annotations

from .. import dtypes
from ..autograd import tape
from ..devices import CPU
from .kernel_ops import HOST, Call, apply, kernel_op
from ..dtypes import torch_type_name
from .statistics import _mean_op
from ..autograd.profiler import op_event

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d"]


def _prepare_pool(input, output_size):
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{torch_type_name(input.dtype)}'")
    for d in (input.ndim - 2, input.ndim - 1):
        if input.shape[d] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {d} being empty")
    size = tuple(output_size)
    return Call(tuple(input.shape[:-2]) + size, input.dtype, {"output_size": size})


def _prepare_spread(grad, input_size):
    for d in (grad.ndim - 2, grad.ndim - 1):
        if grad.shape[d] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for non-batch "
                f"dimensions, but grad_output has sizes {list(grad.shape)} with dimension {d} being empty")
    return Call(tuple(grad.shape[:-2]) + tuple(input_size), grad.dtype, {"input_size": tuple(input_size)})


_pool = kernel_op(
    "adaptive_avg_pool2d", 1, prepare=_prepare_pool, backward_name="AdaptiveAvgPool2DBackward0",
    kernels={"cpu": "cpu.pool.adaptive_avg_pool2d", "cuda": HOST},
    vjp=(lambda g, ans, x, output_size: apply(_spread, (g,), {"input_size": x.shape[-2:]}),),
    jvp=(lambda t, ans, x, output_size: apply(_pool, (t,), {"output_size": output_size}),))
_spread = kernel_op(
    "adaptive_avg_pool2d_backward", 1, prepare=_prepare_spread,
    backward_name="AdaptiveAvgPool2DBackwardBackward0",
    kernels={"cpu": "cpu.pool.adaptive_avg_pool2d_backward", "cuda": HOST},
    vjp=(lambda v, ans, g, input_size: apply(_pool, (v,), {"output_size": g.shape[-2:]}),),
    jvp=(lambda t, ans, g, input_size: apply(_spread, (t,), {"input_size": input_size}),))


def _prepare_global(input):
    return Call(tuple(input.shape[:-2]) + (1, 1), input.dtype)


_global = kernel_op("global_avg_pool2d", 1, prepare=_prepare_global,
                    kernels={"cpu": "cpu.pool.global_avg_pool2d", "cuda": HOST}, event="aten::adaptive_avg_pool2d")


def _sums_in_torch_order(plane: int, itemsize: int) -> bool:
    """Whether the global pooling kernel sums planes of ``plane`` elements in PyTorch's order: at
    least a vector (32 bytes), fewer than 16 blocks of 4 vectors."""
    width = 32 // itemsize
    return width <= plane and plane // width // 4 < 16


def _global_mean(input):
    """The mean of each (H, W) plane, by one vectorized kernel, recorded as the mean it is."""
    if input._storage.device is not CPU or input.dtype not in (dtypes.float32, dtypes.float64) \
            or input.ndim < 3 or 0 in input.shape or not input.is_contiguous() \
            or not _sums_in_torch_order(input.shape[-1] * input.shape[-2], input.dtype.itemsize):
        return input.mean((-1, -2), keepdim=True)
    out = apply(_global, (tape.plain(input),), {})
    params = {"dims": (input.ndim - 2, input.ndim - 1), "keepdim": True, "dtype": None}
    return tape.record_result(_mean_op, (input,), out, params, "dim")


def _pair(output_size, input):
    """``output_size`` as two ints, None standing for the input's own size."""
    if isinstance(output_size, int):
        size = (output_size, output_size)
    elif len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    else:
        size = tuple(input.shape[-2 + i] if n is None else int(n) for i, n in enumerate(output_size))
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal "
                           f"to 0 but received {{{size[0]}, {size[1]}}}")
    return size


def adaptive_avg_pool2d(input, output_size):
    """adaptive_avg_pool2d(input, output_size) -> Tensor

    Average pooling of a (N, C, H, W) or (C, H, W) input to ``output_size`` (an int or a pair;
    None keeps that dimension's size), whatever the input's size."""
    size = _pair(output_size, input)
    if size == (1, 1):
        # A global average: PyTorch takes the mean (its node is MeanBackward1).
        return _global_mean(input)
    return apply(_pool, (input,), {"output_size": size})


def adaptive_avg_pool2d_backward(grad, input_size):
    """The adjoint of :func:`adaptive_avg_pool2d`: each cell of ``grad`` (..., OH, OW) shared
    evenly over its window of a (..., H, W) tensor, ``input_size`` = (H, W)."""
    return apply(_spread, (grad,), {"input_size": tuple(input_size)})


@op_event("aten::adaptive_avg_pool1d")
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool1d(input, output_size) -> Tensor

    Average pooling of a (N, C, L) or (C, L) input to ``output_size`` (an int or a 1-tuple)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                           "argument #1 'self' (while checking arguments for adaptive_avg_pool1d)")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain one int "
                               f"(got {len(output_size)})")
        output_size = output_size[0]
    if not isinstance(output_size, int):
        raise TypeError("adaptive_avg_pool1d(): argument 'output_size' (position 2) must be tuple of "
                        f"ints, not {type(output_size).__name__}")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size)).squeeze(-2)
