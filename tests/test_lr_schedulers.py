"""numgrad.optim.lr_scheduler against PyTorch: 50-step lr (and momentum) sequences, state dicts,
closed forms, warnings and errors."""
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad.optim import lr_scheduler

torch = pytest.importorskip("torch")

_PLATEAU_METRICS = [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3]

SCHEDULES = {
    "lambda": lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
    "multiplicative": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95),
    "step": lambda m, o: m.StepLR(o, 7, 0.5),
    "multistep": lambda m, o: m.MultiStepLR(o, [3, 9, 9], 0.5),
    "constant": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=7),
    "linear": lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=10),
    "exponential": lambda m, o: m.ExponentialLR(o, gamma=0.9),
    "polynomial": lambda m, o: m.PolynomialLR(o, total_iters=20, power=2.0),
    "cosine": lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "warm_restarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01),
    "sequential": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=5), m.ExponentialLR(o, gamma=0.9)], milestones=[5]),
    "chained": lambda m, o: m.ChainedScheduler([m.ConstantLR(o, factor=0.5, total_iters=4),
                                                m.ExponentialLR(o, gamma=0.95)]),
    "cyclic": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6),
    "cyclic_triangular2": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="triangular2"),
    "cyclic_exp_range": lambda m, o: m.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=5,
                                                mode="exp_range", gamma=0.97),
    "one_cycle": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=50),
    "one_cycle_three_phase": lambda m, o: m.OneCycleLR(o, max_lr=1.0, epochs=6, steps_per_epoch=10,
                                                       three_phase=True, anneal_strategy="linear"),
    "plateau": lambda m, o: m.ReduceLROnPlateau(o, patience=2, cooldown=1, factor=0.5, min_lr=0.001),
}


def _sequence(lib, factory, optimizer="SGD", steps=50, restart_at=None, **options):
    """Learning rates and momenta of two parameter groups over ``steps`` epochs."""
    options = options or dict(lr=0.1, momentum=0.9)

    def make():
        p, q = lib.ones(1, requires_grad=True), lib.ones(1, requires_grad=True)
        opt = getattr(lib.optim, optimizer)([{"params": [p]}, {"params": [q], "lr": 0.05}], **options)
        return opt, factory(lib.optim.lr_scheduler, opt)

    opt, sched = make()
    lrs, momenta = [list(sched.get_last_lr())], []
    for i in range(steps):
        if i == restart_at:
            saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
            opt, sched = make()
            opt.load_state_dict(saved_opt)
            sched.load_state_dict(saved_sched)
        opt.step()
        if isinstance(sched, lib.optim.lr_scheduler.ReduceLROnPlateau):
            sched.step(_PLATEAU_METRICS[i % len(_PLATEAU_METRICS)])
        else:
            sched.step()
        lrs.append(list(sched.get_last_lr()))
        group = opt.param_groups[0]
        momenta.append(group["betas"][0] if "betas" in group else group["momentum"])
    return np.array(lrs), np.array(momenta)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_fifty_steps_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, ours_momenta = _sequence(ng, SCHEDULES[name])
        theirs, their_momenta = _sequence(torch, SCHEDULES[name])
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(ours_momenta, their_momenta, rtol=1e-13)


@pytest.mark.parametrize("name", ["one_cycle", "cyclic"])
def test_momentum_cycling_of_adam_betas(name):
    ours, ours_betas = _sequence(ng, SCHEDULES[name], "Adam", lr=0.1)
    theirs, their_betas = _sequence(torch, SCHEDULES[name], "Adam", lr=0.1)
    np.testing.assert_allclose(ours, theirs, rtol=1e-13)
    np.testing.assert_allclose(ours_betas, their_betas, rtol=1e-13)


@pytest.mark.parametrize("name", ["multiplicative", "multistep", "linear", "cosine", "warm_restarts",
                                  "sequential", "chained", "cyclic", "one_cycle", "plateau"])
def test_state_dict_round_trip(name):
    straight, _ = _sequence(ng, SCHEDULES[name], steps=20)
    resumed, _ = _sequence(ng, SCHEDULES[name], steps=20, restart_at=8)
    theirs, _ = _sequence(torch, SCHEDULES[name], steps=20, restart_at=8)
    np.testing.assert_array_equal(straight, resumed)
    np.testing.assert_allclose(resumed, theirs, rtol=1e-13)


def test_state_dict_contents():
    opt = ng.optim.SGD([ng.ones(1, requires_grad=True)], lr=0.1)
    sched = lr_scheduler.LambdaLR(opt, lambda e: 0.5)
    state = sched.state_dict()
    assert "optimizer" not in state and state["lr_lambdas"] == [None]
    assert state["base_lrs"] == [0.1] and state["last_epoch"] == 0
    seq = lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt), lr_scheduler.StepLR(opt, 2)], [3])
    nested = seq.state_dict()["_schedulers"]
    assert [s["total_iters"] for s in nested[:1]] == [5] and nested[1]["step_size"] == 2


@pytest.mark.parametrize("name", ["step", "multistep", "exponential", "cosine", "linear", "constant", "polynomial"])
def test_step_with_epoch_uses_closed_form(name):
    def run(lib):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        out = []
        with pytest.warns(UserWarning, match="epoch parameter"):
            for epoch in (3, 7, 4, 12):
                opt.step()
                sched.step(epoch)
                out.append(sched.get_last_lr()[0])
        return out
    np.testing.assert_allclose(run(ng), run(torch), rtol=1e-13)


def test_warm_restarts_fractional_epochs():
    def run(lib):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        out = []
        for epoch in np.arange(0, 20, 0.7):
            opt.step()
            sched.step(float(epoch))
            out.append(sched.get_last_lr()[0])
        return out
    np.testing.assert_allclose(run(ng), run(torch), rtol=1e-13)


def test_warnings():
    opt = ng.optim.SGD([ng.ones(1, requires_grad=True)], lr=0.1)
    sched = lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()
    opt2 = ng.optim.SGD([ng.ones(1, requires_grad=True)], lr=0.1)
    sched2 = lr_scheduler.ExponentialLR(opt2, 0.5)
    opt2.step = lambda closure=None: None
    with pytest.warns(UserWarning, match="overridden"):
        sched2.step()


def test_one_cycle_past_total_steps_raises():
    opt = ng.optim.SGD([ng.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        sched.step()


@pytest.mark.parametrize("make,error,match", [
    (lambda m, o: m.StepLR("sgd", 2), TypeError, "str is not an Optimizer"),
    (lambda m, o: m.ConstantLR(o, factor=1.5), ValueError, "between 0 and 1"),
    (lambda m, o: m.LinearLR(o, start_factor=0), ValueError, "Starting multiplicative factor"),
    (lambda m, o: m.LambdaLR(o, [lambda e: 1, lambda e: 1]), ValueError, "Expected 1 lr_lambdas, but got 2"),
    (lambda m, o: m.MultiplicativeLR(o, 0.5), TypeError, "lr_lambda should be a function"),
    (lambda m, o: m.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda m, o: m.ReduceLROnPlateau(o, mode="upward"), ValueError, "mode upward is unknown!"),
    (lambda m, o: m.CyclicLR(o, 0.01, 0.1, mode="zigzag"), ValueError, "mode is invalid"),
    (lambda m, o: m.CyclicLR(m.optim_adagrad(o), 0.01, 0.1), ValueError, "must support momentum"),
    (lambda m, o: m.OneCycleLR(o, 1.0), ValueError, "You must define either total_steps"),
    (lambda m, o: m.OneCycleLR(o, 1.0, total_steps=10, anneal_strategy="step"), ValueError, "anneal_strategy"),
    (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "Expected positive integer T_0"),
    (lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2)], milestones=[3]), ValueError, "one more than the number"),
    (lambda m, o: m.ChainedScheduler([m.ReduceLROnPlateau(o)]), ValueError, "does not support `ReduceLROnPlateau`"),
    (lambda m, o: m.StepLR(o, 2, last_epoch=4), KeyError, "initial_lr"),
])
def test_errors(make, error, match):
    class Namespace:
        pass
    for lib in (ng, torch):
        m = Namespace()
        m.__dict__.update({k: getattr(lib.optim.lr_scheduler, k) for k in lr_scheduler.__all__})
        m.optim_adagrad = lambda o, lib=lib: lib.optim.Adagrad(o.param_groups[0]["params"])
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
        with pytest.raises(error, match=match):
            make(m, opt)
