"""The dispatcher of elementwise records (``ops/records.py``): dtype policy, broadcasting,
``out=``, the backend's kernel, the tape and forward mode; and the checks every dispatcher
shares (devices, ``out=`` tensors)."""
from __future__ import annotations

import numpy as np

from ..memo import Memo
from .. import dtypes
from .. import shapes
from ..autograd import profiler as _profiler
from ..autograd import inplace as _inplace, tape as _tape
from ..autograd.grad_mode import _state as _grad_state
from ..devices import CPU
from ..dtypes import torch_type_name
from ..storage import Storage
from ..tensor import Tensor, result_strides, tracing as _tracing
from .records import Op


def compute_dtype(op: Op, rt: dtypes.dtype) -> dtypes.dtype:
    """The dtype an elementwise op computes in, given the promoted input dtype ``rt``."""
    if op.result == "float" and not rt.is_floating_point:
        return dtypes.get_default_dtype()
    if op.result == "bool_long" and rt is dtypes.bool:
        return dtypes.int64
    if op.result == "floating" and not rt.is_floating_point:
        raise NotImplementedError(f'"{op.name}_cpu" not implemented for \'{torch_type_name(rt)}\'')
    if op.result == "integral" and rt.is_floating_point:
        # NotImplementedError subclasses RuntimeError, as PyTorch raises it.
        raise NotImplementedError(f'"{op.name}_cpu" not implemented for \'{torch_type_name(rt)}\'')
    if rt is dtypes.bool and not op.bool_ok:
        if op.result == "bool":
            return rt
        if op.name in _BOOL_MESSAGES:
            raise RuntimeError(_BOOL_MESSAGES[op.name])
        # PyTorch has no bool kernel for these: its dispatcher raises NotImplementedError.
        raise NotImplementedError(f'"{_CPU_KERNEL.get(op.name, op.name + "_cpu")}" not implemented for \'Bool\'')
    return rt


# The ops whose bool inputs PyTorch refuses with a message of its own (a RuntimeError), and the
# names of PyTorch's CPU kernels where they are not the op's name followed by "_cpu".
_BOOL_MESSAGES = {
    "neg": "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
           "mask, use the `~` or `logical_not()` operator instead.",
    "relu": "Boolean inputs not supported for relu",
}
_CPU_KERNEL = {"ceil": "ceil_vml_cpu", "floor": "floor_vml_cpu", "round": "round_vml_cpu",
               "trunc": "trunc_vml_cpu", "pow": "pow", "bitwise_left_shift": "lshift_cpu",
               "bitwise_right_shift": "rshift_cpu", "floor_divide": "div_floor_cpu",
               "trunc_divide": "div_trunc_cpu"}


def require_floating(kernel: str, d: dtypes.dtype, bfloat16: bool = True) -> None:
    """PyTorch's refusal of a non-floating dtype by a kernel that has floating kernels only (and
    of bfloat16 too where PyTorch's CPU kernel has none: ``bfloat16=False``)."""
    if not d.is_floating_point or (d is dtypes.bfloat16 and not bfloat16):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{torch_type_name(d)}'")


def bfloat16_widened(x):
    """``x`` in float32 if it is a bfloat16 tensor: PyTorch's bfloat16 products and convolutions
    keep float32 sums (the bias added too) and round once."""
    return x.float() if x.dtype is dtypes.bfloat16 else x


def can_cast(src: dtypes.dtype, dst: dtypes.dtype) -> bool:
    """PyTorch's rule for writing a result into an existing tensor: never down a category."""
    return src._category <= dst._category


def check_out(out, shape, rt, opname: str):
    """Validate an ``out=`` tensor (or the self of an in-place op), resizing an empty one."""
    shapes.check_no_internal_overlap(out._shape, out._strides)
    if not can_cast(rt, out.dtype):
        raise RuntimeError(
            f"result type {torch_type_name(rt)} can't be cast to the desired output type "
            f"{torch_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(shape):
        resize_out(out, tuple(shape))


def _as_operand(x, Tensor):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        return x
    raise TypeError(f"expected Tensor or Number as argument, but got {type(x).__name__}")


def check_tensor_arguments(name, first=1, **args):
    """PyTorch's TypeError for an argument of op ``name`` that must be a tensor and is not
    (a Python number, a list); ``first`` is the position of the first argument named."""
    for pos, (arg, x) in enumerate(args.items(), first):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def check_devices(tensors):
    """All tensors on one device, except 0-d CPU tensors, which PyTorch treats as scalars."""
    dev = None
    for t in tensors:
        if t.device.type == "cpu" and t.ndim == 0:
            continue
        if dev is None:
            dev = t.device
        elif t.device != dev:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{dev} and {t.device}!")
    if dev is None:
        dev = tensors[0].device if tensors else None
    return dev


def _resolve(op: Op, inputs: tuple, tensors: list, out=None):
    """Validate one call: (compute dtype, result dtype, device, broadcast shape)."""
    rt = dtypes.result_type(*inputs)
    ct = compute_dtype(op, rt)
    res_dtype = dtypes.bool if op.result == "bool" else ct
    device = check_devices(tensors + ([out] if out is not None else []))
    shape = shapes.broadcast_shapes(*[t.shape for t in tensors]) if tensors else ()
    return ct, res_dtype, device, shape


# Plans of calls, keyed by the op, the default dtype, and per input its dtype, shape, strides and
# device unless the CPU (or the type of a Python scalar), then for ``out=`` calls the same of
# ``out``: whatever the key fixes is validated and resolved once, when the plan is made.
_plans = Memo(8192)
_into_plans = Memo(8192)
_SCALARS = (bool, int, float)


def run_elementwise(op: Op, inputs: tuple, out=None, inplace: bool = False):
    """Evaluate elementwise ``op`` on tensors and Python scalars with broadcasting.

    ``out`` is an existing tensor to write into (``out=`` or the self of an in-place op).
    """
    if _tracing[0] is not None:
        return _tracing[0].elementwise(op, inputs, out, inplace)
    if inplace and out._base is not None and _grad_state.enabled:
        # Writes that record check there; this one may not record but still be refused.
        _inplace.check_inplace(out, inputs)
    if out is not None:
        memory = out._storage
        for x in inputs:
            if x is not out and getattr(x, "_storage", None) is memory:
                shapes.check_no_partial_overlap(out, x)
    if not _profiler.enabled and not _tape._dual_levels[0]:
        # The common call: tensors and Python scalars, no forward-mode tangents.
        key = [op, dtypes._default_dtype]
        grad = False
        on_cpu = True
        for x in inputs:
            cls = x.__class__
            if cls is float or cls is int or cls is bool:
                key.append(cls)
            elif isinstance(x, Tensor):
                device = x._storage.device
                if device is CPU:
                    # Left out of the key: hashing a device runs Python code.
                    key += (x.dtype, x._shape, x._strides)
                else:
                    key += (x.dtype, x._shape, x._strides, device)
                    on_cpu = False
                if x._requires_grad or x._base is not None and _inplace.adopts_base_grad(x):
                    grad = True
            else:
                break
        else:
            grad = grad and op.differentiable and _grad_state.enabled
            if out is None:
                key = tuple(key)
                plan = _plans.get(key)
                if plan is None:
                    plan = _new_plan(key, op, inputs)
                if plan:
                    result = plan(inputs)
                    if grad:
                        _tape.record(op, inputs, result)
                    return result
            elif on_cpu and not grad and isinstance(out, Tensor) and out._storage.device is CPU and (
                    not out._requires_grad or inplace or not _grad_state.enabled):
                key += (out.dtype, out._shape, out._strides, inplace)
                key = tuple(key)
                plan = _into_plans.get(key)
                if plan is None:
                    plan = _new_into_plan(key, op, inputs, out)
                if plan:
                    plan(out, inputs)
                    out._bump_version()
                    return out
    if _profiler.enabled:
        # PyTorch names an in-place op after its method: aten::add_.
        return _profiler.timed(op.event + "_" if inplace else op.event, _run_elementwise, op, inputs, out, inplace)
    return _run_elementwise(op, inputs, out, inplace)


def run_in_place(op, input, params=(), node_op=None, variant=None):
    """``op(input, *params)`` written over ``input`` by one kernel. When autograd sees the write,
    one node takes over input's history: ``node_op``'s, whose rules read the result, or without
    it ``op``'s own (named by its ``variant``), reading a copy of the input taken before the write."""
    if not (_tape.should_record((input,)) or _tape.has_tangents((input,))):
        return run_elementwise(op, (input,) + params, input, True)
    _inplace.check_inplace(input)
    before = input if node_op is not None else _tape.snapshot(input)
    result = _tape.plain(input)
    run_elementwise(op, (result,) + params, result, True)
    _tape.record_result(node_op or op, (before,) + params, result, variant=variant)
    _tape.rebase(input, result)
    return input


def _new_plan(key, op: Op, inputs: tuple):
    tensors = [x for x in inputs if x.__class__ not in _SCALARS]
    ct, res_dtype, device, shape = _resolve(op, inputs, tensors)
    plan = None
    if tensors:
        plan = _backend(device).elementwise_plan(op, ct, res_dtype, shape, result_strides(shape, tensors),
                                                 inputs)
    _plans[key] = plan = plan or False
    return plan


def _new_into_plan(key, op: Op, inputs: tuple, out):
    # Calls that resize ``out`` or must raise take the general path, every time.
    tensors = [x for x in inputs if x.__class__ not in _SCALARS]
    ct, res_dtype, device, shape = _resolve(op, inputs, tensors, out)
    plan = None
    if tensors and shape == out._shape and can_cast(res_dtype, out.dtype) and \
            not shapes.has_internal_overlap(out._shape, out._strides):
        plan = _backend(device).elementwise_into_plan(op, ct, out, inputs)
    _into_plans[key] = plan = plan or False
    return plan


def _run_elementwise(op: Op, inputs: tuple, out=None, inplace: bool = False):
    inputs = tuple(_as_operand(x, Tensor) for x in inputs)
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    ct, res_dtype, device, shape = _resolve(op, inputs, tensors, out)
    if inplace and tuple(shape) != tuple(out.shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, out.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, shape))}]")
    needs_grad = op.differentiable and _tape.should_record(inputs)
    if out is not None:
        if not inplace and op.differentiable:
            check_out_grad(op.name, out, *tensors)
        check_out(out, shape, res_dtype, op.name)
        if needs_grad or _tape.has_tangents(inputs):
            # Differentiate the out-of-place result, then write it through; the engine rebases
            # ``out``'s history on the new node.
            ans = run_elementwise(op, inputs)
            out.copy_(ans)
            _tape.rebase(out, ans)
            return out
        result = out
    else:
        result = Tensor._empty_like_inputs(shape, res_dtype, device, tensors)
    _backend(device).elementwise(op, ct, result, inputs, shape)
    if out is not None:
        out._bump_version()
        return out
    if needs_grad:
        _tape.record(op, inputs, result)
    if _tape.has_tangents(inputs):
        _tape.forward_jvp(op, inputs, result)
    return result


_cpu_backend = []


def _backend(device):
    if device is None or device.type == "cpu":
        if not _cpu_backend:
            # Imported on first use, not at import time: the CPU backend imports Numba.
            from . import cpu_kernels
            _cpu_backend.append(cpu_kernels)
        return _cpu_backend[0]
    from . import cuda_kernels
    return cuda_kernels


backend = _backend


def check_out_grad(name: str, out, *args):
    """Refuse ``out=`` when autograd would need to see the call, as PyTorch does: with grad mode
    on, neither ``out`` nor a tensor among ``args`` (tensors or sequences of them) may require grad."""
    if not _grad_state.enabled:
        return
    for x in (out,) + args:
        if x.__class__ in (tuple, list):
            if any(getattr(t, "_requires_grad", False) for t in x):
                break
        elif getattr(x, "_requires_grad", False):
            break
    else:
        return
    raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad.")


def write_out(result, out, name: str):
    """Copy the result of op ``name`` into its ``out=`` tensor (resized when its shape differs);
    refused (see :func:`check_out_grad`) when ``result`` or ``out`` requires grad in grad mode."""
    if out is None:
        return result
    shapes.check_no_internal_overlap(out._shape, out._strides)
    if _grad_state.enabled and (result._requires_grad or out._requires_grad):
        check_out_grad(name, out, result)
    if tuple(out.shape) != tuple(result.shape):
        resize_out(out, result._shape)
    out.copy_(result)
    return out


def resize_out(input, shape):
    """:func:`resize_` for an ``out=`` tensor: PyTorch resizes those even when they require grad
    (callers refuse that in grad mode first)."""
    n = shapes.prod(shape)
    if input._offset + n > input._storage.data.shape[0]:
        old = input._storage
        new = Storage.empty(input._offset + n, input.dtype, input.device)
        if input.device.type == "cpu":
            keep = min(old.data.shape[0], new.data.shape[0])
            new.data[:keep] = old.data[:keep]
        new.version = old.version
        input._storage = new
    input._shape = tuple(shape)
    input._strides = shapes.contiguous_strides(shape)
    return input
