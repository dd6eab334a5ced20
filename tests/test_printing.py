"""Tensor printing: PyTorch's exact repr, print options, summaries, suffixes."""
import numpy as np
import pytest

import numgrad

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

_rng = np.random.default_rng(0)

# NumPy data printed by both libraries (dtypes kept as given).
CASES = {
    "float_1d": np.array([1.5, 2.0, 3.0], dtype=np.float32),
    "int_valued_float": np.ones((2, 2), dtype=np.float32),
    "negative_zero": np.array([0.0, -0.0], dtype=np.float32),
    "all_zero": np.zeros(3, dtype=np.float32),
    "small_sci": np.array([1e-5, 1.0], dtype=np.float32),
    "big_sci": np.array([1e10, 1.0], dtype=np.float32),
    "ratio_sci": np.array([0.5, 600.0], dtype=np.float32),
    "int_valued_sci": np.array([1.0, 1e9], dtype=np.float32),
    "nonfinite": np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float32),
    "only_nonfinite": np.array([np.nan, np.inf], dtype=np.float32),
    "mixed_width": np.array([-301.6976, 14.2, 0.001], dtype=np.float32),
    "randn_3d": _rng.standard_normal((4, 5, 6)).astype(np.float32) * 100,
    "float64": _rng.standard_normal((3, 3)),
    "float16": np.array([0.1, 2.5, -3.0], dtype=np.float16),
    "int64": np.arange(12).reshape(3, 4) - 5,
    "int32": np.array([[1, -20], [300, 4]], dtype=np.int32),
    "uint8": np.array([0, 255], dtype=np.uint8),
    "int8": np.array([-128, 127], dtype=np.int8),
    "int16": np.array([7], dtype=np.int16),
    "bool": np.array([[True, False], [False, True]]),
    "scalar_float": np.array(3.5, dtype=np.float32),
    "scalar_int": np.array(-7),
    "scalar_bool": np.array(True),
    "scalar_nan": np.array(np.nan, dtype=np.float32),
    "scalar_f64": np.array(1e-7),
    "empty_1d": np.zeros(0, dtype=np.float32),
    "empty_2d": np.zeros((0, 3), dtype=np.float32),
    "empty_int": np.zeros((2, 0), dtype=np.int64),
    "empty_f64": np.zeros(0),
    "wide_row": np.linspace(0, 1, 40, dtype=np.float32),
    "wide_ints": np.arange(100) * 12345,
    "summarized_1d": np.arange(2000, dtype=np.float32),
    "summarized_2d": np.arange(2000.0, dtype=np.float32).reshape(40, 50),
    "summarized_3d": _rng.standard_normal((12, 10, 11)).astype(np.float32),
    "summarized_int": np.arange(1001),
    "summarized_bool": np.arange(3000).reshape(30, 100) % 3 == 0,
    "five_d": np.arange(32, dtype=np.float32).reshape(2, 2, 2, 2, 2),
    "tall": np.arange(30, dtype=np.float32).reshape(30, 1) / 7,
}


def _torch_repr(t) -> str:
    return repr(t).replace("torch.", "numgrad.")


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_repr_matches_pytorch(name):
    arr = CASES[name]
    assert repr(numgrad.tensor(arr)) == _torch_repr(torch.tensor(arr))


@needs_torch
@pytest.mark.parametrize("options", [
    dict(precision=2), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
    dict(threshold=5), dict(edgeitems=1, threshold=10), dict(linewidth=40), dict(profile="short"),
    dict(profile="full"), dict(edgeitems=0, threshold=3),
])
@pytest.mark.parametrize("name", ["float_1d", "small_sci", "randn_3d", "int64", "summarized_2d", "wide_row"])
def test_print_options_match_pytorch(options, name):
    arr = CASES[name]
    old_t = torch._tensor_str.get_printoptions()
    old_n = numgrad.get_printoptions()
    try:
        torch.set_printoptions(**options)
        numgrad.set_printoptions(**options)
        assert repr(numgrad.tensor(arr)) == _torch_repr(torch.tensor(arr))
    finally:
        torch.set_printoptions(**old_t)
        numgrad.set_printoptions(**old_n)


@needs_torch
def test_views_print_like_pytorch():
    arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 3
    n, t = numgrad.tensor(arr), torch.tensor(arr)
    for f in (lambda x: x.transpose(0, 2), lambda x: x[:, ::2, 1:], lambda x: x[1, None],
              lambda x: x[0, 0, 0], lambda x: x.unsqueeze(1).expand(2, 5, 3, 4)):
        assert repr(f(n)) == _torch_repr(f(t))


@needs_torch
def test_autograd_suffixes_match_pytorch():
    arr = np.array([1.0, 2.0], dtype=np.float32)
    a, b = numgrad.tensor(arr, requires_grad=True), torch.tensor(arr, requires_grad=True)
    assert repr(a) == _torch_repr(b)
    assert repr(a + 1) == _torch_repr(b + 1)
    assert repr(numgrad.tensor(np.arange(30.0), requires_grad=True) * 2) == \
        _torch_repr(torch.tensor(np.arange(30.0), requires_grad=True) * 2)


def test_hard_coded_formats():
    assert repr(numgrad.ones(2, 2)) == "tensor([[1., 1.],\n        [1., 1.]])"
    assert repr(numgrad.tensor([1.5, 2, 3])) == "tensor([1.5000, 2.0000, 3.0000])"
    assert repr(numgrad.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(numgrad.tensor([1, 2], dtype=numgrad.int32)) == "tensor([1, 2], dtype=numgrad.int32)"
    assert repr(numgrad.tensor([True, False])) == "tensor([ True, False])"
    assert repr(numgrad.tensor(2.5)) == "tensor(2.5000)"
    assert repr(numgrad.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(numgrad.zeros(0, dtype=numgrad.int64)) == "tensor([], dtype=numgrad.int64)"
    assert repr(numgrad.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    assert repr(numgrad.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    x = numgrad.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x + x) == "tensor([2., 4.], grad_fn=<AddBackward0>)"
    assert str(numgrad.Size([2, 3])) == "numgrad.Size([2, 3])"


def test_default_dtype_changes_the_suffix():
    numgrad.set_default_dtype(numgrad.float64)
    try:
        assert repr(numgrad.tensor([1.5])) == "tensor([1.5000])"
        assert repr(numgrad.tensor([1.5], dtype=numgrad.float32)) == "tensor([1.5000], dtype=numgrad.float32)"
    finally:
        numgrad.set_default_dtype(numgrad.float32)


def test_huge_expanded_tensor_prints_from_its_edges():
    y = numgrad.ones(3, 2).unsqueeze(0).expand(10 ** 13, 3, 2)
    text = repr(y)
    assert text.startswith("tensor([[[1., 1.],\n         [1., 1.],")
    assert "\n        ...,\n\n" in text
    assert text.count("[1., 1.]") == 18


def test_printing_records_no_autograd(monkeypatch):
    from numgrad.autograd import tape
    x = numgrad.arange(3000.0).reshape(30, 100).requires_grad_()
    y = x * 2

    def fail(*args, **kwargs):
        raise AssertionError("printing recorded an autograd entry")

    monkeypatch.setattr(tape, "record", fail)
    assert "grad_fn=<MulBackward0>" in repr(y)
    assert "requires_grad=True" in repr(x)
    assert y.grad_fn is not None and x.grad_fn is None


def test_printoptions_context_restores():
    before = numgrad.get_printoptions()
    with numgrad.printoptions(precision=1):
        assert repr(numgrad.tensor([1.25])) == "tensor([1.2])"
    assert numgrad.get_printoptions() == before


def test_format_and_str():
    assert f"{numgrad.tensor(2.5):.1f}" == "2.5"
    assert str(numgrad.tensor([1, 2])) == "tensor([1, 2])"
