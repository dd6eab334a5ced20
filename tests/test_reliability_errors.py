"""Exception types PyTorch raises where numgrad once raised others: running out of host memory,
out-of-range index_add_, dtypes an op has no kernel for. Each case is written against a module
``m`` (numgrad, or torch when it is installed) and checks the exact exception type, since
NotImplementedError and IndexError-versus-RuntimeError are what a caller's ``except`` sees.
"""
import re

import pytest

import numgrad

try:
    import torch
except ImportError:
    torch = None

# 2**46 float32 elements, 256 TiB: more than a process can address, so every allocator refuses.
_BIG = 1 << 23


def _no_kernel(kernel, type_name):
    return NotImplementedError, f'"{kernel}" not implemented for \'{type_name}\''


_SUB_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")


def _bools(m):
    return m.tensor([True, False]), m.tensor([True, False])


DTYPE_CASES = {
    "abs_bool": (lambda m: m.abs(_bools(m)[0]),) + _no_kernel("abs_cpu", "Bool"),
    "floor_bool": (lambda m: m.floor(_bools(m)[0]),) + _no_kernel("floor_vml_cpu", "Bool"),
    "ceil_bool": (lambda m: m.ceil(_bools(m)[0]),) + _no_kernel("ceil_vml_cpu", "Bool"),
    "round_bool": (lambda m: m.round(_bools(m)[0]),) + _no_kernel("round_vml_cpu", "Bool"),
    "trunc_bool": (lambda m: m.trunc(_bools(m)[0]),) + _no_kernel("trunc_vml_cpu", "Bool"),
    "pow_bool": (lambda m: m.pow(*_bools(m)),) + _no_kernel("pow", "Bool"),
    "lshift_bool": (lambda m: m.bitwise_left_shift(*_bools(m)),) + _no_kernel("lshift_cpu", "Bool"),
    "rshift_bool": (lambda m: m.bitwise_right_shift(*_bools(m)),) + _no_kernel("rshift_cpu", "Bool"),
    # The divisor holds a zero: the missing kernel is reported before any division by zero.
    "fmod_bool": (lambda m: m.fmod(*_bools(m)),) + _no_kernel("fmod_cpu", "Bool"),
    "remainder_bool": (lambda m: m.remainder(*_bools(m)),) + _no_kernel("remainder_cpu", "Bool"),
    "floor_divide_bool": (lambda m: m.floor_divide(*_bools(m)),) + _no_kernel("div_floor_cpu", "Bool"),
    "div_trunc_bool": (lambda m: m.div(*_bools(m), rounding_mode="trunc"),) + _no_kernel("div_trunc_cpu", "Bool"),
    "div_floor_bool": (lambda m: m.div(*_bools(m), rounding_mode="floor"),) + _no_kernel("div_floor_cpu", "Bool"),
    "fmod_bool_by_int_zero": (lambda m: m.fmod(_bools(m)[0], 0), RuntimeError, "ZeroDivisionError"),
    "neg_bool": (lambda m: -_bools(m)[0], RuntimeError,
                 "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
                 "use the `~` or `logical_not()` operator instead."),
    "relu_bool": (lambda m: m.relu(_bools(m)[0]), RuntimeError, "Boolean inputs not supported for relu"),
    "sub_bool_float": (lambda m: _bools(m)[0] - m.ones(2), RuntimeError, _SUB_BOOL),
    "rsub_float_bool": (lambda m: 1.0 - _bools(m)[0], RuntimeError, _SUB_BOOL),
    "sub_python_bool": (lambda m: m.ones(2) - True, RuntimeError, _SUB_BOOL),
    "sub_inplace_bool": (lambda m: m.ones(2).sub_(_bools(m)[0]), RuntimeError, _SUB_BOOL),
    "sub_alpha_bool": (lambda m: m.sub(m.ones(2), _bools(m)[0], alpha=2), RuntimeError, _SUB_BOOL),
    "softmax_long": (lambda m: m.softmax(m.tensor([1, 2]), 0),) + _no_kernel("softmax_lastdim_kernel_impl", "Long"),
    "log_softmax_int": (lambda m: m.tensor([1, 2], dtype=m.int32).log_softmax(0),)
    + _no_kernel("log_softmax_lastdim_kernel_impl", "Int"),
    "bincount_float": (lambda m: m.bincount(m.tensor([1.0])),) + _no_kernel("bincount_cpu", "Float"),
    "bincount_float_2d": (lambda m: m.bincount(m.ones(2, 2)),) + _no_kernel("bincount_cpu", "Float"),
    "bincount_bool": (lambda m: m.bincount(m.tensor([True])),) + _no_kernel("bincount_cpu", "Bool"),
    "bincount_2d": (lambda m: m.bincount(m.tensor([[1]])), RuntimeError,
                    "bincount only supports 1-d non-negative integral inputs."),
    "det_half": (lambda m: m.linalg.det(m.eye(2).half()),) + _no_kernel("lu_cpu", "Half"),
    "solve_half": (lambda m: m.linalg.solve(m.eye(2).half(), m.eye(2).half()),) + _no_kernel("lu_cpu", "Half"),
    "cholesky_half": (lambda m: m.linalg.cholesky(m.eye(2).half()),) + _no_kernel("cholesky_cpu", "Half"),
    "qr_half": (lambda m: m.linalg.qr(m.eye(2).half()),) + _no_kernel("geqrf_cpu", "Half"),
    "svd_half": (lambda m: m.linalg.svd(m.eye(2).half()),) + _no_kernel("linalg_svd_cpu", "Half"),
    "svdvals_half": (lambda m: m.linalg.svdvals(m.eye(2).half()),) + _no_kernel("linalg_svd_cpu", "Half"),
    "eigh_half": (lambda m: m.linalg.eigh(m.eye(2).half()),) + _no_kernel("linalg_eigh_cpu", "Half"),
    "eigvalsh_long": (lambda m: m.linalg.eigvalsh(m.eye(2).long()),) + _no_kernel("linalg_eigh_cpu", "Long"),
    "eigh_bool": (lambda m: m.linalg.eigh(m.eye(2).bool()),) + _no_kernel("linalg_eigh_cpu", "Bool"),
    "torch_cholesky_int": (lambda m: m.cholesky(m.eye(2).int()),) + _no_kernel("cholesky_cpu", "Int"),
    "inv_half": (lambda m: m.linalg.inv(m.eye(2).half()), RuntimeError,
                 "linalg.inv: Low precision dtypes not supported. Got Half"),
    "det_long": (lambda m: m.linalg.det(m.eye(2).long()), RuntimeError,
                 "linalg.det: Expected a floating point or complex tensor as input. Got Long"),
    "layer_norm_int": (lambda m: m.nn.functional.layer_norm(m.ones(2, 3, dtype=m.int32), [3]),)
    + _no_kernel("LayerNormKernelImpl", "Int"),
    "batch_norm_long": (lambda m: m.nn.functional.batch_norm(m.ones(2, 3).long(), m.zeros(3), m.ones(3)),)
    + _no_kernel("batch_norm", "Long"),
    "mse_loss_int": (lambda m: m.nn.functional.mse_loss(m.ones(3, dtype=m.int32), m.ones(3).long()),)
    + _no_kernel("mse_cpu", "Long"),
    "mse_loss_bool": (lambda m: m.nn.functional.mse_loss(*_bools(m)),) + _no_kernel("mse_cpu", "Bool"),
    "huber_loss_long": (lambda m: m.nn.functional.huber_loss(m.ones(3).long(), m.ones(3).long()),)
    + _no_kernel("huber_cpu", "Long"),
    "smooth_l1_loss_long": (lambda m: m.nn.functional.smooth_l1_loss(m.ones(3).long(), m.ones(3).long()),)
    + _no_kernel("smooth_l1_cpu", "Long"),
    "nll_loss_long": (lambda m: m.nn.functional.nll_loss(m.ones(2, 3).long(), m.tensor([0, 1])),)
    + _no_kernel("nll_loss_out_frame", "Long"),
    "nll_loss2d_bool": (lambda m: m.nn.functional.nll_loss(m.ones(2, 3, 4).bool(), m.zeros(2, 4).long()),)
    + _no_kernel("nll_loss2d_forward_out_frame", "Bool"),
    "mv_bool": (lambda m: m.mv(m.ones(2, 3).bool(), m.ones(3).bool()),) + _no_kernel("addmv_impl_cpu", "Bool"),
    "addmv_bool": (lambda m: m.addmv(m.ones(2).bool(), m.ones(2, 3).bool(), m.ones(3).bool()),)
    + _no_kernel("addmv_impl_cpu", "Bool"),
    "bmm_bool": (lambda m: m.bmm(m.ones(2, 2, 3).bool(), m.ones(2, 3, 2).bool()),) + _no_kernel("bmm", "Bool"),
    "baddbmm_bool": (lambda m: m.baddbmm(m.ones(2, 2, 2).bool(), m.ones(2, 2, 3).bool(), m.ones(2, 3, 2).bool()),)
    + _no_kernel("baddbmm", "Bool"),
    "matmul_stack_by_matrix_bool": (lambda m: m.ones(2, 2, 3).bool() @ m.ones(3, 2).bool(),)
    + _no_kernel("addmm_impl_cpu_", "Bool"),
    "binary_cross_entropy_long": (lambda m: m.nn.functional.binary_cross_entropy(m.ones(3).long(), m.ones(3).long()),)
    + _no_kernel("binary_cross_entropy", "Long"),
    "binary_cross_entropy_empty_bool": (
        lambda m: m.nn.functional.binary_cross_entropy(m.ones(0).bool(), m.ones(0).bool()),)
    + _no_kernel("binary_cross_entropy", "Bool"),
    "max_pool2d_bool": (lambda m: m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4).bool(), 2),)
    + _no_kernel("max_pool2d", "Bool"),
    "avg_pool2d_bool": (lambda m: m.nn.functional.avg_pool2d(m.ones(1, 4, 4).bool(), 2),) + _no_kernel("avg_pool2d", "Bool"),
    "avg_pool2d_uint8": (lambda m: m.nn.functional.avg_pool2d(m.ones(1, 4, 4).byte(), 2),)
    + _no_kernel("avg_pool2d", "Byte"),
    "avg_pool2d_int": (lambda m: m.nn.functional.avg_pool2d(m.ones(1, 4, 4).int(), 2),) + _no_kernel("avg_pool2d", "Int"),
    # The window's geometry is checked before the dtype.
    "avg_pool2d_int_window_too_large": (lambda m: m.nn.functional.avg_pool2d(m.ones(1, 4, 4).int(), 5), RuntimeError,
                                        "Given input size: (1x4x4). Calculated output size: (1x0x0). Output size "
                                        "is too small"),
    "max_pool2d_empty_width": (lambda m: m.nn.functional.max_pool2d(m.ones(1, 1, 4, 0), 2), RuntimeError,
                               "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                               "got:[1, 1, 4, 0]"),
    "avg_pool2d_unbatched_empty_channels": (lambda m: m.nn.functional.avg_pool2d(m.ones(0, 4, 4), 2), RuntimeError,
                                            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                                            "input, but got:[0, 4, 4]"),
}


def _index_add(shape, dim, index):
    def call(m):
        src = list(shape)
        if src:
            src[dim] = 1
        return m.zeros(shape).index_add_(dim, m.tensor([index]), m.ones(src))
    return call


_OUT_OF_RANGE = (IndexError, "index out of range in self")
INDEX_ADD_CASES = {
    # 0-d and 1-d tensors, and the middle dims of larger ones, are added slice by slice.
    "0d": (_index_add((), 0, 1),) + _OUT_OF_RANGE,
    "1d": (_index_add((3,), 0, 3),) + _OUT_OF_RANGE,
    "1d_negative": (_index_add((3,), 0, -1),) + _OUT_OF_RANGE,
    "1d_empty": (_index_add((0,), 0, 5),) + _OUT_OF_RANGE,
    "3d_middle": (_index_add((3, 2, 4), 1, 2),) + _OUT_OF_RANGE,
    "4d_middle": (_index_add((3, 4, 5, 6), 2, -1),) + _OUT_OF_RANGE,
    # The outer and innermost dims of larger tensors go through index_put_.
    "2d_outer": (_index_add((3, 2), 0, 3), RuntimeError, "index 3 is out of bounds for dimension 0 with size 3"),
    "2d_negative": (_index_add((3, 2), 0, -1), RuntimeError, "index -1 is out of bounds for dimension 0 with size 3"),
    "2d_inner": (_index_add((3, 2), 1, 2), RuntimeError, "index 2 is out of bounds for dimension 1 with size 2"),
    "3d_inner": (_index_add((3, 2, 4), 2, 4), RuntimeError, "index 4 is out of bounds for dimension 2 with size 4"),
}


def _check(fn, exc, message, m):
    with pytest.raises(Exception) as info:
        fn(m)
    assert type(info.value) is exc, f"{type(info.value).__name__}: {info.value}"
    assert str(info.value) == message


@pytest.mark.parametrize("name", list(DTYPE_CASES) + list(INDEX_ADD_CASES))
def test_numgrad_raises_pytorchs_exception(name):
    _check(*{**DTYPE_CASES, **INDEX_ADD_CASES}[name], numgrad)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("name", list(DTYPE_CASES) + list(INDEX_ADD_CASES))
def test_torch_agrees(name):
    _check(*{**DTYPE_CASES, **INDEX_ADD_CASES}[name], torch)


def test_index_add_of_an_empty_tensor_checks_nothing():
    # PyTorch returns before looking at the indices once a tensor of 2 or more dims is empty.
    assert numgrad.zeros(0, 3).index_add_(1, numgrad.tensor([5]), numgrad.ones(0, 1)).shape == (0, 3)
    assert numgrad.zeros(3, 0, 2).index_add_(0, numgrad.tensor([5]), numgrad.ones(1, 0, 2)).shape == (3, 0, 2)


def _outer(m, dtype="float32"):
    d = getattr(m, dtype)
    return m.ones(_BIG, 1, dtype=d), m.ones(1, _BIG, dtype=d)


OOM_CASES = {
    "add": (lambda m: m.add(*_outer(m)), 4),
    "mul_int": (lambda m: m.mul(*_outer(m, "int64")), 8),
    "eq": (lambda m: m.eq(*_outer(m)), 1),
    "exp_expanded": (lambda m: _outer(m)[0].expand(_BIG, _BIG).exp(), 4),
    "add_float16": (lambda m: m.add(*_outer(m, "float16")), 2),
    "where": (lambda m: m.where(_outer(m)[0] > 0, *_outer(m)), 4),
    "matmul": (lambda m: m.matmul(*_outer(m)), 4),
    "mm_float64": (lambda m: m.mm(*_outer(m, "float64")), 8),
    "bmm": (lambda m: m.bmm(_outer(m)[0][None], _outer(m)[1][None]), 4),
    "matmul_int": (lambda m: m.matmul(*_outer(m, "int64")), 8),
    "outer": (lambda m: m.outer(m.ones(_BIG), m.ones(_BIG)), 4),
    # Counts for the values 0 to 2**46: one more than 2**46.
    "bincount": (lambda m: m.bincount(m.tensor([1 << 46])), 8, 1),
    "bincount_minlength": (lambda m: m.bincount(m.tensor([1]), minlength=1 << 46), 8),
    "bincount_weights": (lambda m: m.bincount(m.tensor([1 << 46]), weights=m.tensor([1.0])), 4, 1),
    "repeat_interleave": (lambda m: m.repeat_interleave(m.tensor([1, 2]), m.tensor([1 << 45, 1 << 45])), 8),
    "repeat_interleave_counts": (lambda m: m.repeat_interleave(m.tensor([1 << 46])), 8),
}


@pytest.mark.parametrize("name", list(OOM_CASES))
def test_running_out_of_host_memory_is_pytorchs_runtime_error(name):
    fn, itemsize, *extra = OOM_CASES[name]
    nbytes = ((1 << 46) + sum(extra)) * itemsize
    with pytest.raises(RuntimeError) as info:
        fn(numgrad)
    assert type(info.value) is RuntimeError
    message = str(info.value)
    assert message.startswith("[enforce fail at alloc_cpu.cpp:")
    assert f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes." in message


def test_histc_with_too_many_bins_runs_out_of_memory():
    with pytest.raises(RuntimeError, match=re.escape(f"you tried to allocate {8 << 46} bytes")):
        numgrad.histc(numgrad.ones(2), bins=1 << 46)


# Calls PyTorch answers without reaching the kernel the dtype lacks: empty products (or an
# empty inner dim, all False), empty softmax inputs, integer pools PyTorch has kernels for.
NO_KERNEL_NEEDED = {
    "mm_bool_empty_inner": lambda m: m.mm(m.ones(2, 0).bool(), m.ones(0, 2).bool()),
    "mm_bool_empty_result": lambda m: m.mm(m.ones(2, 3).bool(), m.ones(3, 0).bool()),
    "mv_bool_empty_inner": lambda m: m.mv(m.ones(2, 0).bool(), m.ones(0).bool()),
    "addmv_bool_empty_inner": lambda m: m.addmv(m.ones(2).bool(), m.ones(2, 0).bool(), m.ones(0).bool()),
    "bmm_bool_empty": lambda m: m.bmm(m.ones(2, 0, 3).bool(), m.ones(2, 3, 2).bool()),
    "softmax_empty_long": lambda m: m.softmax(m.ones(0, 3).long(), 1),
    "log_softmax_empty_bool": lambda m: m.log_softmax(m.ones(0).bool(), 0),
    "max_pool2d_int": lambda m: m.nn.functional.max_pool2d(m.arange(16, dtype=m.int32).reshape(1, 4, 4), 2),
    "max_pool2d_batch_of_none": lambda m: m.nn.functional.max_pool2d(m.ones(0, 1, 4, 4), 2),
    "avg_pool2d_long": lambda m: m.nn.functional.avg_pool2d(m.arange(16).reshape(1, 4, 4), 2),
}


@pytest.mark.parametrize("name", list(NO_KERNEL_NEEDED))
def test_calls_that_need_no_missing_kernel_return(name):
    got = NO_KERNEL_NEEDED[name](numgrad)
    if torch is not None:
        want = NO_KERNEL_NEEDED[name](torch)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert got.tolist() == want.tolist()
