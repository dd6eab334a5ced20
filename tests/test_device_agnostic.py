"""Device-agnostic PyTorch code on numgrad: numgrad.cuda without a GPU, numgrad.accelerator, the
numgrad.backends flags, Tensor.is_* properties, the default device, GradScaler and autocast."""
import os
import warnings

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn as nn

torch = pytest.importorskip("torch")

# A real GPU, not the CUDA simulator the CUDA tests switch on (numgrad answers as without one here).
_gpu = os.environ.get("NUMBA_ENABLE_CUDASIM") != "1" and ng.cuda.is_available()
no_cuda = pytest.mark.skipif(_gpu or torch.cuda.is_available(),
                             reason="compares with PyTorch's behaviour on a machine without CUDA")


# ------------------------------------------------------------------------------ numgrad.cuda
@no_cuda
@pytest.mark.parametrize("name, args", [("is_available", ()), ("device_count", ()), ("is_initialized", ()),
                                        ("manual_seed", (0,)), ("manual_seed_all", (0,)), ("seed", ()),
                                        ("seed_all", ()), ("empty_cache", ()), ("memory_allocated", ()),
                                        ("max_memory_allocated", ()), ("memory_reserved", ()),
                                        ("is_bf16_supported", ())])
def test_gpu_less_cuda_functions_return_as_pytorch(name, args):
    if "memory" in name and os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        # The simulated-GPU tests of this process leave the allocator's counters behind.
        ng.backends.cuda.memory.empty_cache()
        ng.backends.cuda.memory.reset_peak_stats()
    assert getattr(ng.cuda, name)(*args) == getattr(torch.cuda, name)(*args)


@no_cuda
@pytest.mark.parametrize("name", ["initial_seed", "synchronize", "current_device", "get_device_name",
                                  "get_rng_state", "get_device_capability"])
def test_gpu_less_cuda_functions_needing_a_gpu_raise(name):
    with pytest.raises((AssertionError, RuntimeError)):
        getattr(torch.cuda, name)()
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        getattr(ng.cuda, name)()


@no_cuda
def test_seeding_cuda_leaves_the_cpu_stream_alone():
    ng.manual_seed(3)
    a = ng.rand(3)
    ng.manual_seed(3)
    ng.cuda.manual_seed_all(123)
    ng.cuda.manual_seed(7)
    np.testing.assert_array_equal(a.numpy(), ng.rand(3).numpy())


@no_cuda
def test_accelerator_matches_pytorch():
    assert ng.accelerator.is_available() == torch.accelerator.is_available()
    assert ng.accelerator.current_accelerator() == torch.accelerator.current_accelerator()
    assert ng.accelerator.device_count() == torch.accelerator.device_count()


def test_backend_flag_modules_match_pytorch_defaults():
    from numgrad.backends import cudnn, mps
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(cudnn, flag) == getattr(torch.backends.cudnn, flag)
    assert ng.backends.cudnn is cudnn and cudnn.is_available() is False and cudnn.version() is None
    assert mps.is_available() is False and mps.is_built() is False
    cudnn.benchmark = True  # programs set them; nothing else changes
    cudnn.benchmark = False


def test_tensor_kind_properties_match_pytorch():
    x, t = ng.ones(2), torch.ones(2)
    names = [n for n in dir(t) if n.startswith("is_") and not callable(getattr(t, n)) and n != "is_leaf"]
    assert names
    for name in names:
        assert getattr(x, name) == getattr(t, name), name


@pytest.mark.parametrize("expr", ["x.is_signed()", "u.is_signed()", "x.is_same_size(y)", "x.is_same_size(x.t())",
                                  "x.is_set_to(x[:])", "x.is_set_to(x.t())", "x.is_set_to(y)", "z.is_nonzero()",
                                  "x.is_pinned()", "x.is_shared()", "x.is_conj()", "x.is_neg()", "x.is_complex()"])
def test_tensor_kind_methods_match_pytorch(expr):
    def env(lib):
        return {"x": lib.ones(2, 3), "y": lib.zeros(2, 3), "u": lib.ones(1, dtype=lib.uint8), "z": lib.tensor([0.5])}
    assert eval(expr, env(ng)) == eval(expr, env(torch))


@pytest.mark.parametrize("shape", [(0,), (2,)])
def test_is_nonzero_errors_match_pytorch(shape):
    with pytest.raises(RuntimeError) as expected:
        torch.ones(shape).is_nonzero()
    with pytest.raises(RuntimeError, match=str(expected.value)):
        ng.ones(shape).is_nonzero()


# ------------------------------------------------------------------------------ the default device
def test_default_device_is_honoured_by_factories():
    assert ng.get_default_device() == ng.device("cpu")
    assert str(torch.get_default_device()) == str(ng.get_default_device())
    ng.set_default_device("cpu")
    try:
        for t in (ng.zeros(2), ng.tensor([1.0]), ng.arange(3), ng.randn(2), ng.empty(1), ng.full((1,), 2.0)):
            assert t.device == ng.device("cpu")
    finally:
        ng.set_default_device(None)
    assert ng.get_default_device() == ng.device("cpu")


@no_cuda
def test_device_as_a_context_manager_sets_the_default_for_the_block():
    with ng.device("cuda"):
        assert ng.get_default_device() == ng.device("cuda", 0)
        with ng.device("cpu"):
            assert ng.zeros(1).device == ng.device("cpu")
        with pytest.raises(RuntimeError, match="CUDA"):
            ng.ones(1)
    assert ng.get_default_device() == ng.device("cpu") and ng.zeros(1).device == ng.device("cpu")
    with torch.device("cpu"):
        assert torch.zeros(1).device == torch.device("cpu")


@no_cuda
def test_default_cuda_device_without_a_gpu_refuses_at_allocation():
    ng.set_default_device("cuda")
    try:
        assert ng.get_default_device() == ng.device("cuda", 0)
        with pytest.raises(RuntimeError, match="CUDA"):
            ng.zeros(2)
        assert ng.zeros(2, device="cpu").device == ng.device("cpu")
    finally:
        ng.set_default_device(None)
    assert ng.zeros(2).device == ng.device("cpu")


# ------------------------------------------------------------------------------ GradScaler
def _model_and_data(lib, dtype):
    lib.manual_seed(0)
    model = lib.nn.Linear(4, 3).to(dtype)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.tensor(np.linspace(-1, 1, 20).reshape(5, 4), dtype=dtype)
    return model, opt, x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grad_scaler_on_cpu_matches_pytorch(dtype):
    results = []
    for lib in (ng, torch):
        model, opt, x = _model_and_data(lib, getattr(lib, dtype))
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
        scales = []
        for step in range(5):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            if step == 2:
                loss = loss * float("inf")  # a non-finite gradient: the step is skipped, the scale backs off
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            grads = [p.grad.detach().clone().numpy() for p in model.parameters()]
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        results.append((scales, [p.detach().numpy().copy() for p in model.parameters()], grads,
                        scaler.state_dict()))
    (s1, p1, g1, d1), (s2, p2, g2, d2) = results
    assert s1 == s2 and d1 == d2
    for a, b in zip(p1 + g1, p2 + g2):
        np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7)


def test_grad_scaler_disabled_is_a_pass_through():
    model, opt, x = _model_and_data(ng, ng.float32)
    scaler = ng.amp.GradScaler("cpu", enabled=False)
    loss = model(x).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    before = model.weight.detach().clone()
    scaler.step(opt)
    scaler.update()
    assert not np.array_equal(before.numpy(), model.weight.detach().numpy())
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {} and not scaler.is_enabled()


def test_grad_scaler_state_dict_and_errors_match_pytorch():
    for lib in (ng, torch):
        model, opt, x = _model_and_data(lib, lib.float32)
        scaler = lib.amp.GradScaler("cpu")
        with pytest.raises(AssertionError, match="_scale is None"):
            scaler.update()
        scaled = scaler.scale([model(x).sum(), (model(x).mean(),)])
        assert isinstance(scaled, list) and isinstance(scaled[1], tuple)
        scaled[0].backward()
        scaler.unscale_(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            scaler.step(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            scaler.step(opt, closure=lambda: 0)
        scaler.update()
        state = scaler.state_dict()
        assert state == {"scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                         "growth_interval": 2000, "_growth_tracker": 1}
        other = lib.amp.GradScaler("cpu")
        other.load_state_dict(state)
        assert other.state_dict() == state
        with pytest.raises(RuntimeError, match="source state dict is empty"):
            other.load_state_dict({})


@no_cuda
def test_gpu_less_cuda_grad_scaler_warns_and_disables_as_pytorch():
    for lib in (ng, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = lib.amp.GradScaler("cuda")
        assert [str(w.message) for w in caught] == [
            "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."]
        assert not scaler.is_enabled()
        with pytest.warns(FutureWarning, match="deprecated"):
            assert not lib.cuda.amp.GradScaler().is_enabled()


# ------------------------------------------------------------------------------ autocast
def test_autocast_disabled_is_a_no_op_as_context_and_decorator():
    x = ng.ones(2, 3)
    for region in (ng.autocast("cpu", enabled=False), ng.amp.autocast("cpu", enabled=False),
                   ng.autocast("cuda", enabled=False)):
        with region:
            assert (x @ x.T).dtype is ng.float32

    @ng.autocast("cpu", enabled=False)
    def f(a):
        return a * 2

    assert f(x).dtype is ng.float32 and f.__name__ == "f"
    assert ng.is_autocast_enabled() is False


@no_cuda
def test_autocast_on_cuda_without_a_gpu_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with ng.autocast("cuda"):
            assert (ng.ones(2) * 2).dtype is ng.float32
    with pytest.warns(FutureWarning, match="deprecated"):
        with ng.cuda.amp.autocast():
            pass


def test_autocast_rejects_unknown_device_types():
    with pytest.raises(RuntimeError):
        torch.autocast("xyz")
    with pytest.raises(RuntimeError):
        ng.autocast("xyz")


def test_amp_training_loop_in_the_device_agnostic_style_runs():
    device = "cuda" if ng.cuda.is_available() else "cpu"
    model = nn.Linear(3, 1).to(device)
    opt = ng.optim.SGD(model.parameters(), lr=0.01)
    scaler = ng.amp.GradScaler(device, enabled=device == "cuda")
    with ng.autocast(device_type=device, enabled=False):
        loss = model(ng.ones(4, 3, device=device)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
