"""Matrix products: matmul and its family (mm, bmm, mv, dot, outer, the add* fused forms),
tensordot and kron. Two primitives carry the derivative rules; everything else composes them.
"""
from __future__ import annotations

from ..memo import Memo
from .. import dtypes, shapes
from ..devices import CPU
from ..autograd.autocast_state import cast_policy
from ..autograd import profiler as _profiler
from ..autograd import tape
from ..autograd.grad_mode import _state as _grad_state
from .registry import bfloat16_widened as _wide, check_devices, check_tensor_arguments, write_out as _write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..storage import Storage
from ..tensor import Tensor
from . import views
from ..autograd.profiler import op_event

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv",
           "addr", "baddbmm", "addbmm", "tensordot", "kron"]
TENSOR_METHODS = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv", "addr",
                  "baddbmm", "addbmm", "kron"]
INPLACE_METHODS = ["addmm", "addmv", "addr", "baddbmm", "addbmm"]



def _write_product(r, out, name: str):
    """Write the product ``name`` into ``out=``, which must already have the product's dtype: no conversion."""
    if out is not None and out.dtype is not r.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtypes.C_NAMES[r.dtype]}, but got "
                           f"{dtypes.C_NAMES[out.dtype]} instead")
    return _write_out(r, out, name)


def _column_major(x) -> bool:
    """Whether matrix ``x`` is laid out as the transpose of a contiguous one (a weight used as
    ``weight.t()``)."""
    return len(x._shape) == 2 and x._strides[0] == 1 and x._strides[1] == x._shape[0] and x._shape[0] > 1


# The cotangent of a batched product is itself a batched product; the engine sums it over any
# batch dims that were broadcast. A column-major operand gets its cotangent computed transposed,
# so that it has the operand's layout (as PyTorch's): the gradient of a weight used as
# ``weight.t()`` comes out contiguous, and the optimizer's updates of it run on contiguous memory.
def _mm_vjp_a(g, ans, a, b):
    return matmul(b, g.mT).mT if _column_major(a) else matmul(g, b.mT)


def _mm_vjp_b(g, ans, a, b):
    return matmul(g.mT, a).mT if _column_major(b) else matmul(a.mT, g)


_MM_VJP = (_mm_vjp_a, _mm_vjp_b)
_MM_JVP = (lambda t, ans, a, b: matmul(t, b), lambda t, ans, a, b: matmul(a, t))
# matmul broadcasts a leading batch dim of either factor, so the plain rules batch as they are.
_mm_op = primitive("mm", 2, vjp=_MM_VJP, jvp=_MM_JVP, batched_jvp=_MM_JVP)
_bmm_op = primitive("bmm", 2, vjp=_MM_VJP, jvp=_MM_JVP, batched_jvp=_MM_JVP)
_dot_op = primitive("dot", 2, vjp=(lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a),
                    jvp=(lambda t, ans, a, b: dot(t, b), lambda t, ans, a, b: dot(a, t)),
                    batched_jvp=(lambda t, ans, a, b: t.matmul(b), lambda t, ans, a, b: t.matmul(a)))

def _shape_str(shape) -> str:
    return "x".join(map(str, shape))


def _check_same_dtype(a, b, kernel="addmm_impl_cpu_"):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {dtypes.C_NAMES[a.dtype]} != "
                           f"{dtypes.C_NAMES[b.dtype]}")
    _refuse_bool(a, b, kernel)


def _refuse_bool(a, b, kernel):
    # PyTorch has no bool product kernel, but an empty product (or one over an empty inner dim,
    # all False) never reaches it.
    if a.dtype.name == "bool" and a.numel() and b.numel():
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_batch_dtype(a, b, kernel="bmm"):
    # Batched products word the mismatch as PyTorch's bmm does, not as mm does.
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {torch_type_name(a.dtype)} but found {torch_type_name(b.dtype)}")
    _refuse_bool(a, b, kernel)


def _kernels(device):
    if device.type == "cuda":
        from ..backends.cuda import matmul as kernels
        return kernels
    return _cpu_kernels


from ..backends.cpu import matmul as _cpu_kernels  # noqa: E402  (compiles nothing at import)


# Plans of products of CPU operands, keyed by the operands' dtypes and geometry (which fix the
# result's shape); False marks products for the general path. A key of two matrices is only
# ever stored after mm's checks passed for it.
_plans = Memo()
_dual_levels = tape._dual_levels


def _product(op, a, b, out_shape):
    """Run the batched product kernel for ``a`` (…, M, K) and ``b`` (…, K, N) and record ``op``."""
    if _profiler.enabled:
        return _profiler.timed(op.event, _run_product, op, a, b, out_shape)
    return _run_product(op, a, b, out_shape)


def _run_product(op, a, b, out_shape):
    result = _raw_product(a, b, out_shape)
    if tape.should_record((a, b)):
        tape.record(op, (a, b), result)
    if tape.has_tangents((a, b)):
        tape.forward_jvp(op, (a, b), result)
    return result


def _wrap(shape, dtype):
    """A fresh product's flat buffer as a contiguous CPU tensor of ``shape``."""
    strides, make = shapes.contiguous_strides(shape), Tensor._make
    return lambda buffer: make(Storage(buffer, CPU), shape, strides, 0, dtype)


def _raw_product(a, b, out_shape):
    """The batched product of ``a`` (…, M, K) and ``b`` (…, K, N), outside the graph."""
    if a._storage.device is CPU and b._storage.device is CPU:
        key = (a.dtype, b.dtype, a._shape, a._strides, b._shape, b._strides)
        plan = _plans.get(key)
        if plan is None:
            plan = _plans[key] = _cpu_kernels.bmm_plan(a, b, out_shape, _wrap(out_shape, a.dtype)) or False
        if plan:
            return plan(a, b)
    device = check_devices((a, b))
    result = Tensor._empty(out_shape, a.dtype, device)
    _kernels(device).bmm(a, b, result)
    return result



def _check_mm(input, mat2):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_same_dtype(input, mat2)
    if input._shape[1] != mat2._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(input._shape)} and "
                           f"{_shape_str(mat2._shape)})")


@cast_policy("lower")
def mm(input, mat2, *, out=None):
    """mm(input, mat2) -> Tensor: the product of an (n x m) and an (m x p) matrix."""
    try:
        matrices = len(input._shape) == 2 and len(mat2._shape) == 2
    except AttributeError:
        check_tensor_arguments("mm", input=input, mat2=mat2)
        raise
    if not matrices:
        _check_mm(input, mat2)
    r = _mm(input, mat2)
    return r if out is None else _write_product(r, out, "mm")


def _mm(a, b):
    # The path of every linear layer: a planned product of two CPU matrices (``a`` and ``b``
    # are 2-D) runs its plan directly, as a stored plan for two matrices means mm's checks
    # passed for this key, then records its node.
    if a._storage.device is CPU and b._storage.device is CPU and not _profiler.enabled:
        plan = _plans.get((a.dtype, b.dtype, a._shape, a._strides, b._shape, b._strides))
        if plan:
            r = plan(a, b)
            # What should_record needs first (a view records only once its base requires grad):
            # products of tensors outside autograd stop here.
            if _grad_state.enabled and (a._requires_grad or b._requires_grad
                                        or a._base is not None and a._base._requires_grad
                                        or b._base is not None and b._base._requires_grad) \
                    and tape.should_record((a, b)):
                tape.record(_mm_op, (a, b), r)
            if _dual_levels[0] and (a._fw_tangent is not None or b._fw_tangent is not None):
                tape.forward_jvp(_mm_op, (a, b), r)
            return r
    _check_mm(a, b)
    return _product(_mm_op, a, b, (a._shape[0], b._shape[1]))


def _batch_mismatch(batch, k, got_batch, got_k):
    raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] but got: "
                       f"[{got_batch}, {got_k}].")


def _check_bmm(batch1, batch2, kernel="bmm"):
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_batch_dtype(batch1, batch2, kernel)
    b, _, k = batch1._shape
    if batch2._shape[:2] != (b, k):
        _batch_mismatch(b, k, *batch2._shape[:2])


@cast_policy("lower")
def bmm(input, mat2, *, out=None):
    """bmm(input, mat2) -> Tensor: batched product of (b x n x m) and (b x m x p) tensors."""
    check_tensor_arguments("bmm", input=input, mat2=mat2)
    _check_bmm(input, mat2)
    b, n, _ = input._shape
    return _write_product(_product(_bmm_op, input, mat2, (b, n, mat2._shape[2])), out, "bmm")


@op_event("aten::mv")
def mv(input, vec, *, out=None):
    """mv(input, vec) -> Tensor: the product of an (n x m) matrix and a vector of size m."""
    check_tensor_arguments("mv", input=input, vec=vec)
    _check_mv(input, vec)
    _check_same_dtype(input, vec, "addmv_impl_cpu")
    return _write_product(tape.record_result(_mv_op, (input, vec), _raw_mv(input, vec)), out, "mv")


# One node (PyTorch's MvBackward0) for the matrix product it runs.
_mv_op = primitive("mv", 2, vjp=(lambda g, ans, a, v: g.unsqueeze(1) * v, lambda g, ans, a, v: mv(a.t(), g)),
                   jvp=(lambda t, ans, a, v: mv(t, v), lambda t, ans, a, v: mv(a, t)))


@op_event("aten::dot")
def dot(input, tensor, *, out=None):
    """dot(input, tensor) -> Tensor: the inner product of two 1-D tensors (no broadcasting)."""
    check_tensor_arguments("dot", input=input, tensor=tensor)
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if input.dtype is not tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{torch_type_name(input.dtype)} and {torch_type_name(tensor.dtype)}")
    if input.dtype.name == "bool":
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    n, m = input._shape[0], tensor._shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                           f"number of elements, but got {n} and {m} elements respectively")
    device = check_devices((input, tensor))
    result = Tensor._empty((), input.dtype, device)
    # Raw views, not recorded: the kernel sees a (1 x n) @ (n x 1) product.
    row = input._view((1, n), (0, input._strides[0]))
    col = tensor._view((n, 1), (tensor._strides[0], 0))
    _kernels(device).bmm(row, col, result._view((1, 1), (1, 1)))
    if tape.should_record((input, tensor)):
        tape.record(_dot_op, (input, tensor), result)
    if tape.has_tangents((input, tensor)):
        tape.forward_jvp(_dot_op, (input, tensor), result)
    return _write_product(result, out, "dot")


def vdot(input, other, *, out=None):
    """vdot(input, other) -> Tensor: ``dot`` with the first argument conjugated (same for reals)."""
    return dot(input, other, out=out)


@op_event("aten::matmul", autocast="lower")
def matmul(input, other, *, out=None):
    """matmul(input, other) -> Tensor: matrix product with PyTorch's rules.

    1-D x 1-D is a dot product; a 1-D operand is treated as a row (first) or column (second)
    vector and that dim is removed afterwards; operands of 3 or more dims are stacks of
    matrices whose batch dims broadcast."""
    try:
        da, db = len(input._shape), len(other._shape)
    except AttributeError:
        check_tensor_arguments("matmul", input=input, other=other)
        raise
    if da == 2 and db == 2:
        r = _mm(input, other)
        return r if out is None else _write_product(r, out, "matmul")
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        r = dot(input, other)
    elif da == 2 and db == 1:
        r = mv(input, other)
    elif da == 1 and db == 2:
        r = mm(input.unsqueeze(0), other).squeeze(0)
    elif da >= 3 and db <= 2:
        # Fold the batch into the rows: one large gemm instead of many small ones.
        k = input._shape[-1]
        lead = input._shape[:-1]
        # The row count is spelled out: -1 is ambiguous when k is 0.
        r = matmul(input.reshape(shapes.prod(lead), k), other)
        # r is a fresh product nothing else reads: PyTorch's unsafe view of it, not a copy.
        r = views.unsafe_view(r, lead + r._shape[1:])
    else:
        r = _batched(input, other)
    return _write_product(r, out, "matmul")


def _batched(a, b):
    squeeze_a = a.ndim == 1
    squeeze_b = b.ndim == 1
    if squeeze_a:
        a = a.unsqueeze(0)
    if squeeze_b:
        b = b.unsqueeze(1)
    # PyTorch folds a stack times one matrix into a single mm
    _check_batch_dtype(a, b, "addmm_impl_cpu_" if b.ndim == 2 else "bmm")
    batch = shapes.broadcast_shapes(a._shape[:-2], b._shape[:-2])
    m, k = a._shape[-2:]
    if b._shape[-2] != k:
        _batch_mismatch(shapes.prod(batch), k, shapes.prod(batch), b._shape[-2])
    r = _product(_bmm_op, a, b, batch + (m, b._shape[-1]))
    if squeeze_a:
        r = r.squeeze(-2)
    if squeeze_b:
        r = r.squeeze(-1)
    return r


def inner(input, other, *, out=None):
    """inner(input, other) -> Tensor: sums products over the last dims (scalars multiply)."""
    if input.ndim == 0 or other.ndim == 0:
        return _write_out(input * other, out, "inner")
    k = input._shape[-1]
    if other._shape[-1] != k:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"[{', '.join(map(str, input._shape))}] and [{', '.join(map(str, other._shape))}]")
    if input.ndim == 1 and other.ndim == 1:
        return dot(input, other, out=out)
    r = mm(input.reshape(shapes.prod(input._shape[:-1]), k), other.reshape(shapes.prod(other._shape[:-1]), k).t())
    return _write_out(r.reshape(input._shape[:-1] + other._shape[:-1]), out, "inner")


def outer(input, vec2, *, out=None):
    """outer(input, vec2) -> Tensor: the outer product of two vectors (with type promotion)."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    # PyTorch's composition (its history shows a ViewBackward0 on input only).
    return _write_out(input.reshape(-1, 1) * vec2, out, "outer")


ger = outer


def _scaled_sum(input, product, beta, alpha, shape):
    """beta * input + alpha * product, with ``input`` ignored (even NaN) when beta is 0."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    input = input.expand(shape)
    return product + (input * beta if beta != 1 else input)


def _same_dtype3(name, input, a, b):
    if not (input.dtype is a.dtype is b.dtype):
        raise RuntimeError(f"{name} input tensors must have the same dtype, but got "
                           f"{torch_type_name(input.dtype)}, {torch_type_name(a.dtype)}, and "
                           f"{torch_type_name(b.dtype)}")


def check_addmm_dtypes(input, mat1, mat2):
    """PyTorch's dtype checks of addmm, in its order (``linear`` with a bias makes the same)."""
    for name, t in (("self", input), ("mat1", mat1)):
        if t.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {torch_type_name(t.dtype)} "
                               f"and {torch_type_name(mat2.dtype)}")


@op_event("aten::addmm", autocast="lower")
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor: beta * input + alpha * (mat1 @ mat2)."""
    check_addmm_dtypes(input, mat1, mat2)
    _check_mm(mat1, mat2)
    # One node, as PyTorch's: the sum is formed in place in the fresh product.
    r = _raw_product(_wide(mat1.detach()), _wide(mat2.detach()), (mat1._shape[0], mat2._shape[1]))
    return _fused(_addmm_op, (input, mat1, mat2), r, beta, alpha, out)


def _times(x, s):
    return x if s == 1 else x * s


def _scale_add_into(r, input, beta, alpha):
    """``r = beta * input + alpha * r`` in the fresh product ``r``, as PyTorch forms it; ``input``
    is ignored (even NaN) when beta is 0, but must still broadcast to ``r``."""
    bias = tape.plain(input)
    if bias._shape != r._shape:
        # expand, not the in-place broadcast: PyTorch's message for a bias of the wrong shape
        bias = bias.expand(r._shape)
    if alpha != 1:
        r.mul_(alpha)
    if beta != 0:
        if beta == 1:
            r.add_(bias)
        else:
            r.add_(bias, alpha=beta)
    return r


def _fused(op, inputs, r, beta, alpha, out):
    """Finish an add* product: scale and add ``inputs[0]`` into ``r`` (a float32 ``r`` of
    bfloat16 operands is rounded after the sum), then record one node."""
    input = inputs[0]
    if input.dtype is dtypes.bfloat16 and r.dtype is dtypes.float32:
        r = _scale_add_into(r, tape.plain(input).float(), beta, alpha).to(dtypes.bfloat16)
    elif input.dtype is r.dtype:
        r = _scale_add_into(r, input, beta, alpha)
    else:
        r = _scaled_sum(tape.plain(input), r, beta, alpha, r._shape)
    return _write_product(tape.record_result(op, inputs, r, {"beta": beta, "alpha": alpha}), out, op.name)


def _bias_vjp(g, ans, bias, a, b, beta, alpha):
    return _times(g, beta)


def _bias_jvp(t, ans, bias, a, b, beta, alpha):
    return _times(t.expand(ans._shape), beta)


_addmm_op = primitive(
    "addmm", 3,
    vjp=(_bias_vjp,
         lambda g, ans, bias, a, b, beta, alpha: _times(_mm_vjp_a(g, None, a, b), alpha),
         lambda g, ans, bias, a, b, beta, alpha: _times(_mm_vjp_b(g, None, a, b), alpha)),
    jvp=(_bias_jvp,
         lambda t, ans, bias, a, b, beta, alpha: _times(matmul(t, b), alpha),
         lambda t, ans, bias, a, b, beta, alpha: _times(matmul(a, t), alpha)))


def _check_mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input._shape[1] != vec._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._shape[0]}), mat ({_shape_str(input._shape)}), "
                           f"vec ({vec._shape[0]})")


def _raw_mv(mat, vec):
    """``mat @ vec`` outside the graph, as a fresh tensor."""
    n, m = mat._shape
    col = tape.plain(vec)._view((m, 1), (vec._strides[0], 0))
    r = _raw_product(tape.plain(mat), col, (n, 1))
    return r._view((n,), (r._strides[0],))


@op_event("aten::addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """addmv(input, mat, vec, *, beta=1, alpha=1) -> Tensor: beta * input + alpha * (mat @ vec)."""
    _same_dtype3("addmv", input, mat, vec)
    _check_mv(mat, vec)
    _refuse_bool(mat, vec, "addmv_impl_cpu")
    if input.ndim > 1 or input.ndim == 1 and input._shape[0] not in (1, mat._shape[0]):
        raise RuntimeError(f"size mismatch, got input ({', '.join(map(str, input._shape))}), mat "
                           f"({_shape_str(mat._shape)}), vec ({vec._shape[0]})")
    return _fused(_addmv_op, (input, mat, vec), _raw_mv(mat, vec), beta, alpha, out)


_addmv_op = primitive(
    "addmv", 3,
    vjp=(_bias_vjp,
         lambda g, ans, bias, a, v, beta, alpha: _times(g.unsqueeze(1) * v, alpha),
         lambda g, ans, bias, a, v, beta, alpha: _times(mv(a.t(), g), alpha)),
    jvp=(_bias_jvp,
         lambda t, ans, bias, a, v, beta, alpha: _times(mv(t, v), alpha),
         lambda t, ans, bias, a, v, beta, alpha: _times(mv(a, t), alpha)))


@op_event("aten::addr")
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """addr(input, vec1, vec2, *, beta=1, alpha=1) -> Tensor: beta * input + alpha * outer(vec1, vec2)."""
    r = outer(tape.plain(vec1), tape.plain(vec2))
    return _fused(_addr_op, (input, vec1, vec2), r, beta, alpha, out)


_addr_op = primitive(
    "addr", 3,
    vjp=(_bias_vjp,
         lambda g, ans, bias, u, v, beta, alpha: _times(mv(g, v.to(g.dtype)), alpha),
         lambda g, ans, bias, u, v, beta, alpha: _times(mv(g.t(), u.to(g.dtype)), alpha)),
    jvp=(_bias_jvp,
         lambda t, ans, bias, u, v, beta, alpha: _times(outer(t, v), alpha),
         lambda t, ans, bias, u, v, beta, alpha: _times(outer(u, t), alpha)))


@op_event("aten::baddbmm", autocast="lower")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor: beta * input + alpha * bmm(batch1, batch2)."""
    if not (input.dtype is batch1.dtype is batch2.dtype):
        raise RuntimeError(f"Input dtypes must be the same, got: input {dtypes.C_NAMES[input.dtype]}, batch1: "
                           f"{dtypes.C_NAMES[batch1.dtype]}, batch2: {dtypes.C_NAMES[batch2.dtype]}")
    _check_bmm(batch1, batch2, "baddbmm")
    b, n, _ = batch1._shape
    r = _raw_product(_wide(tape.plain(batch1)), _wide(tape.plain(batch2)), (b, n, batch2._shape[2]))
    return _fused(_baddbmm_op, (input, batch1, batch2), r, beta, alpha, out)


# addmm's rules hold for stacks of matrices: matmul batches them.
_baddbmm_op = primitive("baddbmm", 3, vjp=_addmm_op.vjp, jvp=_addmm_op.jvp)


def _batch_sum_product(batch1, batch2):
    # The sum over the batch is one gemm over the concatenated inner dims.
    n, p = batch1._shape[1], batch2._shape[2]
    k = batch1._shape[0] * batch1._shape[2]
    return mm(batch1.permute(1, 0, 2).reshape(n, k), batch2.reshape(k, p))


@op_event("aten::addbmm", autocast="lower")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor: beta * input + alpha * sum_i batch1[i] @ batch2[i]."""
    _check_bmm(batch1, batch2)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {torch_type_name(input.dtype)} "
                           f"and {torch_type_name(batch1.dtype)}")
    r = _batch_sum_product(_wide(tape.plain(batch1)), _wide(tape.plain(batch2)))
    return _fused(_addbmm_op, (input, batch1, batch2), r, beta, alpha, out)


_addbmm_op = primitive(
    "addbmm", 3,
    vjp=(_bias_vjp,
         lambda g, ans, bias, a, b, beta, alpha: _times(matmul(g, b.mT), alpha),
         lambda g, ans, bias, a, b, beta, alpha: _times(matmul(a.mT, g), alpha)),
    jvp=(_bias_jvp,
         lambda t, ans, bias, a, b, beta, alpha: _times(_batch_sum_product(t, b), alpha),
         lambda t, ans, bias, a, b, beta, alpha: _times(_batch_sum_product(a, t), alpha)))


def tensordot(a, b, dims=2, out=None):
    """tensordot(a, b, dims=2) -> Tensor: contracts the last ``dims`` dims of ``a`` with the first
    ``dims`` of ``b``, or the dims listed in ``dims = (dims_a, dims_b)``."""
    if isinstance(dims, int) or hasattr(dims, "item") and dims.ndim == 0:
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        da, db = list(range(a.ndim - n, a.ndim)), list(range(n))
        shown_a = list(range(-n, 0))
    else:
        da, db = (list(d.tolist() if hasattr(d, "tolist") else d) for d in dims)
        da = [d if isinstance(d, int) else int(d) for d in (da if isinstance(da, list) else [da])]
        db = [d if isinstance(d, int) else int(d) for d in (db if isinstance(db, list) else [db])]
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        shown_a = da
    for sa, x, y in zip(shown_a, da, db):
        if a._shape[shapes.normalize_dim(x, a.ndim)] != b._shape[shapes.normalize_dim(y, b.ndim)]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a._shape[x]} in dim {sa} and second "
                f"has size {b._shape[y]} in dim {y}")
    da = [shapes.normalize_dim(d, a.ndim) for d in da]
    db = [shapes.normalize_dim(d, b.ndim) for d in db]
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = shapes.prod(a._shape[d] for d in da)
    # Sizes spelled out, not -1: with a contracted size 0, -1 would be ambiguous.
    am = a.permute(free_a + da).reshape(shapes.prod(a._shape[d] for d in free_a), k)
    bm = b.permute(db + free_b).reshape(k, shapes.prod(b._shape[d] for d in free_b))
    r = mm(am, bm).reshape(tuple(a._shape[d] for d in free_a) + tuple(b._shape[d] for d in free_b))
    return _write_out(r, out, "tensordot")


@op_event("aten::kron")
def kron(input, other, *, out=None):
    """kron(input, other) -> Tensor: the Kronecker product."""
    nd = max(input.ndim, other.ndim)
    sa = (1,) * (nd - input.ndim) + tuple(input._shape)
    sb = (1,) * (nd - other.ndim) + tuple(other._shape)
    a = input.reshape(tuple(s for d in sa for s in (d, 1)))
    b = other.reshape(tuple(s for d in sb for s in (1, d)))
    return _write_out((a * b).reshape(tuple(x * y for x, y in zip(sa, sb))), out, "kron")
