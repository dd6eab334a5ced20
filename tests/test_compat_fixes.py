"""Details PyTorch programs print that numgrad once printed differently."""
import importlib
import warnings

import numpy
import pytest

import numgrad
from numgrad import nn

torch = pytest.importorskip("torch")


def test_load_state_dict_result_prints_like_pytorch():
    model = nn.Linear(2, 3)
    reference = torch.nn.Linear(2, 3)
    assert str(model.load_state_dict(model.state_dict())) == str(reference.load_state_dict(reference.state_dict()))
    partial = model.load_state_dict({"weight": model.weight}, strict=False)
    expected = reference.load_state_dict({"weight": reference.weight}, strict=False)
    assert repr(partial) == repr(expected)
    assert partial.missing_keys == ["bias"] and partial.unexpected_keys == []
    missing, unexpected = partial
    assert (missing, unexpected) == (["bias"], [])


@pytest.mark.parametrize("name, kwargs", [
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("Adam", {}), ("AdamW", {}), ("Adagrad", {}), ("Adadelta", {}),
    ("Adamax", {}), ("ASGD", {}), ("NAdam", {}), ("RAdam", {}), ("RMSprop", {}),
])
def test_optimizer_prints_pytorchs_defaults(name, kwargs):
    ours = getattr(numgrad.optim, name)([nn.Parameter(numgrad.ones(2))], lr=0.1, **kwargs)
    theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], lr=0.1, **kwargs)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("make", [lambda m: m.arange(3).mean(dtype=m.long), lambda m: m.ones(3).mean(dtype=m.int32)])
def test_mean_with_an_integer_dtype_names_the_dtype_argument(make):
    with pytest.raises(RuntimeError) as theirs:
        make(torch)
    with pytest.raises(RuntimeError) as ours:
        make(numgrad)
    assert str(ours.value) == str(theirs.value)


@pytest.fixture
def restore_settings():
    saved = (numgrad.are_deterministic_algorithms_enabled(), numgrad.is_deterministic_algorithms_warn_only_enabled(),
             numgrad.get_float32_matmul_precision(), numgrad.get_num_threads())
    yield
    numgrad.use_deterministic_algorithms(saved[0], warn_only=saved[1])
    numgrad.set_float32_matmul_precision(saved[2])
    numgrad.set_num_threads(saved[3])


def test_deterministic_algorithms_flags_round_trip(restore_settings):
    assert numgrad.get_deterministic_debug_mode() == 0
    numgrad.use_deterministic_algorithms(True, warn_only=True)
    assert numgrad.are_deterministic_algorithms_enabled() and numgrad.is_deterministic_algorithms_warn_only_enabled()
    assert numgrad.get_deterministic_debug_mode() == 1
    numgrad.set_deterministic_debug_mode("error")
    assert numgrad.get_deterministic_debug_mode() == 2 and not numgrad.is_deterministic_algorithms_warn_only_enabled()
    numgrad.set_deterministic_debug_mode(0)
    assert not numgrad.are_deterministic_algorithms_enabled()
    with pytest.raises(TypeError, match="argument 'mode' must be bool"):
        numgrad.use_deterministic_algorithms(1)
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        numgrad.set_deterministic_debug_mode("loud")


def test_matmul_precision_and_threads(restore_settings):
    assert numgrad.get_float32_matmul_precision() == "highest"
    numgrad.set_float32_matmul_precision("high")
    assert numgrad.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        numgrad.set_float32_matmul_precision("fast")
    assert numgrad.get_float32_matmul_precision() == "high"
    numgrad.set_num_threads(1)
    assert numgrad.get_num_threads() == 1
    assert (numgrad.ones(64, 64) @ numgrad.ones(64, 64)).sum().item() == 64 ** 3
    with pytest.raises(RuntimeError, match="expects a positive integer"):
        numgrad.set_num_threads(0)
    with pytest.raises(RuntimeError, match="expects an int, but got float"):
        numgrad.set_num_threads(1.5)


def _train_with_weight_averaging(lib, dtype):
    swa = lib.optim.swa_utils
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)).to(dtype)
    averaged = [swa.AveragedModel(model), swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9)),
                swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.8), use_buffers=True)]
    opt = lib.optim.SGD(model.parameters(), lr=0.5)
    scheduler = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear")
    x, y = lib.randn(16, 3, dtype=dtype), lib.randint(0, 2, (16,))
    lrs = []
    for _ in range(4):
        for i in range(0, 16, 8):
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(x[i:i + 8]), y[i:i + 8]).backward()
            opt.step()
        for m in averaged:
            m.update_parameters(model)
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    swa.update_bn([(x[:8], y[:8]), (x[8:], y[8:])], averaged[0])
    outputs = []
    for m in averaged:
        m.eval()
        outputs.append(m(x).detach().numpy())
    return lrs, outputs, averaged[0].module[1].running_var.numpy(), int(averaged[0].n_averaged), \
        list(averaged[0].state_dict())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_swa_utils_match_pytorch(dtype):
    ours = _train_with_weight_averaging(numgrad, getattr(numgrad, dtype))
    theirs = _train_with_weight_averaging(torch, getattr(torch, dtype))
    rtol = 1e-5 if dtype == "float32" else 1e-10
    assert ours[0] == pytest.approx(theirs[0], rel=1e-12)
    for a, b in zip(ours[1], theirs[1]):
        numpy.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)
    numpy.testing.assert_allclose(ours[2], theirs[2], rtol=rtol)
    assert ours[3:] == theirs[3:]


def test_swalr_checks_its_arguments():
    opt = numgrad.optim.SGD([nn.Parameter(numgrad.ones(1))], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        numgrad.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        numgrad.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=-1)
    with pytest.raises(ValueError, match="swa_lr must have the same length"):
        numgrad.optim.swa_utils.SWALR(opt, swa_lr=[0.01, 0.02])


def test_float_of_a_tensor_that_requires_grad_warns_once_as_pytorch(monkeypatch):
    # numgrad.tensor is the factory; the module is found by name.
    monkeypatch.setattr(importlib.import_module("numgrad.tensor"), "_float_of_grad_tensor_warned", [False])
    loss = (numgrad.ones(2, requires_grad=True) * 2).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with numgrad.no_grad():
            assert float(loss) == 4.0
        assert float(loss.detach()) == 4.0 and loss.item() == 4.0 and f"{loss:.1f}" == "4.0"
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a scalar"):
        assert float(loss) == 4.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(loss) == 4.0


def test_lbfgs_reads_the_loss_without_warning():
    x = nn.Parameter(numgrad.tensor([1.0, -2.0]))
    opt = numgrad.optim.LBFGS([x], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((x - 3) ** 2).sum()
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step(closure)
    assert x.detach().numpy() == pytest.approx([3.0, 3.0])
