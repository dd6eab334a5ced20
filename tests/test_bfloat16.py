"""bfloat16: a real dtype stored in 16 bits and computed in float32, rounded as PyTorch rounds;
checked against PyTorch's bfloat16 over the op table (values and gradients), and by hand for
conversions, promotion, printing, modules and the errors of ops PyTorch has no bfloat16 for."""
import math
import os
import sys

import ml_dtypes
import numpy as np
import pytest

import numgrad
from numgrad import testing as T

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch")
BF16 = np.dtype(ml_dtypes.bfloat16)


def _bits(t):
    return t.contiguous()._np_view().view(np.uint16)


# ------------------------------------------------------------------------------ the dtype
def test_dtype_properties():
    d = numgrad.bfloat16
    assert repr(d) == "numgrad.bfloat16" and d.itemsize == 2 and d.is_floating_point and d.is_signed
    info = numgrad.finfo(d)
    assert (info.bits, info.eps, info.resolution) == (16, 2.0 ** -7, 0.01)
    assert info.max == 3.3895313892515355e38 and info.tiny == 2.0 ** -126
    assert numgrad.tensor([1.0]).bfloat16().type() == "torch.BFloat16Tensor"
    assert numgrad.BFloat16Tensor([1.5]).dtype is d and numgrad.zeros(3, dtype=d).element_size() == 2


@needs_torch
def test_promotion_matches_torch():
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for a in names:
        for b in names:
            expect = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1]
            assert numgrad.promote_types(getattr(numgrad, a), getattr(numgrad, b)).name == expect, (a, b)
    x = numgrad.ones(2, dtype=numgrad.bfloat16)
    assert (x + 1).dtype is (x * 2.5).dtype is (x + numgrad.tensor(1.0)).dtype is numgrad.bfloat16
    assert (x + numgrad.ones(2)).dtype is numgrad.float32 and (x + numgrad.ones(2).half()).dtype is numgrad.float32


def test_float32_rounds_to_nearest_even():
    # Halfway cases go to the even neighbour; beyond the largest bfloat16 they round to inf.
    f = np.array([1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 1.0 + 2.0 ** -8 + 2.0 ** -20, 3.4e38, 3.39e38, -0.0, 1e-40],
                 np.float32)
    got = numgrad.tensor(f).bfloat16().float().numpy()
    assert got[0] == 1.0 and got[1] == 1.0 + 2.0 ** -6 and got[2] == 1.0 + 2.0 ** -7
    assert got[3] == math.inf and got[4] == 3.3895313892515355e38
    assert math.copysign(1.0, got[5]) == -1.0 and got[6] == np.float32(1e-40).astype(BF16).astype(np.float32)


@needs_torch
def test_conversions_match_torch_bit_for_bit():
    rng = np.random.default_rng(0)
    f32 = np.concatenate([rng.standard_normal(5000), rng.uniform(-1e38, 1e38, 500), rng.uniform(-1e-38, 1e-38, 500),
                          [0.0, -0.0, math.inf, -math.inf, 65504.0, 3.39e38, 3.4e38]]).astype(np.float32)
    assert np.array_equal(_bits(numgrad.tensor(f32).bfloat16()), torch.from_numpy(f32).bfloat16().view(torch.int16)
                          .numpy().view(np.uint16))
    # Python numbers and float64 go through float32 first, as PyTorch converts a double.
    values = [0.1, 1 / 3, 1.0 + 2.0 ** -8 + 2.0 ** -30, 2.0 ** 40 + 1, -7.25, 1e39]
    for v in values:
        assert _bits(numgrad.tensor([v], dtype=numgrad.bfloat16)).tolist() == \
            torch.tensor([v], dtype=torch.bfloat16).view(torch.int16).numpy().view(np.uint16).tolist(), v
        if abs(v) < 3.3e38:
            assert numgrad.full((2,), v, dtype=numgrad.bfloat16)[0].item() == \
                torch.full((2,), v, dtype=torch.bfloat16)[0].item()
        else:
            with pytest.raises(RuntimeError, match="c10::BFloat16 without overflow"):
                numgrad.full((2,), v, dtype=numgrad.bfloat16)
        assert numgrad.tensor([v], dtype=numgrad.float64).bfloat16().item() == \
            torch.tensor([v], dtype=torch.float64).bfloat16().item()
    ints = [0, 1, 255, 257, 2 ** 20 + 3, -(2 ** 31)]
    assert numgrad.tensor(ints).bfloat16().tolist() == torch.tensor(ints).bfloat16().tolist()
    back = [1.7, -2.5, 300.0, -0.9]
    for d in ("int64", "int32", "uint8", "bool"):
        assert numgrad.tensor(back).bfloat16().to(getattr(numgrad, d)).tolist() == \
            torch.tensor(back).bfloat16().to(getattr(torch, d)).tolist(), d


@needs_torch
def test_printing_matches_torch():
    rows = [[0.1, 1 / 3, 3.14159], [1e10, 1.0, -2.5], [1e-8, 1.0], [math.nan, math.inf, 1.0], [100.0, 200.0],
            [1.0, 2.0], []]
    for r in rows:
        assert str(numgrad.tensor(r).bfloat16()).replace("numgrad", "torch") == str(torch.tensor(r).bfloat16())
    for v in (0.1, 2.5, 1e20):
        t, n = torch.tensor(v).bfloat16(), numgrad.tensor(v).bfloat16()
        assert repr(n).replace("numgrad", "torch") == repr(t) and f"{n}" == f"{t}" and n.item() == t.item()


def test_numpy_refuses_bfloat16_as_torch_does():
    x = numgrad.ones(2, dtype=numgrad.bfloat16)
    for convert in (lambda: x.numpy(), lambda: np.asarray(x)):
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            convert()
    assert x.float().numpy().tolist() == [1.0, 1.0]


def test_storage_views_and_save_load(tmp_path):
    x = numgrad.tensor([[0.1, 2.5], [-3.0, 7.0]]).bfloat16()
    view = x.t()
    view[0, 1] = 9.0
    assert x[1, 0].item() == 9.0 and x.untyped_storage().nbytes() == 8
    path = tmp_path / "t.pt"
    numgrad.save({"x": x, "w": numgrad.nn.Linear(2, 2).bfloat16().state_dict()}, path)
    loaded = numgrad.load(path)
    assert loaded["x"].dtype is numgrad.bfloat16 and numgrad.equal(loaded["x"], x)
    assert loaded["w"]["weight"].dtype is numgrad.bfloat16


def test_ops_without_bfloat16_kernels_raise_as_torch():
    x = numgrad.ones(2, 3, 3, 3, 3, dtype=numgrad.bfloat16)
    with pytest.raises(NotImplementedError, match="avg_pool3d_out_frame.*BFloat16"):
        numgrad.nn.functional.avg_pool3d(x, 2)
    with pytest.raises(NotImplementedError, match="BFloat16"):
        numgrad.nn.functional.multi_margin_loss(numgrad.ones(2, 3, dtype=numgrad.bfloat16), numgrad.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got BFloat16"):
        numgrad.linalg.inv(numgrad.eye(2, dtype=numgrad.bfloat16))
    # The half path of the same op runs: PyTorch's half kernels exist there.
    assert numgrad.nn.functional.avg_pool3d(x.half(), 2).dtype is numgrad.float16


def test_cuda_refuses_bfloat16_tensors():
    if not numgrad.cuda.is_available():
        pytest.skip("needs CUDA or Numba's CUDA simulator")
    with pytest.raises(RuntimeError, match="bfloat16 tensors are CPU-only"):
        numgrad.ones(2, dtype=numgrad.bfloat16).cuda()
    assert numgrad.cuda.is_bf16_supported() is False


# ------------------------------------------------------------------------------ the op table
def _torch_counterpart(info):
    sys.path.insert(0, os.path.dirname(__file__))
    from torch_counterparts import torch_fn
    fn = torch_fn(info)
    if fn is None and info.method is None and hasattr(torch.nn.functional, info.name):
        fn = getattr(torch.nn.functional, info.name)
    return fn


def _rows():
    if torch is None:
        return []
    return [pytest.param(info, id=info.id) for info in T.OP_DB
            if "float32" in info.dtypes and _torch_counterpart(info) is not None]


# Row id -> why numgrad's bfloat16 result may differ from PyTorch's beyond bfloat16's tolerance
# without being less accurate than it (those are accepted by comparing with float64 anyway).
KNOWN = {
    "signbit": "PyTorch's vectorized float32 -> bfloat16 conversion makes every NaN 0xFFFF (sign set); "
               "numgrad keeps the NaN's sign",
    "as_strided_scatter": "PyTorch's gradient for the input keeps g inside the written region and zeroes it "
                          "outside (the complement of the derivative), in every dtype",
    "logcumsumexp": "PyTorch's gradient is NaN at leading -inf elements (in float64 too); numgrad's is 0",
}


def _lib_args(sample, lib, dtype, grad, strided=False):
    def convert(a):
        if isinstance(a, np.ndarray):
            if a.dtype == np.float32:
                if strided:
                    t = T.noncontiguous_view(a.astype(BF16))
                elif lib is torch:
                    t = torch.from_numpy(a.copy()).to(getattr(torch, dtype))
                else:
                    t = numgrad.tensor(a).to(getattr(numgrad, dtype))
                return t.requires_grad_() if grad else t
            return torch.from_numpy(a.copy()) if lib is torch else numgrad.tensor(a)
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], np.ndarray):
            return type(a)(convert(x) for x in a)
        return a
    return [convert(a) for a in sample.args]


def _flat(r):
    return [x for y in r for x in _flat(y)] if isinstance(r, (tuple, list)) else [r]


def _leaves(args):
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out += _leaves(a)
        elif getattr(a, "requires_grad", False):
            out.append(a)
    return out


def _evaluate(lib, fn, sample, dtype, grad, strided=False):
    """(outputs, input gradients) of ``fn`` on ``sample`` (bfloat16 inputs strided through a
    larger buffer with ``strided``)."""
    args = _lib_args(sample, lib, dtype, grad, strided)
    lib.manual_seed(0)
    result = _flat(fn(*args, **sample.kwargs))
    if not grad:
        return [r.detach() if hasattr(r, "detach") else r for r in result], None
    outs = [r for r in result if hasattr(r, "requires_grad") and r.requires_grad]
    leaves = _leaves(args)
    if not outs or not leaves:
        return None, None
    loss = sum((r.double() * lib.linspace(-1, 1, r.numel(), dtype=lib.float64).reshape(r.shape)).sum()
               for r in outs)
    grads = lib.autograd.grad(loss, leaves, allow_unused=True)
    return None, [None if g is None else g.detach().double() for g in grads]


def _as_array(x):
    return x.double().numpy() if hasattr(x, "double") else np.asarray(x, dtype=np.float64)


def _mismatch(n, t, ref, scale_rel):
    """Why numgrad's ``n`` fails against PyTorch's ``t`` (None if close, or no less accurate than
    ``t`` against the float64 ``ref``)."""
    nv, tv = _as_array(n), _as_array(t)
    if nv.shape != tv.shape:
        return f"shape {nv.shape} != {tv.shape}"
    finite = tv[np.isfinite(tv)]
    scale = float(np.max(np.abs(finite))) if finite.size else 1.0
    # Gradients sum products of rounded terms: their error scales with the largest of them.
    atol = 2e-2 * max(scale, 0.1) if scale_rel else 1e-5
    ok = np.isclose(nv, tv, rtol=1.6e-2, atol=atol, equal_nan=True)
    if ok.all():
        return None
    if ref is not None:
        rv = _as_array(ref)
        with np.errstate(invalid="ignore"):
            err_n = np.nanmax(np.abs(nv - rv)) if nv.size else 0.0
            err_t = np.nanmax(np.abs(tv - rv)) if tv.size else 0.0
        if np.isnan(nv).sum() == np.isnan(tv).sum() and err_n <= err_t * 1.05 + 1e-6 * max(scale, 1.0):
            return None
    return f"{int((~ok).sum())}/{ok.size} differ, max |d| {np.nanmax(np.abs(nv - tv)[~ok])} at scale {scale}"


@needs_torch
@pytest.mark.parametrize("info", _rows())
def test_op_table_matches_torch_in_bfloat16(info):
    """Every row with a PyTorch counterpart, on bfloat16 inputs (contiguous, and strided for the
    values): numgrad raises where PyTorch raises; otherwise dtypes and shapes match and values
    and gradients are within bfloat16's tolerance of PyTorch's, or at least as close as
    PyTorch's to the float64 answer."""
    fn = _torch_counterpart(info)
    failures = []
    for k, sample in enumerate(info.samples("float32")):
        for grad in (False, True):
            try:
                t_out, t_grads = _evaluate(torch, fn, sample, "bfloat16", grad)
            except Exception:
                if not grad and _runs(fn, sample):
                    # PyTorch has no bfloat16 kernel here: numgrad refuses too.
                    with pytest.raises((RuntimeError, NotImplementedError, TypeError)):
                        _evaluate(numgrad, info.op, sample, "bfloat16", grad)
                break
            if grad and t_grads is None:
                continue
            n_out, n_grads = _evaluate(numgrad, info.op, sample, "bfloat16", grad)
            ref_out, ref_grads = _evaluate(torch, fn, _rounded(sample), "float64", grad)
            pairs = list(zip(n_out, t_out, ref_out) if not grad else zip(n_grads, t_grads, ref_grads))
            if not grad and not info.id.startswith("as_strided"):  # (as_strided reads the storage itself)
                strided, _ = _evaluate(numgrad, info.op, sample, "bfloat16", False, strided=True)
                pairs += list(zip(strided, t_out, ref_out))
            for i, (n, t, ref) in enumerate(pairs):
                if not hasattr(t, "dtype"):
                    assert n == t or (t != t and n != n), (k, n, t)
                    continue
                if t is None or n is None:
                    assert t is None and n is None, (k, grad, i)
                    continue
                assert str(t.dtype).split(".")[1] == str(n.dtype).split(".")[1], (k, grad, i, t.dtype, n.dtype)
                why = _mismatch(n, t, ref, scale_rel=grad)
                if why:
                    failures.append(f"sample {k} {'grad' if grad else 'value'} {i}: {why}")
    if failures and info.id in KNOWN:
        pytest.xfail(KNOWN[info.id])
    assert not failures, "\n".join(failures)


def _runs(fn, sample) -> bool:
    """Whether PyTorch takes ``sample`` in float32 (the row may pass arguments in numgrad's form only)."""
    try:
        _evaluate(torch, fn, sample, "float32", False)
    except Exception:
        return False
    return True


def _rounded(sample):
    """``sample`` with its float32 arrays rounded to bfloat16's values (still float32)."""
    args = tuple(a.astype(BF16).astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float32 else
                 type(a)(x.astype(BF16).astype(np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float32
                         else x for x in a) if isinstance(a, (list, tuple)) else a for a in sample.args)
    return T.SampleInput(args, sample.kwargs)


# ------------------------------------------------------------------------------ models
@needs_torch
def test_bfloat16_model_trains_as_torch():
    """An MLP cast with ``.bfloat16()`` trained by SGD: every step's loss is PyTorch's."""
    losses = {}
    for lib in (torch, numgrad):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.GELU(), lib.nn.Linear(16, 4)).bfloat16()
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.tensor(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8)).bfloat16()
        y = lib.tensor([0, 1, 2, 3, 0, 1, 2, 3])
        losses[lib] = []
        for _ in range(10):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses[lib].append(loss.item())
        assert model[0].weight.dtype == lib.bfloat16 and model[0].weight.grad.dtype == lib.bfloat16
    np.testing.assert_allclose(losses[numgrad], losses[torch], rtol=2e-2)
    assert losses[numgrad][-1] < losses[numgrad][0]


@needs_torch
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_normal_draws_torch_numbers(dtype):
    """Dense 16-bit tensors of 16 elements or more draw as PyTorch's: 24-bit uniforms for the whole
    blocks of 16, a fresh block for the tail, the transform in float32."""
    for n in (8, 16, 17, 20, 33, 100):
        for mean, std in ((0.0, 1.0), (0.3, 2.5)):
            torch.manual_seed(3)
            expected = torch.empty(n, dtype=getattr(torch, dtype)).normal_(mean, std)
            numgrad.manual_seed(3)
            got = numgrad.empty(n, dtype=getattr(numgrad, dtype)).normal_(mean, std)
            assert got.float().tolist() == expected.float().tolist(), (n, mean, std)
    torch.manual_seed(1)
    numgrad.manual_seed(1)
    assert numgrad.randn(3, 20, dtype=getattr(numgrad, dtype)).float().tolist() == \
        torch.randn(3, 20, dtype=getattr(torch, dtype)).float().tolist()
    assert numgrad.rand(40, dtype=getattr(numgrad, dtype)).float().tolist() == \
        torch.rand(40, dtype=getattr(torch, dtype)).float().tolist()


def test_testing_helpers_take_bfloat16():
    x = T.make_tensor(3, 4, dtype=numgrad.bfloat16, low=-1, high=1, noncontiguous=True)
    assert x.dtype is numgrad.bfloat16 and not x.is_contiguous() and float(x.abs().max()) <= 1.0
    T.assert_close(x, x.float().bfloat16())
    T.assert_close(numgrad.tensor([1.0]).bfloat16(), numgrad.tensor([1.005]).bfloat16())  # bfloat16's tolerance
    with pytest.raises(AssertionError):
        T.assert_close(numgrad.tensor([1.0]).bfloat16(), numgrad.tensor([1.05]).bfloat16())


@needs_torch
def test_bfloat16_as_the_default_dtype():
    try:
        for lib in (torch, numgrad):
            lib.set_default_dtype(lib.bfloat16)
        numgrad.manual_seed(0)
        torch.manual_seed(0)
        x, t = numgrad.randn(4), torch.randn(4)
        assert str(x) == str(t) and "dtype" not in str(x)
        assert (numgrad.ones(2, dtype=numgrad.int64) * 1.5).dtype is numgrad.bfloat16
        assert numgrad.nn.Linear(2, 3).weight.dtype is numgrad.bfloat16 and numgrad.tensor(0.5).dtype is numgrad.bfloat16
    finally:
        torch.set_default_dtype(torch.float32)
        numgrad.set_default_dtype(numgrad.float32)
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        numgrad.set_default_dtype(numgrad.int64)
