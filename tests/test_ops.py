"""Generic tests driven by the op table: every row of ``numgrad.testing.OP_DB`` checked against
NumPy over dtypes, shapes, strides, broadcasting, and its function, method, ``out=`` and
in-place forms."""
import os

import numpy as np
import pytest

import numgrad
from numgrad.testing import ALL_DTYPES, OP_DB, assert_close, noncontiguous_view, transposed_view

try:
    import torch
except ImportError:  # torch only sharpens the dtype checks
    torch = None

# Each (op, dtype) compiles its own kernels, so by default each row checks one of the narrow
# integer dtypes, in rotation over the table; NUMGRAD_TEST_ALL_DTYPES=1 checks all of them.
_NARROW = ("uint8", "int8", "int16", "int32")
_ALL_DTYPES = os.environ.get("NUMGRAD_TEST_ALL_DTYPES", "") not in ("", "0")
# Samples whose operands differ in shape or dtype compile extra kernel signatures too: they run
# for float32 and, in the same rotation, one integral dtype; other dtypes see same-shape samples.
_INTEGRAL = ("bool", "int64")


def _marks(info, test, dtype=None):
    """A strict xfail where the row's ``xfails`` names this test (or this test and dtype)."""
    reason = info.xfails.get(f"{test}-{dtype}") or info.xfails.get(test)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _rows(test, pred=lambda info: True):
    return [pytest.param(info, id=info.id, marks=_marks(info, test)) for info in OP_DB if pred(info)]


def _dtypes_for(index, info):
    narrow = [d for d in _NARROW if d in info.dtypes]
    keep = set(narrow) if _ALL_DTYPES or not narrow else {narrow[index % len(narrow)]}
    return [d for d in info.dtypes if d not in _NARROW or d in keep]


def _with_dtypes(test, pred=lambda info: True, unsupported=False, among=ALL_DTYPES):
    params = []
    for index, info in enumerate(OP_DB):
        if not pred(info):
            continue
        chosen = [d for d in ALL_DTYPES if d not in info.dtypes] if unsupported else _dtypes_for(index, info)
        params += [pytest.param(info, d, id=f"{info.id}-{d}", marks=_marks(info, test, d))
                   for d in chosen if d in among]
    return params


def _tensors(sample, make=numgrad.tensor):
    return [make(a) if isinstance(a, np.ndarray) else a for a in sample.args]


def _reference(info, sample, result_dtype):
    """NumPy's answer, computed in float64 when the result is floating, cast to ``result_dtype``."""
    widen = result_dtype.is_floating_point
    args = [a.astype(np.float64) if widen and isinstance(a, np.ndarray) and a.dtype != np.bool_ else a
            for a in sample.args]
    with np.errstate(all="ignore"):
        r = info.ref(*args, **sample.kwargs)
    return np.asarray(r).astype(result_dtype.numpy)


def _torch_dtype(info, sample):
    targs = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in sample.args]
    return str(getattr(torch, info.torch_name)(*targs, **sample.kwargs).dtype).replace("torch.", "")


def _samples(info, dtype):
    index = OP_DB.index(info)
    integral = [d for d in _INTEGRAL if d in info.dtypes]
    full = dtype == "float32" or _ALL_DTYPES or integral and dtype == integral[index % len(integral)]
    return [s for s in info.samples(dtype) if full or not s.broadcasts]


@pytest.mark.parametrize("info, dtype", _with_dtypes("values"))
def test_values_match_numpy(info, dtype):
    for sample in _samples(info, dtype):
        result = info.op(*_tensors(sample), **sample.kwargs)
        assert isinstance(result, numgrad.Tensor), sample
        if torch is not None and info.torch_name:
            assert result.dtype.name == _torch_dtype(info, sample), sample
        expected = _reference(info, sample, result.dtype)
        rtol, atol = info.tolerance(result.dtype)
        assert_close(result.numpy(), expected, rtol=rtol, atol=atol, msg=repr(sample))


@pytest.mark.parametrize("info, dtype", _with_dtypes("unsupported", unsupported=True))
def test_unsupported_dtypes_raise(info, dtype):
    sample = next(s for s in info.samples(dtype) if all(
        not isinstance(a, np.ndarray) or a.size for a in s.args))
    if torch is not None and info.torch_name:
        with pytest.raises((RuntimeError, TypeError)):
            targs = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in sample.args]
            getattr(torch, info.torch_name)(*targs, **sample.kwargs)
    with pytest.raises((RuntimeError, TypeError)):
        info.op(*_tensors(sample), **sample.kwargs)


def _test_dtype(info):
    for d in ("float32", "int64", "bool"):
        if d in info.dtypes:
            return d
    return info.dtypes[-1]


def _strided_variants(sample, invertible=False):
    """The sample's arrays as transposed, stepped and expanded tensors (with matching arrays).

    Expanding repeats the first dim; for ops that need ``invertible`` matrices, only a batch dim
    (a matrix with repeated rows is singular)."""
    arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
    if not any(a.ndim for a in arrays):
        return
    yield "transposed", sample.args, transposed_view
    yield "stepped", sample.args, noncontiguous_view

    def repeats(a):
        return isinstance(a, np.ndarray) and a.ndim > (2 if invertible else 0) and a.shape[0] > 1

    def expanded(a):
        if not repeats(a):
            return numgrad.tensor(a)
        return numgrad.tensor(np.ascontiguousarray(a[:1])).expand(*a.shape)
    squeezed = tuple(np.broadcast_to(a[:1], a.shape) if repeats(a) else a for a in sample.args)
    yield "expanded", squeezed, expanded


@pytest.mark.parametrize("info", _rows("noncontiguous"))
def test_noncontiguous_inputs(info):
    dtype = _test_dtype(info)
    for sample in info.samples(dtype):
        for how, args, make in _strided_variants(sample, info.invertible_inputs):
            tensors = [make(a) if isinstance(a, np.ndarray) else a for a in args]
            result = info.op(*tensors, **sample.kwargs)
            contiguous = [numgrad.tensor(a.copy(order="C")) if isinstance(a, np.ndarray) else a for a in args]
            expected = info.op(*contiguous, **sample.kwargs)
            rtol, atol = info.tolerance(expected.dtype)
            assert_close(result, expected, rtol=rtol, atol=atol, msg=f"{how} {sample!r}")


@pytest.mark.parametrize("info", _rows("method", lambda info: info.method is not None))
def test_method_form(info):
    dtype = _test_dtype(info)
    for sample in info.samples(dtype)[:6]:
        tensors = _tensors(sample)
        expected = info.op(*tensors, **sample.kwargs)
        result = getattr(tensors[0], info.method)(*tensors[1:], **sample.kwargs)
        assert_close(result, expected)


@pytest.mark.parametrize("info", _rows("out", lambda info: info.supports_out))
def test_out(info):
    dtype = _test_dtype(info)
    for sample in info.samples(dtype)[:8]:
        tensors = _tensors(sample)
        expected = info.op(*tensors, **sample.kwargs)
        out = numgrad.empty(0, dtype=expected.dtype)
        assert info.op(*tensors, **sample.kwargs, out=out) is out
        assert_close(out, expected)
        if expected.ndim == 2:
            # a transposed (non-contiguous) out is written through its strides
            out = numgrad.empty(expected.shape[1], expected.shape[0], dtype=expected.dtype).t()
            info.op(*tensors, **sample.kwargs, out=out)
            assert_close(out, expected)
        if expected.dtype.is_floating_point and info.kind == "elementwise":
            # float_power, always double, words the refusal its own way (as PyTorch's does).
            with pytest.raises(RuntimeError, match="can't be cast to the desired output type|"
                                                   "operation's result requires dtype Double"):
                info.op(*tensors, **sample.kwargs, out=numgrad.empty(0, dtype=numgrad.int64))


def _category(d):
    return 2 if d.is_floating_point else 0 if d is numgrad.bool else 1


@pytest.mark.parametrize("info, dtype", _with_dtypes("inplace", lambda info: info.inplace is not None,
                                                      among=("bool", "int64", "float32")))
def test_inplace(info, dtype):
    for sample in _samples(info, dtype):
        tensors = _tensors(sample)
        expected = info.op(*tensors, **sample.kwargs)
        self = numgrad.tensor(sample.args[0])
        version = self._version
        call = getattr(self, info.inplace)
        if tuple(expected.shape) != tuple(self.shape):
            with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
                call(*tensors[1:], **sample.kwargs)
        elif _category(expected.dtype) > _category(self.dtype):
            with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
                call(*tensors[1:], **sample.kwargs)
        else:
            assert call(*tensors[1:], **sample.kwargs) is self
            assert self._version > version
            assert_close(self, expected.to(self.dtype), msg=repr(sample))


def test_table_covers_declared_elementwise_ops():
    from numgrad.ops.records import OPS
    covered = {info.name for info in OP_DB}
    # Internal kernels reached through a public op with a row of its own.
    internal = {"trunc_divide", "copy", "add_scaled", "sub_scaled", "round_decimals"}
    missing = sorted(name for name, op in OPS.items()
                     if op.kind == "elementwise" and name not in covered and name not in internal)
    assert not missing, f"ops without an OpInfo row: {missing}"


def test_int_tensor_add_float_in_place_raises():
    x = numgrad.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        x.add_(1.5)
    assert x.tolist() == [1, 2, 3]


_OPERATORS = [
    ("add", lambda a, b: a + b, numgrad.add), ("sub", lambda a, b: a - b, numgrad.sub),
    ("mul", lambda a, b: a * b, numgrad.mul), ("truediv", lambda a, b: a / b, numgrad.div),
    ("floordiv", lambda a, b: a // b, numgrad.floor_divide), ("mod", lambda a, b: a % b, numgrad.remainder),
    ("pow", lambda a, b: a ** b, numgrad.pow), ("lt", lambda a, b: a < b, numgrad.lt),
    ("le", lambda a, b: a <= b, numgrad.le), ("gt", lambda a, b: a > b, numgrad.gt),
    ("ge", lambda a, b: a >= b, numgrad.ge), ("eq", lambda a, b: a == b, numgrad.eq),
    ("ne", lambda a, b: a != b, numgrad.ne),
]


@pytest.mark.parametrize("name, operator, fn", _OPERATORS, ids=[o[0] for o in _OPERATORS])
def test_python_operators(name, operator, fn):
    a = numgrad.tensor([[1.5, 2.0, 3.0], [4.0, 0.5, 2.5]])
    b = numgrad.tensor([2.0, 1.5, 0.5])
    assert_close(operator(a, b), fn(a, b))
    assert_close(operator(a, 2), fn(a, 2))
    assert_close(operator(3, a), fn(numgrad.full_like(a, 3), a))


@pytest.mark.parametrize("name, operator, fn", [
    ("and", lambda a, b: a & b, numgrad.bitwise_and), ("or", lambda a, b: a | b, numgrad.bitwise_or),
    ("xor", lambda a, b: a ^ b, numgrad.bitwise_xor), ("lshift", lambda a, b: a << b, numgrad.bitwise_left_shift),
    ("rshift", lambda a, b: a >> b, numgrad.bitwise_right_shift)], ids=lambda v: v if isinstance(v, str) else "")
def test_bitwise_operators(name, operator, fn):
    a = numgrad.tensor([[1, 6, 3], [12, 5, 7]])
    b = numgrad.tensor([2, 1, 3])
    assert_close(operator(a, b), fn(a, b))
    assert_close(~a, numgrad.bitwise_not(a))


def test_inplace_operators_keep_identity():
    x = numgrad.ones(2, 3)
    y = x
    x += 1
    x *= numgrad.tensor([1.0, 2.0, 3.0])
    x -= 0.5
    x /= 2
    assert x is y
    assert_close(x, numgrad.tensor([[0.75, 1.75, 2.75]] * 2))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x += numgrad.ones(4, 2, 3)


def test_clamp_nan_bounds_and_crossed_bounds():
    nan = float("nan")
    x = numgrad.tensor([1.0, nan, 3.0])
    for got in (numgrad.clamp(x, min=nan), numgrad.clamp(x, max=nan), x.clamp_min(nan), x.clamp_max(nan)):
        assert np.isnan(got.numpy()).all()
    assert_close(numgrad.clamp(x, 2.0, 1.0), numgrad.tensor([1.0, nan, 1.0]), equal_nan=True)
    # Where min > max every element is max, and the whole gradient goes to max.
    x = numgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lo = numgrad.tensor([2.0, 2.0, 2.0], requires_grad=True)
    hi = numgrad.tensor([1.0, 1.0, 5.0], requires_grad=True)
    numgrad.clamp(x, lo, hi).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]
    assert lo.grad.tolist() == [0.0, 0.0, 0.0]
    assert hi.grad.tolist() == [1.0, 1.0, 0.0]
    # A one-sided clamp of integers keeps their dtype.
    assert numgrad.arange(5, dtype=numgrad.uint8).clamp(min=3).tolist() == [3, 3, 3, 3, 4]
    assert numgrad.arange(5).clamp(max=2).dtype is numgrad.int64


def test_tensor_where_method():
    t = numgrad.arange(4.0)
    assert t.where(t > 1, numgrad.zeros(4)).tolist() == [0.0, 0.0, 2.0, 3.0]
    assert t.where(t > 1, 5.0).tolist() == [5.0, 5.0, 2.0, 3.0]


def test_integer_scalars_wrap_to_narrow_dtypes():
    # As PyTorch converts a Python int operand: modulo 2**bits of the tensor's dtype.
    x = numgrad.tensor([0, 5, 200], dtype=numgrad.uint8)
    assert (x + 300).tolist() == [44, 49, 244]
    assert (x + -1).tolist() == [255, 4, 199]
    assert numgrad.clamp(x, -1, 1).tolist() == [1, 1, 1]
    assert (numgrad.tensor([1, 2], dtype=numgrad.int8) * 200).tolist() == [-56, -112]
