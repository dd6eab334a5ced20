"""The divergence, likelihood, margin and ranking losses and gumbel_softmax / Softmax2d against
PyTorch: values and gradients for every reduction, broadcasting, strides, errors, the modules."""
import warnings

import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck

torch = pytest.importorskip("torch")

F, TF = numgrad.nn.functional, torch.nn.functional
REDUCTIONS = ("none", "mean", "sum")


def _pair(a, dtype, grad=True):
    """The same values as a torch and a numgrad tensor; floats require grad when ``grad``."""
    if not isinstance(a, np.ndarray):
        return a, a
    if a.dtype.kind == "f":
        a = a.astype(dtype)
        return torch.tensor(a, requires_grad=grad), numgrad.tensor(a, requires_grad=grad)
    return torch.tensor(a), numgrad.tensor(a)


# Inputs PyTorch refuses to differentiate.
CONSTANT = {"soft_margin_loss": (1,)}


def _compare(name, args, kwargs, dtype, grad=True, **torch_kwargs):
    """Values and the gradients of every float input of F.<name> against torch's."""
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    pairs = [_pair(a, dtype, grad and i not in CONSTANT.get(name, ())) for i, a in enumerate(args)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(TF, name)(*[t for t, _ in pairs], **kwargs, **torch_kwargs)
        actual = getattr(F, name)(*[n for _, n in pairs], **kwargs)
    assert tuple(actual.shape) == tuple(expected.shape)
    assert actual.dtype.name == str(expected.dtype).replace("torch.", "")
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), **tol)
    if grad:
        w = np.random.default_rng(5).standard_normal(tuple(expected.shape)).astype(dtype)
        (expected * torch.tensor(w)).sum().backward()
        (actual * numgrad.tensor(w)).sum().backward()
        for t, n in pairs:
            if isinstance(t, torch.Tensor) and t.requires_grad:
                # An input only compared (a target of 1 or -1) gets no gradient here, zeros in torch.
                got = np.zeros(tuple(n.shape), dtype) if n.grad is None else n.grad.numpy()
                want = np.zeros(tuple(t.shape), dtype) if t.grad is None else t.grad.numpy()
                np.testing.assert_allclose(got, want, **tol)


rng = np.random.default_rng(0)
X, Y, Z = (rng.uniform(-2, 2, (4, 5)) for _ in range(3))
P = rng.uniform(0.05, 1, (4, 5))
SIGNS = np.where(rng.random((4, 5)) < 0.5, -1.0, 1.0)
SIGNS1 = SIGNS[:, 0].copy()
CLASSES = np.array([0, 4, 2, 1])
LABELS = np.array([[0, 3, -1, 1, 2], [1, 1, 2, -1, -1], [-1, 0, 0, 0, 0], [4, 3, 2, 1, 0]])

CASES = {
    "kl_div": [((X, P), {}), ((X, Y), {"log_target": True}), ((X, P[:1]), {})],
    "poisson_nll_loss": [((X, P * 4), {}), ((P, P * 4), {"log_input": False, "full": True, "eps": 1e-4})],
    "gaussian_nll_loss": [((X, Y, P), {}), ((X, Y, P[:, :1] * 1e-7), {"full": True}), ((X, Y, P[:, 0]), {}),
                          ((X, Y, 0.7), {})],
    "soft_margin_loss": [((X, SIGNS), {})],
    "multilabel_soft_margin_loss": [((X, (P > 0.5) * 1.0), {}), ((X[0], (P[0] > 0.5) * 1.0), {})],
    "margin_ranking_loss": [((X[:, 0], Y[:, 0], SIGNS1), {"margin": 0.3}), ((X, Y, SIGNS), {})],
    "hinge_embedding_loss": [((X, SIGNS), {"margin": 0.5}), ((X, SIGNS.astype(np.int64)), {})],
    "cosine_embedding_loss": [((X, Y, SIGNS1), {"margin": 0.1}), ((X[0], Y[0], np.array(-1.0)), {"margin": -0.5})],
    "triplet_margin_loss": [((X, Y, Z), {"swap": True}), ((X, Y, Z), {"p": 1, "margin": 2.0}),
                            ((X[0], Y[0], Z[0]), {"eps": 0.1})],
    "triplet_margin_with_distance_loss": [((X, Y, Z), {"swap": True}), ((X, Y, Z), {"margin": 0.5})],
    "multi_margin_loss": [((X, CLASSES), {}), ((X, CLASSES), {"p": 2, "margin": 0.7}),
                          ((X[0], np.array(3)), {}), ((X[0], CLASSES[:1]), {})],
    "multilabel_margin_loss": [((X, LABELS), {}), ((X[0], LABELS[0]), {})],
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_grads_match_torch(name, dtype):
    for args, kwargs in CASES[name]:
        for reduction in REDUCTIONS:
            _compare(name, args, dict(kwargs, reduction=reduction), dtype)
    if name == "kl_div":
        _compare(name, CASES[name][0][0], {"reduction": "batchmean"}, dtype)


def test_weights_match_torch():
    w = rng.uniform(0.5, 2, 5)
    for reduction in REDUCTIONS:
        _compare("multi_margin_loss", (X, CLASSES), {"reduction": reduction, "p": 2, "weight": None}, np.float64)
        t, n = torch.tensor(w), numgrad.tensor(w)
        xt, xn = torch.tensor(X, requires_grad=True), numgrad.tensor(X, requires_grad=True)
        for fn, lib, x, wt in ((TF, torch, xt, t), (F, numgrad, xn, n)):
            fn.multi_margin_loss(x, lib.tensor(CLASSES), weight=wt, reduction=reduction).sum().backward()
            labels = lib.tensor((P > 0.5) * 1.0)
            fn.multilabel_soft_margin_loss(x, labels, weight=wt, reduction=reduction).sum().backward()
        np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-10)


def test_noncontiguous_and_broadcast_inputs():
    big = rng.uniform(-2, 2, (5, 4))
    xt, xn = torch.tensor(big).t(), numgrad.tensor(big).t()
    assert not xn.is_contiguous()
    ct, cn = torch.tensor(CLASSES), numgrad.tensor(CLASSES)
    pairs = [
        (TF.multi_margin_loss(xt, ct), F.multi_margin_loss(xn, cn)),
        (TF.kl_div(xt, torch.tensor(P[0]), reduction="sum"), F.kl_div(xn, numgrad.tensor(P[0]), reduction="sum")),
        (TF.triplet_margin_loss(xt, xt.flip(0), xt * 2), F.triplet_margin_loss(xn, xn.flip(0), xn * 2)),
        (TF.gaussian_nll_loss(xt, xt * 0, torch.tensor(P[:, 2:3])),
         F.gaussian_nll_loss(xn, xn * 0, numgrad.tensor(P[:, 2:3]))),
        (TF.multilabel_margin_loss(xt, torch.tensor(LABELS)), F.multilabel_margin_loss(xn, numgrad.tensor(LABELS))),
    ]
    for expected, actual in pairs:
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-10)


def test_empty_batches():
    e, ec = np.zeros((0, 3)), np.zeros(0, dtype=np.int64)
    for reduction in ("none", "sum"):
        _compare("kl_div", (e, e + 0.5), {"reduction": reduction}, np.float64)
        _compare("triplet_margin_loss", (e, e, e), {"reduction": reduction}, np.float64)
        _compare("cosine_embedding_loss", (e, e, np.zeros(0)), {"reduction": reduction}, np.float64)
        _compare("multi_margin_loss", (e, ec), {"reduction": reduction}, np.float64)
        _compare("margin_ranking_loss", (e[:, 0], e[:, 0], e[:, 0]), {"reduction": reduction}, np.float64)


def test_gradcheck_float64():
    def t(a):
        return numgrad.tensor(a[:2, :3], requires_grad=True)
    checks = [
        (lambda x, y: F.kl_div(x, y, reduction="batchmean"), (t(X), t(P))),
        (lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True), (t(X), t(Y), t(P))),
        (lambda x, y: F.poisson_nll_loss(x, y, log_input=False), (t(P), t(P))),
        (lambda x, y: F.cosine_embedding_loss(x, y, numgrad.tensor([1.0, -1.0]), margin=-1.0), (t(X), t(Y))),
        (lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=5.0, swap=True), (t(X), t(Y), t(Z))),
        (lambda x: F.multi_margin_loss(x, numgrad.tensor([2, 0]), p=2, margin=3.0), (t(X),)),
        (lambda x: F.multilabel_margin_loss(x, numgrad.tensor([[1, -1, 0], [2, 0, -1]])), (t(X),)),
        (lambda x, y: F.margin_ranking_loss(x, y, numgrad.tensor(SIGNS[:2, :3]), margin=9.0), (t(X), t(Y))),
    ]
    for fn, args in checks:
        assert gradcheck(fn, args)


def test_legacy_size_average_and_reduce():
    xt, xn = torch.tensor(X), numgrad.tensor(X)
    st, sn = torch.tensor(SIGNS), numgrad.tensor(SIGNS)
    for size_average, reduce in ((False, None), (None, False), (True, True)):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            actual = F.soft_margin_loss(xn, sn, size_average=size_average, reduce=reduce)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = TF.soft_margin_loss(xt, st, size_average=size_average, reduce=reduce)
            module = numgrad.nn.HingeEmbeddingLoss(size_average=size_average, reduce=reduce)
            assert module.reduction == torch.nn.HingeEmbeddingLoss(size_average=size_average,
                                                                   reduce=reduce).reduction
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-12)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(xn, xn)


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.cosine_embedding_loss(numgrad.zeros(2, 3), numgrad.zeros(2, 3), numgrad.ones(2, 2)),
     RuntimeError, "0D or 1D target tensor expected"),
    (lambda: F.cosine_embedding_loss(numgrad.zeros(3), numgrad.zeros(3), numgrad.ones(2)),
     RuntimeError, "1D target tensor expects 2D input tensors"),
    (lambda: F.margin_ranking_loss(numgrad.zeros(3), numgrad.zeros(3), numgrad.ones(1, 3)),
     RuntimeError, "All input tensors should have same dimension"),
    (lambda: F.triplet_margin_loss(numgrad.zeros(2, 3), numgrad.zeros(3), numgrad.zeros(2, 3)),
     RuntimeError, "same number of dimensions"),
    (lambda: F.triplet_margin_loss(numgrad.zeros(3), numgrad.zeros(3), numgrad.zeros(3), margin=0),
     ValueError, "margin must be greater than 0"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([0, 3])), RuntimeError, "target out of range"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([0, 1, 2])), RuntimeError,
     "target tensor should be 1-D"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([0, 1]), p=3), ValueError, "only p == 1"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3, 2), numgrad.tensor([0, 1])), RuntimeError,
     "Expected non-empty vector or matrix"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([0, 1]), weight=numgrad.ones(1, 3)),
     ValueError, "weight must be one-dimensional"),
    (lambda: F.multilabel_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([0, 1])), RuntimeError,
     "inconsistent target size"),
    (lambda: F.multilabel_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([[0, 3, -1], [1, -1, 0]])),
     RuntimeError, "'target' is out of range"),
    (lambda: F.gaussian_nll_loss(numgrad.zeros(2, 3), numgrad.zeros(2, 3), numgrad.ones(3, 2)), ValueError,
     "var is of incorrect size"),
    (lambda: F.gaussian_nll_loss(numgrad.zeros(2, 3), numgrad.zeros(2, 3), -numgrad.ones(2, 3)), ValueError,
     "var has negative entry"),
    (lambda: F.gaussian_nll_loss(numgrad.zeros(2), numgrad.zeros(2), numgrad.ones(2), reduction="x"), ValueError,
     "x is not valid"),
    (lambda: F.kl_div(numgrad.zeros(2, dtype=numgrad.int64), numgrad.zeros(2), reduction="sum"), RuntimeError,
     "Integral inputs not supported"),
    (lambda: F.soft_margin_loss(numgrad.zeros(2), numgrad.ones(2), reduction="avg"), ValueError,
     "avg is not a valid value for reduction"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3, dtype=numgrad.int64), numgrad.tensor([0, 1])),
     NotImplementedError, "not implemented for 'Long'"),
    (lambda: F.soft_margin_loss(numgrad.zeros(2), numgrad.ones(2, requires_grad=True)), RuntimeError,
     "not differentiable with respect to argument 'target'"),
    (lambda: F.multi_margin_loss(numgrad.zeros(2, 3), numgrad.tensor([0, 1]),
                                 weight=numgrad.ones(3, requires_grad=True)),
     RuntimeError, "not differentiable with respect to argument 'weight'"),
    (lambda: numgrad.nn.TripletMarginLoss(margin=-1.0), ValueError, "expected margin to be greater than 0"),
    (lambda: numgrad.nn.Softmax2d()(numgrad.zeros(2, 3)), ValueError, "expected input to be 3D or 4D, got 2D"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_modules_match_functional():
    w = numgrad.tensor(rng.uniform(0.5, 2, 5))
    xn, yn, zn = (numgrad.tensor(a) for a in (X, Y, Z))
    sn = numgrad.tensor(SIGNS)
    modules = [
        (numgrad.nn.KLDivLoss(reduction="batchmean", log_target=True), (xn, yn),
         F.kl_div(xn, yn, reduction="batchmean", log_target=True)),
        (numgrad.nn.PoissonNLLLoss(full=True), (xn, sn.abs() * 3), F.poisson_nll_loss(xn, sn.abs() * 3, full=True)),
        (numgrad.nn.GaussianNLLLoss(eps=0.5, reduction="sum"), (xn, yn, sn.abs()),
         F.gaussian_nll_loss(xn, yn, sn.abs(), eps=0.5, reduction="sum")),
        (numgrad.nn.SoftMarginLoss(), (xn, sn), F.soft_margin_loss(xn, sn)),
        (numgrad.nn.MultiLabelSoftMarginLoss(weight=w), (xn, sn.abs()),
         F.multilabel_soft_margin_loss(xn, sn.abs(), weight=w)),
        (numgrad.nn.MarginRankingLoss(margin=0.2), (xn, yn, sn), F.margin_ranking_loss(xn, yn, sn, margin=0.2)),
        (numgrad.nn.HingeEmbeddingLoss(margin=2.0), (xn, sn), F.hinge_embedding_loss(xn, sn, margin=2.0)),
        (numgrad.nn.CosineEmbeddingLoss(margin=0.1), (xn, yn, sn[:, 0]),
         F.cosine_embedding_loss(xn, yn, sn[:, 0], margin=0.1)),
        (numgrad.nn.TripletMarginLoss(p=1.0, swap=True), (xn, yn, zn),
         F.triplet_margin_loss(xn, yn, zn, p=1.0, swap=True)),
        (numgrad.nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: (a - b).abs().sum(-1)), (xn, yn, zn),
         F.triplet_margin_loss(xn, yn, zn, p=1.0, eps=0.0)),
        (numgrad.nn.MultiMarginLoss(p=2, weight=w), (xn, numgrad.tensor(CLASSES)),
         F.multi_margin_loss(xn, numgrad.tensor(CLASSES), p=2, weight=w)),
        (numgrad.nn.MultiLabelMarginLoss(reduction="none"), (xn, numgrad.tensor(LABELS)),
         F.multilabel_margin_loss(xn, numgrad.tensor(LABELS), reduction="none")),
    ]
    for module, args, expected in modules:
        np.testing.assert_allclose(module(*args).numpy(), expected.numpy(), rtol=1e-12)
    assert list(numgrad.nn.MultiMarginLoss(weight=w).state_dict()) == \
        list(torch.nn.MultiMarginLoss(weight=torch.ones(5)).state_dict())
    assert repr(numgrad.nn.TripletMarginWithDistanceLoss()) == repr(torch.nn.TripletMarginWithDistanceLoss())


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_matches_torch(hard):
    x = rng.standard_normal((3, 5))
    torch.manual_seed(4)
    numgrad.manual_seed(4)
    xt, xn = torch.tensor(x, requires_grad=True), numgrad.tensor(x, requires_grad=True)
    expected = TF.gumbel_softmax(xt, tau=0.5, hard=hard, dim=0)
    actual = F.gumbel_softmax(xn, tau=0.5, hard=hard, dim=0)
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-15)
    w = rng.standard_normal((3, 5))
    (expected * torch.tensor(w)).sum().backward()
    (actual * numgrad.tensor(w)).sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    if hard:
        assert (actual.detach().numpy().sum(0) == 1).all()
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(xn, eps=1e-5)


def test_softmax2d():
    x = rng.standard_normal((2, 3, 2, 4)).astype(np.float32)
    for a in (x, x[0]):
        np.testing.assert_allclose(numgrad.nn.Softmax2d()(numgrad.tensor(a)).numpy(),
                                   torch.nn.Softmax2d()(torch.tensor(a)).numpy(), rtol=1e-6)
    assert repr(numgrad.nn.Softmax2d()) == "Softmax2d()"
