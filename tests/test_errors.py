"""PyTorch's exception types and messages for invalid calls, checked before any kernel runs.

Each case is written against a module ``m`` (numgrad, or torch when it is installed) so that
the expected messages are checked against PyTorch itself as well.
"""
import re

import pytest

import numgrad

try:
    import torch
except ImportError:
    torch = None


def _setitem(m):
    x = m.zeros(3)
    x[5] = 1


CASES = {
    # broadcasting and in-place shapes
    "broadcast": (lambda m: m.ones(2, 3) + m.ones(2, 4), RuntimeError,
                  "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    "broadcast_3d": (lambda m: m.ones(5, 1, 3) * m.ones(2, 4, 1), RuntimeError,
                     "The size of tensor a (5) must match the size of tensor b (2) at non-singleton dimension 0"),
    "inplace_broadcast": (lambda m: m.zeros(2, 3).add_(m.zeros(4, 2, 3)), RuntimeError,
                          "output with shape [2, 3] doesn't match the broadcast shape [4, 2, 3]"),
    "inplace_dtype": (lambda m: m.tensor([1, 2]).add_(1.5), RuntimeError,
                      "result type Float can't be cast to the desired output type Long"),
    # views
    "view_strides": (lambda m: m.ones(2, 3).t().view(6), RuntimeError,
                     "view size is not compatible with input tensor's size and stride (at least one dimension "
                     "spans across two contiguous subspaces). Use .reshape(...) instead."),
    "view_size": (lambda m: m.ones(2, 3).view(4, 2), RuntimeError, "shape '[4, 2]' is invalid for input of size 6"),
    "view_two_inferred": (lambda m: m.ones(2, 3).view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    "reshape_size": (lambda m: m.ones(2, 3).reshape(5), RuntimeError, "shape '[5]' is invalid for input of size 6"),
    "expand": (lambda m: m.ones(2, 3).expand(3, 3), RuntimeError,
               "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0."
               "  Target sizes: [3, 3].  Tensor sizes: [2, 3]"),
    "permute_duplicate": (lambda m: m.ones(2, 3).permute(0, 0), RuntimeError,
                          "permute(): duplicate dims are not allowed."),
    "narrow": (lambda m: m.zeros(2, 3).narrow(1, 2, 2), RuntimeError, "start (2) + length (2) exceeds dimension size (3)."),
    # indices and dims
    "index": (lambda m: m.ones(2, 3)[2], IndexError, "index 2 is out of bounds for dimension 0 with size 2"),
    "negative_index": (lambda m: m.ones(2, 3)[:, -4], IndexError,
                       "index -4 is out of bounds for dimension 1 with size 3"),
    "too_many_indices": (lambda m: m.ones(2, 3)[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
    "setitem_index": (_setitem, IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    "select": (lambda m: m.ones(2, 3).select(1, 5), IndexError,
               "select(): index 5 out of range for tensor of size [2, 3] at dimension 1"),
    "dim_sum": (lambda m: m.ones(2, 3).sum(2), IndexError,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    "dim_transpose": (lambda m: m.ones(2, 3).transpose(0, 2), IndexError,
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    "dim_unsqueeze": (lambda m: m.zeros(2, 3).unsqueeze(3), IndexError,
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    # sizes
    "negative_size": (lambda m: m.ones(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    "negative_size_2d": (lambda m: m.empty(2, -3), RuntimeError,
                         "Trying to create tensor with negative dimension -3: [2, -3]"),
    "item": (lambda m: m.zeros(2, 3).item(), RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"),
    # dtypes
    "bitwise_and_float": (lambda m: m.ones(2) & m.ones(2), RuntimeError,
                          "\"bitwise_and_cpu\" not implemented for 'Float'"),
    "bitwise_not_float": (lambda m: m.ones(2).bitwise_not(), RuntimeError,
                          "\"bitwise_not_cpu\" not implemented for 'Float'"),
    "sub_bool": (lambda m: m.tensor([True]) - m.tensor([True]), RuntimeError,
                 "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                 "`logical_xor()` operator instead."),
    "mean_int": (lambda m: m.tensor([1, 2]).mean(), RuntimeError,
                 "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
                 "dtype. Got: Long"),
    "int_negative_pow": (lambda m: m.tensor([1, 2]) ** -1, RuntimeError,
                         "Integers to negative integer powers are not allowed."),
    # integer division by zero
    "floordiv_zero": (lambda m: m.tensor([1, 2]) // 0, RuntimeError, "ZeroDivisionError"),
    "remainder_zero": (lambda m: m.tensor([1, 2]) % m.tensor([1, 0]), RuntimeError, "ZeroDivisionError"),
    "div_floor_zero": (lambda m: m.div(m.tensor([1, 2]), 0, rounding_mode="floor"), RuntimeError,
                       "ZeroDivisionError"),
    "div_trunc_zero": (lambda m: m.div(m.tensor([1, 2]), m.tensor([0, 1]), rounding_mode="trunc"), RuntimeError,
                       "ZeroDivisionError"),
    "fmod_zero": (lambda m: m.fmod(m.tensor([1, 2]), 0), RuntimeError, "ZeroDivisionError"),
    # reductions
    "amax_empty": (lambda m: m.ones(0).amax(), RuntimeError,
                   "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                   "dim with the 'dim' argument."),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_message(name):
    fn, exc, message = CASES[name]
    with pytest.raises(exc, match=f"^{re.escape(message)}$"):
        fn(numgrad)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_torch_agrees(name):
    fn, exc, message = CASES[name]
    with pytest.raises(exc, match=f"^{re.escape(message)}$"):
        fn(torch)


def test_float_division_by_zero_is_ieee():
    x = numgrad.tensor([1.0, -1.0, 0.0])
    assert [str(v) for v in (x / 0).tolist()] == ["inf", "-inf", "nan"]
    assert [str(v) for v in (x // 0).tolist()] == ["inf", "-inf", "nan"]
    assert numgrad.isnan(numgrad.remainder(x, 0)).all()


def test_failed_division_leaves_output_untouched():
    out = numgrad.full((2,), 7)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        numgrad.floor_divide(numgrad.tensor([1, 2]), numgrad.tensor([1, 0]), out=out)
    assert out.tolist() == [7, 7]


@pytest.mark.parametrize("dtype, value, ctype", [("uint8", -2.0, "uint8_t"), ("uint8", 255.5, "uint8_t"),
                                                 ("int8", 300.0, "int8_t"), ("int16", float("nan"), "int16_t"),
                                                 ("int32", 1e10, "int"), ("int64", 1e30, "int64_t")])
def test_a_float_outside_an_integer_range_raises(dtype, value, ctype):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {ctype} without overflow"):
        numgrad.full((2,), value, dtype=getattr(numgrad, dtype))
    with pytest.raises(RuntimeError, match="without overflow"):
        numgrad.nn.functional.threshold(numgrad.zeros(2, dtype=getattr(numgrad, dtype)), value, 1.0)


def test_a_float_inside_an_integer_range_truncates():
    assert numgrad.full((1,), -3.7, dtype=numgrad.int8).tolist() == [-3]
    assert numgrad.full((1,), 255.0, dtype=numgrad.uint8).tolist() == [255]
    assert numgrad.nn.functional.threshold(numgrad.tensor([1, 5, 0], dtype=numgrad.uint8), 0.3, 2.7).tolist() == [1, 5, 2]
