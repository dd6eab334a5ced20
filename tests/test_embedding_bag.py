"""embedding_bag and nn.EmbeddingBag (with Embedding.from_pretrained) against PyTorch: every mode
with padding, per-sample weights, include_last_offset, max_norm and scale_grad_by_freq, values
and gradients in float32 and float64, higher derivatives, forward mode, initialisation,
printing and PyTorch's errors."""
import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F
from numgrad.autograd import forward_ad as fwAD, gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional
TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-12)}
INDICES = np.array([1, 2, 2, 0, 5, 2, 3, 7, 7])
OFFSETS = np.array([0, 3, 3, 5])


def _run(lib, weight, psw, indices, offsets, grad, **kwargs):
    w = lib.tensor(weight, requires_grad=True)
    p = None if psw is None else lib.tensor(psw, requires_grad=True)
    f = F if lib is numgrad else TF
    out = f.embedding_bag(lib.tensor(indices), w, None if offsets is None else lib.tensor(offsets),
                          per_sample_weights=p, **kwargs)
    out.backward(lib.tensor(grad(tuple(out.shape))))
    return out, w, p


CASES = [
    dict(mode="sum"), dict(mode="mean"), dict(mode="max"),
    dict(mode="sum", padding_idx=2), dict(mode="mean", padding_idx=-6), dict(mode="max", padding_idx=7),
    dict(mode="sum", per_sample_weights=True), dict(mode="sum", per_sample_weights=True, padding_idx=2),
    dict(mode="mean", include_last_offset=True), dict(mode="max", include_last_offset=True),
    dict(mode="sum", scale_grad_by_freq=True), dict(mode="mean", scale_grad_by_freq=True, padding_idx=2),
    dict(mode="mean", two_d=True), dict(mode="max", two_d=True, padding_idx=0),
    dict(mode="sum", two_d=True, per_sample_weights=True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_values_and_gradients_match_torch(case, dtype):
    case = dict(case)
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((8, 3)).astype(dtype)
    indices, offsets = (INDICES[:8].reshape(2, 4), None) if case.pop("two_d", False) else (INDICES, OFFSETS)
    if case.get("include_last_offset"):
        # The CSR form: PyTorch's float32 and float64 kernels disagree on a shorter last offset.
        offsets = np.append(OFFSETS, INDICES.shape[0])
    psw = rng.standard_normal(indices.shape).astype(dtype) if case.pop("per_sample_weights", False) else None
    grads = {}

    def grad(shape):
        return grads.setdefault(shape, np.random.default_rng(1).standard_normal(shape).astype(dtype))
    out, w, p = _run(numgrad, weight, psw, indices, offsets, grad, **case)
    tout, tw, tp = _run(torch, weight, psw, indices, offsets, grad, **case)
    assert out.dtype.name == dtype and out.grad_fn.name() == tout.grad_fn.name() == "EmbeddingBagBackward0"
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), **TOL[dtype])
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), **TOL[dtype])
    if p is not None:
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), **TOL[dtype])


def test_noncontiguous_weight_indices_and_weights():
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((3, 8))
    idx = np.stack([INDICES, INDICES[::-1]])
    psw = rng.standard_normal(9)
    out = F.embedding_bag(numgrad.tensor(idx)[:, ::1][0], numgrad.tensor(weight).t(), numgrad.tensor(OFFSETS),
                          mode="sum", per_sample_weights=numgrad.tensor(np.stack([psw, psw]))[0])
    want = TF.embedding_bag(torch.tensor(INDICES), torch.tensor(weight).t(), torch.tensor(OFFSETS), mode="sum",
                            per_sample_weights=torch.tensor(psw))
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("width", [1, 7, 8, 15, 16, 17, 31, 33, 48, 63, 64, 65, 100, 129, 200])
def test_sums_are_torchs_bit_for_bit_at_every_width(width, dtype):
    # The sums run in passes of whole vectors and one masked pass for the last columns: widths
    # on both sides of each boundary, rows taken from a wider table (rows further apart than
    # their width) and the table's last row, whose masked load ends at the end of the table.
    rng = np.random.default_rng(width)
    table = rng.standard_normal((50, width + 3)).astype(dtype)
    indices = np.append(rng.integers(0, 50, 300), [49, 49])
    offsets = np.array([0, 1, 1, 40, 120, 290])
    psw = rng.standard_normal(indices.shape[0]).astype(dtype)
    w, tw = numgrad.tensor(table)[:, :width], torch.tensor(table)[:, :width]
    for kwargs in (dict(mode="sum"), dict(mode="mean", padding_idx=49), dict(mode="sum", padding_idx=3)):
        out = F.embedding_bag(numgrad.tensor(indices), w, numgrad.tensor(offsets), **kwargs)
        want = TF.embedding_bag(torch.tensor(indices), tw, torch.tensor(offsets), **kwargs)
        np.testing.assert_array_equal(out.numpy(), want.numpy())
    out = F.embedding_bag(numgrad.tensor(indices), w, numgrad.tensor(offsets), mode="sum",
                          per_sample_weights=numgrad.tensor(psw))
    want = TF.embedding_bag(torch.tensor(indices), tw, torch.tensor(offsets), mode="sum",
                            per_sample_weights=torch.tensor(psw))
    np.testing.assert_allclose(out.numpy(), want.numpy(), **TOL[dtype])


@pytest.mark.parametrize("kwargs", [dict(mode="mean"), dict(mode="sum", padding_idx=2), dict(mode="max"),
                                    dict(mode="sum", psw=True), dict(mode="mean", padding_idx=5)])
def test_gradcheck_gradgradcheck_and_forward_mode(kwargs):
    kwargs = dict(kwargs)
    rng = np.random.default_rng(3)
    weight = numgrad.tensor(rng.standard_normal((8, 2)), requires_grad=True)
    inputs = [weight]
    if kwargs.pop("psw", False):
        inputs.append(numgrad.tensor(rng.standard_normal(9), requires_grad=True))
    idx, offsets = numgrad.tensor(INDICES), numgrad.tensor(OFFSETS)

    def fn(w, psw=None):
        return F.embedding_bag(idx, w, offsets, per_sample_weights=psw, **kwargs)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
    tangents = [numgrad.tensor(rng.standard_normal(tuple(t.shape))) for t in inputs]
    with fwAD.dual_level():
        out = fn(*[fwAD.make_dual(t.detach(), d) for t, d in zip(inputs, tangents)])
        jvp = fwAD.unpack_dual(out).tangent
    outs = fn(*inputs)
    cot = numgrad.tensor(rng.standard_normal(tuple(outs.shape)))
    vjps = numgrad.autograd.grad(outs, inputs, cot)
    # <J t, c> == <t, J^T c>
    lhs = float((jvp * cot).sum())
    rhs = sum(float((t * v).sum()) for t, v in zip(tangents, vjps))
    assert abs(lhs - rhs) < 1e-10


def test_max_norm_renormalizes_the_rows_read():
    weight = np.random.default_rng(0).standard_normal((8, 3)) * 3
    w, tw = numgrad.tensor(weight), torch.tensor(weight)
    out = F.embedding_bag(numgrad.tensor(INDICES), w, numgrad.tensor(OFFSETS), max_norm=1.5, norm_type=1.0)
    tout = TF.embedding_bag(torch.tensor(INDICES), tw, torch.tensor(OFFSETS), max_norm=1.5, norm_type=1.0)
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.numpy(), tw.numpy(), rtol=1e-12)


def test_empty_inputs_and_bags():
    w = numgrad.ones(4, 3)
    assert tuple(F.embedding_bag(numgrad.zeros(0, 3, dtype=numgrad.int64), w).shape) == (0, 3)
    empty = numgrad.zeros(0, dtype=numgrad.int64)
    assert tuple(F.embedding_bag(empty, w, empty).shape) == (0, 3)
    out = F.embedding_bag(empty, w, numgrad.zeros(2, dtype=numgrad.int64), mode="max")
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 3)))


def _bag_layers(**kwargs):
    layers = []
    for lib in (numgrad, torch):
        lib.manual_seed(7)
        layers.append(lib.nn.EmbeddingBag(6, 3, **kwargs))
    return layers


def test_layer_initialisation_forward_and_state_dict():
    ours, theirs = _bag_layers(mode="sum", padding_idx=1)
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    idx, psw = np.array([[0, 1, 5], [2, 2, 3]]), np.array([[1.0, 2.0, 0.5], [1.0, -1.0, 3.0]], np.float32)
    out = ours(numgrad.tensor(idx), per_sample_weights=numgrad.tensor(psw))
    tout = theirs(torch.tensor(idx), per_sample_weights=torch.tensor(psw))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-6)


REPRS = [dict(), dict(mode="max", padding_idx=1), dict(max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True,
                                                       include_last_offset=True)]


@pytest.mark.parametrize("kwargs", REPRS)
def test_repr(kwargs):
    ours, theirs = _bag_layers(**kwargs)
    assert repr(ours) == repr(theirs)


def test_embedding_repr_lists_its_options():
    kwargs = dict(max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True)
    assert repr(numgrad.nn.Embedding(5, 3, **kwargs)) == repr(torch.nn.Embedding(5, 3, **kwargs))


@pytest.mark.parametrize("cls", ["Embedding", "EmbeddingBag"])
@pytest.mark.parametrize("freeze", [True, False])
def test_from_pretrained(cls, freeze):
    table = np.arange(12.0).reshape(4, 3)
    ours = getattr(numgrad.nn, cls).from_pretrained(numgrad.tensor(table), freeze=freeze, padding_idx=1)
    theirs = getattr(torch.nn, cls).from_pretrained(torch.tensor(table), freeze=freeze, padding_idx=1)
    assert ours.weight.requires_grad is theirs.weight.requires_grad is (not freeze)
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    idx = np.array([[0, 1, 3]])
    np.testing.assert_array_equal(ours(numgrad.tensor(idx)).detach().numpy(),
                                  theirs(torch.tensor(idx)).detach().numpy())
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        getattr(numgrad.nn, cls).from_pretrained(numgrad.ones(3))


ERRORS = [
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1, 3]), w, lib.tensor([1])), RuntimeError,
     "offsets\\[0\\] has to be 0"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1, 3]), w, lib.tensor([0, 5])), RuntimeError,
     "offsets\\[-1\\] can not be greater than input's length 2"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1, 9]), w, lib.tensor([0])), RuntimeError,
     "Index 1 of input takes value 9 which is not in the valid range \\[0, 6\\)"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1.0]), w, lib.tensor([0])), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w), ValueError, "offsets has to be a 1D Tensor but got None"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([[1]]), w, lib.tensor([0])), ValueError,
     "if input is 2D, then offsets has to be None"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([[[1]]]), w), ValueError, "input has to be 1D or 2D Tensor"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w[0], lib.tensor([0])), ValueError, "weight has to be a 2D"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w, lib.tensor([0]), mode="min"), ValueError,
     "mode has to be one of sum, mean or max"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w, lib.tensor([0]), mode="max", scale_grad_by_freq=True),
     ValueError, "max mode does not support scaling the gradient by the frequency"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w, lib.tensor([0]), per_sample_weights=lib.ones(1)),
     NotImplementedError, "per_sample_weights is only supported for mode='sum' \\(got mode='mean'\\)"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w, lib.tensor([0]), mode="sum",
                                       per_sample_weights=lib.ones(2)), ValueError,
     "must have the same shape as the input"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w, lib.tensor([0]), mode="sum",
                                       per_sample_weights=lib.ones(1, dtype=lib.float64)), RuntimeError,
     "to have the same type as tensor for argument #1 'per_sample_weights'"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w, lib.tensor([0]), padding_idx=6), RuntimeError,
     "padding_idx must be within the number of embeddings, -6 through 5, but got 6"),
    (lambda lib, f, w: f.embedding_bag(lib.tensor([1]), w.long(), lib.tensor([0])), RuntimeError,
     "'weight' to have one of the following scalar types"),
    (lambda lib, f, w: lib.nn.EmbeddingBag(3, 2, padding_idx=3), AssertionError,
     "padding_idx must be within num_embeddings"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS)
def test_errors_match_torch(call, exc, match):
    for lib, f in ((torch, TF), (numgrad, F)):
        with pytest.raises(exc, match=match):
            call(lib, f, lib.ones(6, 3))
