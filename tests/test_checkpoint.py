"""numgrad.utils.checkpoint against PyTorch: values and gradients (inputs and parameters) equal
to an unchecked run, dropout replayed from the same RNG state, kwargs, tuple outputs,
checkpoint_sequential, errors and warnings."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numgrad  # noqa: E402
from numgrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential  # noqa: E402


def _np(t):
    return t.detach().numpy()


def _model(lib, dtype):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 8), nn.Tanh(),
                         nn.Linear(8, 3)).to(dtype)


def _run(lib, dtype, mode, reentrant):
    """Output and gradients (input, first weight) of the model, checkpointed per ``mode``."""
    net = _model(lib, getattr(lib, dtype))
    x = lib.tensor(np.random.default_rng(0).standard_normal((5, 4))).to(getattr(lib, dtype)).requires_grad_()
    lib.manual_seed(1)
    if mode == "plain":
        y = net(x)
    elif mode == "sequential":
        y = lib.utils.checkpoint.checkpoint_sequential(net, 2, x, use_reentrant=reentrant)
    else:
        y = lib.utils.checkpoint.checkpoint(net, x, use_reentrant=reentrant)
    (y * y).sum().backward()
    return [_np(y), _np(x.grad), _np(net[0].weight.grad), _np(net[5].bias.grad)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reentrant", [False, True])
@pytest.mark.parametrize("mode", ["checkpoint", "sequential"])
def test_matches_unchecked_run_and_torch(dtype, reentrant, mode):
    got = _run(numgrad, dtype, mode, reentrant)
    plain = _run(numgrad, dtype, "plain", reentrant)
    ref = _run(torch, dtype, mode, reentrant)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for g, p, r in zip(got, plain, ref):
        np.testing.assert_array_equal(g, p)  # recomputation with the same RNG: bit for bit
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol)


def _f(a, b, scale=1.0, *, shift=0.0):
    return (a * b).sin() * scale + shift, a.exp()


def test_kwargs_non_tensor_args_tuple_outputs_and_autograd_grad():
    a = numgrad.tensor([0.1, -0.4, 0.7], dtype=numgrad.float64, requires_grad=True)
    b = numgrad.tensor([1.5, 0.3, -2.0], dtype=numgrad.float64, requires_grad=True)
    ta, tb = (torch.tensor(_np(t), requires_grad=True) for t in (a, b))
    o1, o2 = checkpoint(_f, a, b, 2.0, shift=0.5, use_reentrant=False)
    t1, t2 = torch.utils.checkpoint.checkpoint(_f, ta, tb, 2.0, shift=0.5, use_reentrant=False)
    np.testing.assert_allclose(_np(o1), _np(t1))
    ga, gb = numgrad.autograd.grad((o1 + o2).sum(), (a, b), create_graph=True)
    tga, tgb = torch.autograd.grad((t1 + t2).sum(), (ta, tb), create_graph=True)
    np.testing.assert_allclose(_np(ga), _np(tga))
    np.testing.assert_allclose(_np(gb), _np(tgb))
    # Double backward through the recomputed region.
    np.testing.assert_allclose(_np(numgrad.autograd.grad(ga.sum(), b)[0]), _np(torch.autograd.grad(tga.sum(), tb)[0]))


def test_gradcheck_non_reentrant():
    numgrad.manual_seed(0)
    w = numgrad.randn(3, 3, dtype=numgrad.float64, requires_grad=True)
    x = numgrad.randn(2, 3, dtype=numgrad.float64, requires_grad=True)
    fn = lambda x, w: checkpoint(lambda x: (x @ w).tanh() @ w, x, use_reentrant=False)  # noqa: E731
    assert numgrad.autograd.gradcheck(fn, (x, w))
    assert numgrad.autograd.gradgradcheck(fn, (x, w))


def test_parameters_reached_by_autograd_grad_and_retain_graph():
    net = _model(numgrad, numgrad.float32)
    net.eval()
    x = numgrad.randn(2, 4)
    y = checkpoint(net, x, use_reentrant=False).sum()
    g1, = numgrad.autograd.grad(y, net[3].weight, retain_graph=True)
    g2, = numgrad.autograd.grad(y, net[3].weight)  # a second pass recomputes again
    g3, = numgrad.autograd.grad(net(x).sum(), net[3].weight)
    np.testing.assert_array_equal(_np(g1), _np(g3))
    np.testing.assert_array_equal(_np(g2), _np(g3))


def test_non_contiguous_input_and_zero_size_batch():
    net = _model(numgrad, numgrad.float64)
    net.eval()
    x = numgrad.randn(4, 8, dtype=numgrad.float64)[:, ::2].requires_grad_()
    checkpoint(net, x, use_reentrant=False).sum().backward()
    g = x.grad.clone()
    x.grad = None
    net(x).sum().backward()
    np.testing.assert_array_equal(_np(g), _np(x.grad))
    empty = numgrad.zeros(0, 4, dtype=numgrad.float64, requires_grad=True)
    y = checkpoint(net, empty, use_reentrant=False)
    y.sum().backward()
    assert tuple(y.shape) == (0, 3) and tuple(empty.grad.shape) == (0, 4)


def test_use_reentrant_default_warns_as_torch():
    x = numgrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, x)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint_sequential([numgrad.nn.Tanh(), numgrad.nn.Tanh()], 2, x)


def test_errors():
    x = numgrad.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpoint(lambda t, k=1: t * k, x, k=2, use_reentrant=True)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported"):
        checkpoint(lambda t: t, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lambda t: t, x, use_reentrant=False, determinism_check="nope")
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpoint_sequential([numgrad.nn.Tanh()], 1, x, use_reentrant=False, k=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numgrad.manual_seed(0)
        calls = []

        def changing(t):
            calls.append(1)
            return t.exp() if len(calls) == 1 else (t.exp() * t).exp()
        y = checkpoint(changing, x, use_reentrant=False)
        with pytest.raises(CheckpointError):
            y.sum().backward()


def test_context_fn_wraps_forward_and_recomputation():
    seen = []

    class Tag:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            seen.append(self.name)

        def __exit__(self, *exc):
            return False
    x = numgrad.ones(3, requires_grad=True)
    y = checkpoint(lambda t: t.sin(), x, use_reentrant=False, context_fn=lambda: (Tag("fwd"), Tag("re")))
    assert seen == ["fwd"]
    y.sum().backward()
    assert seen == ["fwd", "re"]


def _memory(segments):
    """Bytes held after the forward and peak bytes of forward and backward of a 16-layer MLP."""
    import tracemalloc
    numgrad.manual_seed(0)
    layers = []
    for _ in range(16):
        layers += [numgrad.nn.Linear(64, 64), numgrad.nn.ReLU()]
    net = numgrad.nn.Sequential(*layers)
    for p in net.parameters():
        p.grad = numgrad.zeros_like(p)
    x = numgrad.randn(512, 64)
    tracemalloc.start()
    try:
        y = checkpoint_sequential(net, segments, x, use_reentrant=False) if segments else net(x)
        held = tracemalloc.get_traced_memory()[0]
        y.sum().backward()
        return held, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_checkpointing_lowers_memory():
    _memory(4)  # compiles outside the measurement
    plain, checked = _memory(0), _memory(4)
    # 16 saved activations without checkpointing; with it, 3 segment boundaries and the last
    # segment's 4 (the other segments are recomputed one at a time in backward).
    assert checked[0] < 0.6 * plain[0], (checked, plain)
    assert checked[1] < 0.75 * plain[1], (checked, plain)
