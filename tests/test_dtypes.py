"""dtype objects, the default dtype, conversions and PyTorch's type promotion."""
import itertools

import numpy as np
import pytest

import numgrad

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, 2, -3, 2.5]


def _operand(mod, name, zero_dim):
    return mod.zeros(() if zero_dim else (2,), dtype=getattr(mod, name))


@needs_torch
@pytest.mark.parametrize("a", NAMES)
def test_result_type_matches_pytorch_for_all_pairs(a):
    for b, za, zb in itertools.product(NAMES, (False, True), (False, True)):
        want = torch.result_type(_operand(torch, a, za), _operand(torch, b, zb))
        got = numgrad.result_type(_operand(numgrad, a, za), _operand(numgrad, b, zb))
        assert got.name == str(want).replace("torch.", ""), (a, b, za, zb)
        want_p = torch.promote_types(getattr(torch, a), getattr(torch, b))
        assert numgrad.promote_types(getattr(numgrad, a), getattr(numgrad, b)).name == \
            str(want_p).replace("torch.", "")


@needs_torch
@pytest.mark.parametrize("a", NAMES)
def test_result_type_with_python_scalars_matches_pytorch(a):
    for s, zero_dim in itertools.product(SCALARS, (False, True)):
        want = torch.result_type(_operand(torch, a, zero_dim), s)
        got = numgrad.result_type(_operand(numgrad, a, zero_dim), s)
        assert got.name == str(want).replace("torch.", ""), (a, s, zero_dim)


@needs_torch
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_result_type_follows_the_default_dtype(default):
    old = numgrad.get_default_dtype()
    numgrad.set_default_dtype(getattr(numgrad, default))
    try:
        assert numgrad.result_type(numgrad.tensor([1, 2]), 2.5).name == default
        assert numgrad.tensor([1.5]).dtype.name == default
        assert numgrad.arange(2.0).dtype.name == default
    finally:
        numgrad.set_default_dtype(old)


def test_promotion_rules_without_torch():
    i64, i32, u8 = numgrad.tensor([1, 2]), numgrad.tensor([1, 2], dtype=numgrad.int32), \
        numgrad.tensor([1], dtype=numgrad.uint8)
    assert (i64 / 2).dtype is numgrad.float32          # true division of integers gives a float
    assert (i64 * 2.5).dtype is numgrad.float32        # a Python float gives the default float
    assert (i32 + 5).dtype is numgrad.int32            # a Python int never widens an int tensor
    assert (i32 + numgrad.tensor(5)).dtype is numgrad.int32    # neither does a 0-d int64 tensor
    assert (i32 + numgrad.tensor(5.0, dtype=numgrad.float64)).dtype is numgrad.float64  # 0-d float: its own
    assert (u8 + numgrad.tensor([1], dtype=numgrad.int8)).dtype is numgrad.int16
    assert (numgrad.tensor([True]) + True).dtype is numgrad.bool
    assert (numgrad.tensor([True]) + 1).dtype is numgrad.int64
    h = numgrad.tensor([1.0], dtype=numgrad.float16)
    assert (h + 1.0).dtype is numgrad.float16 and (h + i64).dtype is numgrad.float16


def test_dtype_objects():
    assert numgrad.float32.is_floating_point and not numgrad.int32.is_floating_point
    assert [getattr(numgrad, n).itemsize for n in NAMES] == [1, 1, 1, 2, 4, 8, 2, 4, 8]
    assert numgrad.float64.numpy == np.float64 and numgrad.bool.numpy == np.bool_
    assert numgrad.long is numgrad.int64 and numgrad.double is numgrad.float64 and numgrad.half is numgrad.float16
    assert numgrad.float is numgrad.float32 and numgrad.int is numgrad.int32 and numgrad.short is numgrad.int16
    assert repr(numgrad.float32) == "numgrad.float32"
    assert numgrad.get_default_dtype() is numgrad.float32
    with pytest.raises(TypeError, match="only floating-point types"):
        numgrad.set_default_dtype(numgrad.int64)


def test_conversions():
    x = numgrad.tensor([1.7, -2.2])
    assert x.double().dtype is numgrad.float64
    assert x.long().tolist() == [1, -2] and x.int().dtype is numgrad.int32
    assert x.half().dtype is numgrad.float16 and x.bool().tolist() == [True, True]
    assert x.float() is x and x.to(numgrad.float32) is x
    assert x.to(numgrad.float32, copy=True) is not x
    assert x.type(numgrad.float64).dtype is numgrad.float64
    assert x.type() == "torch.FloatTensor" and x.long().type() == "torch.LongTensor"
    assert x.type("torch.IntTensor").dtype is numgrad.int32
    assert x.to(numgrad.tensor([1], dtype=numgrad.int16)).dtype is numgrad.int16
    assert x.to("cpu", numgrad.float64).dtype is numgrad.float64
    assert x.to(device="cpu", dtype=numgrad.int8).tolist() == [1, -2]
    h = numgrad.tensor([0.1, 65504.0], dtype=numgrad.float16)
    np.testing.assert_array_equal(h.float().numpy(), np.array([0.1, 65504.0], dtype=np.float16).astype(np.float32))
    assert x.is_floating_point() and not x.long().is_floating_point()
    assert x.element_size() == 4 and x.double().itemsize == 8 and x.nbytes == 8


def test_dtype_view_reinterprets_memory():
    x = numgrad.zeros(4, dtype=numgrad.int32)
    y = x.view(numgrad.float32)
    assert y.dtype is numgrad.float32 and y.data_ptr() == x.data_ptr()
    y.fill_(1.0)
    assert x.tolist() == [1065353216] * 4 and x._version == y._version
    assert x.view(numgrad.int64).shape == (2,) and x.view(numgrad.uint8).shape == (16,)
    with pytest.raises(RuntimeError, match="self.size\\(-1\\) must be divisible by 2"):
        numgrad.zeros(3, dtype=numgrad.int32).view(numgrad.int64)
    with pytest.raises(RuntimeError, match="self.stride\\(-1\\) must be 1"):
        numgrad.zeros(2, 4, dtype=numgrad.int32).t().view(numgrad.int64)
