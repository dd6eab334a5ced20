"""Copies and conversions: clone, contiguous, to (dtype/device), copy_, detach, fill_, zero_."""
from __future__ import annotations

from .. import dtypes, shapes
from ..autograd import tape
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.inplace import check_inplace
from ..devices import as_device
from ..tensor import DETACH_HINT, LEAF_ONLY, Tensor
from .registry import backend, resize_out, run_elementwise
from .records import OPS, primitive
from ..creation import empty, full, ones, tensor, zeros, zeros_like
from ..backends import require_cuda
from ..storage import Storage
from ..autograd.profiler import op_event

__all__ = ["clone", "contiguous", "to", "copy_", "detach", "detach_", "fill_", "zero_", "requires_grad_",
           "type", "double", "float", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool", "cpu", "cuda",
           "resize_", "type_as", "new_tensor", "new_empty", "new_zeros", "new_ones", "new_full"]

_builtin_float, _builtin_int, _builtin_bool = float, int, bool

_clone_op = primitive("clone", 1, vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,),
                      batched_jvp=(lambda t, ans, x: t,))
_to_device_op = primitive("to_device", 1, backward_name="ToCopyBackward0",
                          vjp=(lambda g, ans, x, device: g.to(x.device),),
                          jvp=(lambda t, ans, x, device: t.to(device),),
                          batched_jvp=(lambda t, ans, x, device: t.to(device),))


@op_event("aten::clone")
def clone(input, *, memory_format=None):
    """A copy of ``input`` with its own memory; differentiable."""
    if not tape.should_record((input,)) and not tape.has_tangents((input,)):
        # Nothing to record: the dispatcher's cached plan of the copy (same layout rule).
        return run_elementwise(OPS["copy"], (input,))
    out = Tensor._empty_like_inputs(input._shape, input.dtype, input.device, [input])
    backend(input.device).elementwise(OPS["copy"], input.dtype, out, (input,), input._shape)
    if tape.should_record((input,)):
        tape.record(_clone_op, (input,), out)
    if tape.has_tangents((input,)):
        tape.forward_jvp(_clone_op, (input,), out)
    return out


def contiguous(input, memory_format=None):
    """``input`` itself when C-contiguous, else a contiguous copy."""
    if input.is_contiguous():
        return input
    return _contiguous_copy(input)


@op_event("aten::contiguous")
def _contiguous_copy(input):
    out = Tensor._empty(input._shape, input.dtype, input.device)
    backend(input.device).elementwise(OPS["copy"], input.dtype, out, (input,), input._shape)
    if tape.should_record((input,)):
        tape.record(_clone_op, (input,), out)
    if tape.has_tangents((input,)):
        tape.forward_jvp(_clone_op, (input,), out)
    return out


def _parse_to(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif hasattr(a, "_storage"):
            dtype, device = a.dtype, a.device
        elif a is not None and not isinstance(a, _builtin_bool):
            device = a
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {list(kwargs)}")
    return (as_device(device) if device is not None else None), dtype, copy


@op_event("aten::to")
def to(input, *args, **kwargs):
    """to(dtype) / to(device) / to(device, dtype) / to(other): converts, copying only if needed."""
    device, dtype, copy = _parse_to(args, dict(kwargs))
    out = input
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype is not input.dtype:
            out = _convert(input, dtype)
    if device is not None and device != out.device:
        moved = Tensor._make(_move_storage(out.contiguous(), device), out._shape,
                             shapes.contiguous_strides(out._shape), 0, out.dtype)
        if tape.should_record((out,)):
            tape.record(_to_device_op, (out,), moved, {"device": device})
        out = moved
    if copy and out is input:
        out = clone(input)
    return out


def _move_storage(t, device):
    cuda = require_cuda()
    if device.type == "cpu":
        return Storage(cuda.to_host(t._storage.data, t._offset, t.numel()), device)
    src = t._storage.data if t.device.type == "cuda" else t._np_view().reshape(-1)
    return Storage(cuda.to_device(src, device), device)


def _convert(input, dtype):
    out = Tensor._empty_like_inputs(input._shape, dtype, input.device, [input])
    backend(input.device).elementwise(OPS["copy"], input.dtype, out, (input,), input._shape)
    if dtype.is_floating_point and input.dtype.is_floating_point and tape.should_record((input,)):
        tape.record(OPS["copy"], (input,), out)
    if dtype.is_floating_point and tape.has_tangents((input,)):
        tape.forward_jvp(OPS["copy"], (input,), out)
    return out


def type(input, dtype=None, non_blocking=False):
    """With no argument, the type name ('torch.FloatTensor'); otherwise converts to a legacy type
    (``numgrad.DoubleTensor`` or 'torch.cuda.FloatTensor') or a dtype."""
    from .. import legacy
    if dtype is None:
        return dtypes.legacy_type_name(input.dtype, input.device.type)
    return legacy.retype(input, dtype)


def type_as(input, other):
    return to(input, other.dtype)


def _converter(d, name):
    def fn(input, memory_format=None):
        return to(input, d)
    fn.__name__ = name
    fn.__doc__ = f"``self.to(numgrad.{d.name})``"
    return fn


double, float, half, bfloat16, long, int, short, char, byte, bool = (
    _converter(d, name) for name, d in dtypes.CONVERSIONS.items())


def cpu(input, memory_format=None):
    """A copy in CPU memory (``input`` itself when already there)."""
    return to(input, "cpu")


def cuda(input, device=None, non_blocking=False, memory_format=None):
    """A copy in CUDA memory (``input`` itself when already on that device)."""
    return to(input, "cuda" if device is None else device)


def copy_(input, src, non_blocking=False):
    """Copies ``src`` (broadcast, converted to ``input``'s dtype and device) into ``input``."""
    shapes.check_no_internal_overlap(input._shape, input._strides)
    if hasattr(src, "_storage") and src._shape != input._shape:
        # src must expand to input's shape; this raises PyTorch's message when it cannot.
        shapes.expand_strides(src._shape, src._strides, input._shape)
    check_inplace(input, (src,))
    # Only a floating input can carry a gradient: into an integer one the copy is plain data.
    if input.dtype.is_floating_point and (
            (tape.should_record((src,)) or input._requires_grad) and is_grad_enabled()
            or tape.has_tangents((input, src))):
        value = src if hasattr(src, "_storage") else None
        if value is None:
            input._write(src)
            tape.rebase(input, _detached_zero_history(input))
            return input
        result = _copy_result(input, value)
        input._write(result)
        tape.rebase(input, result)
        return input
    input._write(src)
    return input


def _detached_zero_history(input):
    return input.detach()


def _overwritten_vjp(g, ans, x, src):
    # The overwritten values get zeros (not no gradient), as in PyTorch: their leaves' .grad is set.
    return zeros_like(g)


def _batched_copy_into(t, ans, x, src):
    """The tangents of ``src`` (leading batch dim) as written into ``x``: cast and broadcast."""
    b = t.shape[0]
    t = t.reshape((b,) + (1,) * (x.ndim - src.ndim) + tuple(src.shape))
    return t.to(x.dtype).expand((b,) + tuple(x.shape))


_copy_op = primitive("copy_", 2, backward_name="CopyBackwards",
                     vjp=(_overwritten_vjp, lambda g, ans, x, src: g.to(src.dtype)),
                     jvp=(None, lambda t, ans, x, src: t.to(x.dtype).expand(x.shape)),
                     batched_jvp=(None, _batched_copy_into))


def _copy_result(input, src):
    """The out-of-place value ``input`` takes in ``copy_``: src broadcast and converted."""
    out = Tensor._empty(input._shape, input.dtype, input.device)
    out._write(src)
    if tape.should_record((src,)):
        tape.record(_copy_op, (input, src), out)
    if tape.has_tangents((src,)):
        tape.forward_jvp(_copy_op, (input, src), out)
    return out


def detach(input):
    """A tensor sharing memory with ``input`` but outside the autograd graph."""
    return input._view(input._shape, input._strides)


def detach_(input):
    """Detaches ``input`` from the graph in place; views cannot be (use ``detach()``)."""
    if input._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
            "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
            "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
    input._grad_fn = None
    input._requires_grad = False
    return input


def requires_grad_(input, requires_grad=True):
    """Sets ``requires_grad`` in place; only floating tensors may require grad, and only a leaf
    may stop requiring it."""
    if requires_grad.__class__ is not _builtin_bool:
        cls = requires_grad.__class__
        name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
        raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not {name}")
    if requires_grad and not input.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if not requires_grad and input.grad_fn is not None:
        raise RuntimeError(LEAF_ONLY + DETACH_HINT)
    if input.grad_fn is None:
        # A view keeps requiring grad while its base does (see Tensor.requires_grad).
        input._requires_grad = requires_grad
    return input


@op_event("aten::fill_")
def fill_(input, value):
    """Fills ``input`` with ``value`` in place."""
    if hasattr(value, "_storage"):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        return copy_(input, value)
    dtypes.check_fill_value(value, input.dtype)
    check_inplace(input)
    input._fill_raw(value)
    input._bump_version()
    if is_grad_enabled() and (input._grad_fn is not None or (
            input._base is not None and input._base._requires_grad)):
        # The filled elements no longer depend on anything; a base loses their history.
        tape.rebase(input, input.detach())
    return input


@op_event("aten::zero_")
def zero_(input):
    """Fills ``input`` with zeros in place."""
    return fill_(input, 0)


def resize_(input, *sizes):
    """Resizes in place; keeps the storage when it is large enough, else allocates a new one."""
    shape = shapes.parse_size(sizes)
    if input._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    return resize_out(input, shape)


def new_tensor(input, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def new_empty(input, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def new_zeros(input, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def new_ones(input, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def new_full(input, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)
