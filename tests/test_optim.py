"""numgrad.optim: updates step by step against PyTorch, param groups, state dicts, schedulers."""
import math

import numpy as np
import pytest

import numgrad as ng
from numgrad import optim

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
]


def _loss(lib, w, b, x):
    return ((x @ w + b).tanh() ** 2).sum()


@needs_torch
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_steps_match_torch(name, kwargs):
    rng = np.random.default_rng(0)
    w0, b0, x0 = rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal((4, 3))
    ours = [ng.tensor(w0, requires_grad=True), ng.tensor(b0, requires_grad=True)]
    theirs = [torch.tensor(w0, requires_grad=True), torch.tensor(b0, requires_grad=True)]
    opt = getattr(optim, name)(ours, **kwargs)
    ref = getattr(torch.optim, name)(theirs, **kwargs)
    x, tx = ng.tensor(x0), torch.tensor(x0)
    for _ in range(4):
        opt.zero_grad()
        ref.zero_grad()
        _loss(ng, *ours, x).backward()
        _loss(torch, *theirs, tx).backward()
        opt.step()
        ref.step()
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_sgd_formula_without_torch():
    p = ng.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.5, momentum=0.5)
    for expected in ([0.0, 0.0], [-1.5, 3.0]):
        opt.zero_grad()
        (p * p).sum().backward()  # grad 2p
        opt.step()
    # step 1: buf = 2p0 = [2, -4]; p = [0, 0]. step 2: grad 0, buf = [1, -2]; p = [-0.5, 1]
    np.testing.assert_allclose(p.detach().numpy(), [-0.5, 1.0])


def test_param_groups_and_zero_grad():
    a = ng.ones(2, requires_grad=True)
    b = ng.ones(2, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    (a.sum() + b.sum()).backward()
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [0.9, 0.9])
    np.testing.assert_allclose(b.detach().numpy(), [0.0, 0.0])
    opt.zero_grad(set_to_none=False)
    assert (a.grad == 0).all().item()
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([a * 2])
    with pytest.raises(TypeError):
        optim.SGD({a})


def test_state_dict_round_trip_continues_identically():
    def make():
        p = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return p, optim.Adam([p], lr=0.1)

    def step(p, opt):
        opt.zero_grad()
        (p ** 3).sum().backward()
        opt.step()

    p1, o1 = make()
    step(p1, o1)
    sd = o1.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    p2, o2 = make()
    with ng.no_grad():
        p2.copy_(p1)
    o2.load_state_dict(sd)
    step(p1, o1)
    step(p2, o2)
    np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    with pytest.raises(ValueError):
        optim.Adam([p2, ng.ones(1, requires_grad=True)]).load_state_dict(sd)


def test_optimizer_state_survives_save_load(tmp_path):
    p = ng.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    opt.step()
    ng.save(opt.state_dict(), tmp_path / "opt.ngt")
    loaded = ng.load(tmp_path / "opt.ngt")
    assert loaded["state"][0]["momentum_buffer"].tolist() == pytest.approx([2.0, 4.0])
    opt2 = optim.SGD([p], lr=0.5)
    opt2.load_state_dict(loaded)
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["params"][0] is p


def _lrs(scheduler_factory, lib, steps=12):
    p = lib.ones(1, requires_grad=True)
    opt = lib.optim.SGD([p], lr=1.0)
    sched = scheduler_factory(lib.optim.lr_scheduler, opt)
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


SCHEDULERS = [
    lambda m, o: m.StepLR(o, step_size=3, gamma=0.5),
    lambda m, o: m.CosineAnnealingLR(o, T_max=5, eta_min=0.1),
    lambda m, o: m.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.1),
    lambda m, o: m.ExponentialLR(o, gamma=0.9),
    lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e)),
]


@needs_torch
@pytest.mark.parametrize("factory", SCHEDULERS, ids=["step", "cosine", "multistep", "exponential", "lambda"])
def test_schedulers_match_torch(factory):
    np.testing.assert_allclose(_lrs(factory, ng), _lrs(factory, torch), rtol=1e-12)


def test_cosine_closed_form():
    lrs = _lrs(SCHEDULERS[1], ng, steps=5)
    expected = [0.1 + 0.9 * (1 + math.cos(math.pi * e / 5)) / 2 for e in range(1, 6)]
    np.testing.assert_allclose(lrs, expected, rtol=1e-12)
