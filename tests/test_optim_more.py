"""numgrad.optim against PyTorch: 20 steps of every optimizer and its options, state dicts,
parameter groups, flags and errors, and L-BFGS with and without the strong-Wolfe search."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import optim

torch = pytest.importorskip("torch")

# (optimizer, options): each optimizer with its defaults and its main options.
CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.05)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
    ("RMSprop", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(weight_decay=0.1)),
    ("RAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.4, 1.5), step_sizes=(1e-3, 0.1), maximize=True)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]

# numgrad runs PyTorch's single-tensor steps op for op, each op rounding as PyTorch's CPU kernels
# round (fused multiply-adds in add with alpha, addcmul and lerp), so the parameters match bit
# for bit. The exception is sqrt: PyTorch's CPU sqrt goes through MKL's vector math, which is not
# correctly rounded (about 1 element in 6 is off by an ulp in float32), so the optimizers that
# take a square root match PyTorch's to an ulp per step, and exactly once PyTorch's sqrt is a
# correctly rounded one (test_bit_identical_with_correctly_rounded_sqrt).
SQRT_FREE = {"SGD", "Adamax", "ASGD", "Rprop"}
TOL = {"float64": dict(rtol=1e-12, atol=1e-14), "float32": dict(rtol=2e-6, atol=2e-7)}


def _assert_match(a, b, name, dtype):
    if name in SQRT_FREE:
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, **TOL[dtype])


def _run(lib, name, kwargs, dtype, steps=20, restart_at=None):
    """A (7, 11) weight and a bias after ``steps`` updates from fixed gradients (sizes that are
    not multiples of 16, so PyTorch's vector loops and their scalar tails both run)."""
    dt = getattr(lib, dtype)
    rng = np.random.default_rng(0)
    w = lib.tensor(rng.standard_normal((7, 11)), dtype=dt, requires_grad=True)
    b = lib.tensor(rng.standard_normal(3), dtype=dt, requires_grad=True)
    opt = getattr(lib.optim, name)([w, b], **kwargs)
    for i in range(steps):
        if i == restart_at:
            saved = opt.state_dict()
            opt = getattr(lib.optim, name)([w, b], **kwargs)
            opt.load_state_dict(saved)
        g = np.random.default_rng(100 + i)
        w.grad = lib.tensor(g.standard_normal((7, 11)), dtype=dt)
        b.grad = lib.tensor(g.standard_normal(3), dtype=dt)
        opt.step()
    return [w.detach().numpy(), b.detach().numpy()], opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_twenty_steps_match_torch(name, kwargs, dtype):
    ours, opt = _run(ng, name, kwargs, dtype)
    theirs, ref = _run(torch, name, dict(kwargs, foreach=False), dtype)
    for a, b in zip(ours, theirs):
        _assert_match(a, b, name, dtype)
    ours_state, theirs_state = opt.state_dict(), ref.state_dict()
    assert ours_state["param_groups"][0].keys() == theirs_state["param_groups"][0].keys()
    for i in theirs_state["state"]:
        assert list(ours_state["state"][i]) == list(theirs_state["state"][i])
        for key, value in theirs_state["state"][i].items():
            _assert_match(np.asarray(ours_state["state"][i][key]), value.numpy(), name, dtype)


def _correctly_rounded_sqrt(x):
    return torch.from_numpy(np.sqrt(x.detach().numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[0] not in SQRT_FREE],
                         ids=[i for i, c in zip(IDS, CASES) if c[0] not in SQRT_FREE])
def test_bit_identical_with_correctly_rounded_sqrt(name, kwargs, dtype, monkeypatch):
    monkeypatch.setattr(torch.Tensor, "sqrt", _correctly_rounded_sqrt)
    monkeypatch.setattr(torch.Tensor, "sqrt_", lambda x: x.copy_(_correctly_rounded_sqrt(x)))
    monkeypatch.setattr(torch, "sqrt", _correctly_rounded_sqrt)
    ours, _ = _run(ng, name, kwargs, dtype)
    theirs, _ = _run(torch, name, dict(kwargs, foreach=False), dtype)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,kwargs", [CASES[i] for i in (2, 4, 8, 9, 11, 13, 16, 19, 21, 23)],
                         ids=[IDS[i] for i in (2, 4, 8, 9, 11, 13, 16, 19, 21, 23)])
def test_state_dict_round_trip_continues_identically(name, kwargs):
    straight, _ = _run(ng, name, kwargs, "float64")
    resumed, _ = _run(ng, name, kwargs, "float64", restart_at=10)
    theirs, _ = _run(torch, name, dict(kwargs, foreach=False), "float64", restart_at=10)
    # Loading casts 0-d float states (NAdam's mu_product, ASGD's eta and mu) to the parameter's
    # dtype, as PyTorch does, so only those runs may move by rounding.
    exact = name not in ("NAdam", "ASGD")
    for a, b, c in zip(straight, resumed, theirs):
        np.testing.assert_allclose(b, c, **TOL["float64"])
        if exact:
            np.testing.assert_array_equal(a, b)


def test_state_dict_loads_into_torch():
    (w, b), opt = _run(ng, "Adam", dict(lr=0.01, amsgrad=True), "float64", steps=5)
    sd = opt.state_dict()
    tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    ref = torch.optim.Adam([tw, tb], lr=0.01, amsgrad=True, foreach=False)
    ref.load_state_dict({"state": {i: {k: torch.tensor(v.numpy()) for k, v in s.items()} for i, s in sd["state"].items()},
                         "param_groups": sd["param_groups"]})
    assert float(ref.state_dict()["state"][0]["step"]) == 5.0
    assert sd["state"][0]["step"].dtype is ng.float32 and sd["state"][0]["step"].item() == 5.0


@pytest.mark.parametrize("flags", [dict(foreach=True), dict(fused=True), dict(capturable=True)])
def test_flags_give_the_same_update(flags):
    plain, _ = _run(ng, "Adam", dict(lr=0.01), "float64", steps=3)
    flagged, _ = _run(ng, "Adam", dict(lr=0.01, **flags), "float64", steps=3)
    for a, b in zip(plain, flagged):
        np.testing.assert_array_equal(a, b)
    if "fused" not in flags:
        for name in ("Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "RMSprop"):
            getattr(optim, name)([ng.ones(2, requires_grad=True)], **flags)


def test_differentiable_steps_with_grad_mode_on():
    # As in PyTorch, the update is recorded, so an in-place write into a leaf is refused.
    w = ng.ones(3, requires_grad=True)
    w.grad = ng.ones(3)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        optim.Adam([w], differentiable=True).step()


def test_param_groups_with_own_options():
    def run(lib):
        a = lib.ones(3, dtype=lib.float64, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.NAdam([{"params": [a]}, {"params": [b], "lr": 0.1, "weight_decay": 0.5}], lr=0.01)
        for _ in range(4):
            opt.zero_grad()
            ((a * a).sum() + (b ** 3).sum()).backward()
            opt.step()
        return a.detach().numpy(), b.detach().numpy(), opt.param_groups[1]["weight_decay"]
    for x, y in zip(run(ng), run(torch)):
        np.testing.assert_allclose(x, y, rtol=1e-12)


def test_non_contiguous_and_empty_parameters():
    base = np.random.default_rng(1).standard_normal((5, 3))
    p = ng.tensor(base, requires_grad=False).t().detach().requires_grad_()
    e = ng.zeros(0, 3, requires_grad=True)
    tp = torch.tensor(base).t().detach().requires_grad_()
    assert not p.is_contiguous()
    opt = optim.RAdam([p, e], lr=0.1)
    ref = torch.optim.RAdam([tp], lr=0.1, foreach=False)
    for i in range(8):
        g = np.random.default_rng(i).standard_normal((3, 5))
        p.grad, tp.grad, e.grad = ng.tensor(g), torch.tensor(g), ng.zeros(0, 3)
        opt.step()
        ref.step()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12)
    assert e.shape == (0, 3)


def test_zero_grad_and_skipped_parameters():
    a = ng.ones(2, requires_grad=True)
    b = ng.ones(2, requires_grad=True)
    opt = optim.Adamax([a, b])
    (a * 2).sum().backward()
    opt.step()
    assert b not in opt.state and a in opt.state
    opt.zero_grad(set_to_none=False)
    assert a.grad is not None and not a.grad.any().item()
    opt.zero_grad()
    assert a.grad is None


@pytest.mark.parametrize("make,error,match", [
    (lambda p: optim.Adadelta(p, rho=1.5), ValueError, "Invalid rho value: 1.5"),
    (lambda p: optim.Adamax(p, betas=(0.9, 1.0)), ValueError, "Invalid beta parameter at index 1"),
    (lambda p: optim.NAdam(p, momentum_decay=-1), ValueError, "Invalid momentum_decay value"),
    (lambda p: optim.RAdam(p, lr=-1), ValueError, "Invalid learning rate"),
    (lambda p: optim.ASGD(p, weight_decay=-1), ValueError, "Invalid weight_decay value"),
    (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), ValueError, "Invalid eta values: 1.5, 1.2"),
    (lambda p: optim.Adam(p, fused=True, foreach=True), RuntimeError, "cannot be `True` together"),
    (lambda p: optim.SGD(p, fused=True, differentiable=True), RuntimeError, "does not support `differentiable`"),
    (lambda p: optim.LBFGS([{"params": p[:1]}, {"params": p[1:]}]), ValueError, "parameter groups"),
])
def test_errors(make, error, match):
    with pytest.raises(error, match=match):
        make([ng.ones(2, requires_grad=True), ng.ones(1, requires_grad=True)])


# ---------------------------------------------------------------- L-BFGS

def _lbfgs(lib, problem, dtype, steps=3, **kwargs):
    dt = getattr(lib, dtype)
    x = lib.tensor([-1.2, 1.0, -0.5, 0.8], dtype=dt, requires_grad=True)
    a = lib.tensor(np.random.default_rng(0).standard_normal((6, 4)), dtype=dt)
    y = lib.tensor(np.arange(6.0), dtype=dt)
    opt = lib.optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        if problem == "rosenbrock":
            loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        else:
            loss = ((a @ x - y) ** 2).sum()
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(steps)]
    state = opt.state[x]
    return x.detach().numpy(), losses, state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("problem,kwargs", [
    ("least_squares", dict()),
    ("least_squares", dict(line_search_fn="strong_wolfe", history_size=3, max_iter=7)),
    ("rosenbrock", dict(lr=0.5, history_size=3, max_iter=7)),
    ("rosenbrock", dict(line_search_fn="strong_wolfe")),
    ("rosenbrock", dict(line_search_fn="strong_wolfe", history_size=3, max_iter=7, tolerance_change=1e-6)),
])
def test_lbfgs_matches_torch(problem, kwargs):
    x, losses, evals, iters = _lbfgs(ng, problem, "float64", **kwargs)
    tx, tlosses, tevals, titers = _lbfgs(torch, problem, "float64", **kwargs)
    assert (evals, iters) == (tevals, titers)
    # Dot products round differently from PyTorch's BLAS; Rosenbrock's valley magnifies that.
    np.testing.assert_allclose(x, tx, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-8)


def test_lbfgs_float32_converges_like_torch():
    # Dot products sum in another order than PyTorch's BLAS, so float32 paths split after a few
    # iterations; both reach the least-squares minimum.
    x, losses, _, _ = _lbfgs(ng, "least_squares", "float32", line_search_fn="strong_wolfe")
    tx, tlosses, _, _ = _lbfgs(torch, "least_squares", "float32", line_search_fn="strong_wolfe")
    np.testing.assert_allclose(x, tx, rtol=1e-4, atol=1e-5)
    assert losses[-1] == pytest.approx(tlosses[-1], rel=1e-5)


def test_lbfgs_state_and_errors():
    x = ng.tensor([3.0, -2.0], requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((x - 1) ** 2).sum()
        loss.backward()
        return loss

    first = opt.step(closure)
    assert first.item() == pytest.approx(13.0)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-6)
    state = opt.state_dict()["state"][0]
    assert {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
            "prev_loss"} <= set(state)
    assert opt.param_groups[0]["max_eval"] == 25
    bad = optim.LBFGS([ng.tensor([3.0], requires_grad=True)], line_search_fn="armijo")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        bad.step(lambda: (bad.param_groups[0]["params"][0] ** 2).sum().backward() or ng.tensor(1.0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_update_ops_round_as_torch(dtype):
    # 1013 elements: PyTorch's vector loops and their scalar tail; [::2] a strided operand.
    rng = np.random.default_rng(3)
    s, e, t = (rng.standard_normal(1013).astype(dtype) for _ in range(3))
    q, w = np.abs(t) + 0.1, rng.random(1013).astype(dtype)
    calls = [lambda lib, s, e, t, q, w: s.lerp_(e, 0.1),
             lambda lib, s, e, t, q, w: s.lerp_(e, 0.7),
             lambda lib, s, e, t, q, w: s.lerp(e, w),
             lambda lib, s, e, t, q, w: s.addcmul_(e, t, value=-0.3),
             lambda lib, s, e, t, q, w: s[::2].addcmul(e[::2], t[::2]),
             lambda lib, s, e, t, q, w: s.addcdiv_(e, q, value=0.3),
             lambda lib, s, e, t, q, w: s.add_(e, alpha=-0.01)]
    for call in calls:
        ours = call(ng, *(ng.tensor(a) for a in (s, e, t, q, w))).numpy()
        theirs = call(torch, *(torch.tensor(a) for a in (s, e, t, q, w))).numpy()
        np.testing.assert_array_equal(ours, theirs)
