"""CPU autocast as PyTorch's: inside ``autocast('cpu')`` the ops PyTorch lists as lower-precision
run in bfloat16 (or float16), its float32 ops in float32, the rest in the dtypes they are given;
each call's output dtype, value and gradients are PyTorch's."""
import threading
import warnings

import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)


def _arr(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def _labels(*values):
    return np.array(values, dtype=np.int64)


# name -> (function of the library and its tensors, the arrays)
CASES = {
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [_arr(4, 8), _arr(3, 8), _arr(3)]),
    "matmul": (lambda L, x, y: x @ y, [_arr(4, 8), _arr(8, 3)]),
    "mm": (lambda L, x, y: L.mm(x, y), [_arr(4, 8), _arr(8, 3)]),
    "bmm": (lambda L, x, y: L.bmm(x, y), [_arr(2, 4, 8), _arr(2, 8, 3)]),
    "addmm": (lambda L, b, x, y: L.addmm(b, x, y), [_arr(3), _arr(4, 8), _arr(8, 3)]),
    "baddbmm": (lambda L, b, x, y: L.baddbmm(b, x, y), [_arr(2, 4, 3), _arr(2, 4, 8), _arr(2, 8, 3)]),
    "conv1d": (lambda L, x, w: L.nn.functional.conv1d(x, w), [_arr(2, 3, 9), _arr(4, 3, 3)]),
    "conv2d": (lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1), [_arr(2, 3, 5, 5), _arr(4, 3, 3, 3), _arr(4)]),
    "conv_transpose2d": (lambda L, x, w: L.nn.functional.conv_transpose2d(x, w, stride=2),
                         [_arr(2, 3, 4, 4), _arr(3, 2, 3, 3)]),
    "prelu": (lambda L, x, w: L.nn.functional.prelu(x, w), [_arr(2, 3, 4), _arr(3)]),
    "sdpa": (lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q, k, v),
             [_arr(2, 4, 8), _arr(2, 4, 8), _arr(2, 4, 8)]),
    "unlisted ops keep their input's dtype": (lambda L, x, w: L.relu(L.softmax(x @ w, -1)).sum(), [_arr(4, 8), _arr(8, 3)]),
    "layer_norm of a product": (lambda L, x, w, g: L.nn.functional.layer_norm(x @ w, (3,), g), [_arr(4, 8), _arr(8, 3), _arr(3)]),
    "bf16 + float32 promotes": (lambda L, x, w, b: (x @ w) + b, [_arr(4, 8), _arr(8, 3), _arr(3)]),
    "cross_entropy": (lambda L, x, w, y: L.nn.functional.cross_entropy(x @ w, y), [_arr(4, 8), _arr(8, 3), _labels(0, 1, 2, 0)]),
    "nll_loss": (lambda L, x, w, y: L.nn.functional.nll_loss(L.log_softmax(x @ w, 1), y),
                 [_arr(4, 8), _arr(8, 3), _labels(0, 1, 2, 0)]),
    "mse_loss": (lambda L, x, w, t: L.nn.functional.mse_loss(x @ w, t), [_arr(4, 8), _arr(8, 3), _arr(4, 3)]),
    "l1_loss": (lambda L, x, w, t: L.nn.functional.l1_loss(x @ w, t), [_arr(4, 8), _arr(8, 3), _arr(4, 3)]),
    "smooth_l1_loss": (lambda L, x, w, t: L.nn.functional.smooth_l1_loss(x @ w, t), [_arr(4, 8), _arr(8, 3), _arr(4, 3)]),
    "bce_with_logits": (lambda L, x, w, t: L.nn.functional.binary_cross_entropy_with_logits(x @ w, t),
                        [_arr(4, 8), _arr(8, 3), np.abs(_arr(4, 3))]),
    "kl_div": (lambda L, x, w, t: L.nn.functional.kl_div(L.log_softmax(x @ w, 1), t, reduction="batchmean"),
               [_arr(4, 8), _arr(8, 3), np.abs(_arr(4, 3))]),
    "prod": (lambda L, x, w: (x @ w).prod(1), [_arr(4, 8), _arr(8, 3)]),
    "cdist": (lambda L, x, w: L.cdist(x @ w, x @ w), [_arr(4, 8), _arr(8, 3)]),
    "trace": (lambda L, x, w: L.trace(x @ w), [_arr(4, 8), _arr(8, 4)]),
    "linalg.inv of a bf16 product": (lambda L, x, w: L.linalg.inv(x @ w), [_arr(4, 8), _arr(8, 4)]),
    "float64 is left alone": (lambda L, x, w: x @ w, [_arr(4, 8).astype(np.float64), _arr(8, 3).astype(np.float64)]),
    "cat promotes": (lambda L, x, w, b: L.cat([x @ w, b]), [_arr(4, 8), _arr(8, 3), _arr(2, 3)]),
    "MultiheadAttention": (lambda L, x: L.nn.MultiheadAttention(8, 2, batch_first=True)(x, x, x)[0], [_arr(2, 5, 8)]),
}


def _run(lib, fn, arrays, dtype):
    leaves = [lib.tensor(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    lib.manual_seed(0)
    with lib.autocast("cpu", dtype=getattr(lib, dtype)):
        out = fn(lib, *leaves)
    dtype_name = str(out.dtype).split(".")[1]
    grads = []
    if out.requires_grad:
        weights = lib.linspace(-1, 1, out.numel(), dtype=lib.float64).reshape(out.shape)
        (out.double() * weights).sum().backward()
        grads = [(str(t.grad.dtype).split(".")[1], t.grad.double().numpy()) for t in leaves if t.requires_grad]
    return dtype_name, out.detach().double().numpy(), grads


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(CASES))
def test_autocast_matches_torch(name, dtype):
    fn, arrays = CASES[name]
    t_dtype, t_out, t_grads = _run(torch, fn, arrays, dtype)
    n_dtype, n_out, n_grads = _run(numgrad, fn, arrays, dtype)
    assert n_dtype == t_dtype
    assert [d for d, _ in n_grads] == [d for d, _ in t_grads]
    tol = 1.6e-2 if dtype == "bfloat16" else 2e-3
    scale = max(float(np.abs(t_out).max()), 1.0) if t_out.size else 1.0
    np.testing.assert_allclose(n_out, t_out, rtol=tol, atol=tol * scale)
    for (_, n), (_, t) in zip(n_grads, t_grads):
        np.testing.assert_allclose(n, t, rtol=tol, atol=2 * tol * max(float(np.abs(t).max()), 0.1))


def test_training_step_in_autocast_matches_torch():
    """The usual loop: float32 parameters, the forward under autocast, float32 gradients."""
    losses = {}
    for lib in (torch, numgrad):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 32), lib.nn.ReLU(), lib.nn.Linear(32, 4))
        opt = lib.optim.Adam(model.parameters(), lr=1e-2)
        x = lib.tensor(np.linspace(-1, 1, 128, dtype=np.float32).reshape(16, 8))
        y = lib.tensor(np.arange(16) % 4)
        losses[lib] = []
        for _ in range(8):
            opt.zero_grad()
            with lib.autocast("cpu"):
                logits = model(x)
                loss = lib.nn.functional.cross_entropy(logits, y)
            assert logits.dtype == lib.bfloat16 and loss.dtype == lib.float32
            loss.backward()
            assert model[0].weight.grad.dtype == lib.float32
            opt.step()
            losses[lib].append(loss.item())
    np.testing.assert_allclose(losses[numgrad], losses[torch], rtol=1e-2)


def test_region_state_nesting_and_decorator():
    x = numgrad.ones(2, 3)
    assert not numgrad.is_autocast_enabled("cpu") and numgrad.get_autocast_dtype("cpu") is numgrad.bfloat16
    with numgrad.autocast("cpu"):
        assert numgrad.is_autocast_enabled("cpu") and numgrad.is_autocast_cpu_enabled()
        assert (x @ x.T).dtype is numgrad.bfloat16
        with numgrad.autocast("cpu", enabled=False):
            assert (x @ x.T).dtype is numgrad.float32 and not numgrad.is_autocast_enabled("cpu")
        with numgrad.autocast("cpu", dtype=numgrad.float16):
            assert (x @ x.T).dtype is numgrad.float16 and numgrad.get_autocast_dtype("cpu") is numgrad.float16
        assert (x @ x.T).dtype is numgrad.bfloat16
    assert not numgrad.is_autocast_enabled("cpu") and (x @ x.T).dtype is numgrad.float32

    @numgrad.autocast("cpu")
    def forward(a):
        return numgrad.nn.functional.linear(a, a)

    assert forward(x).dtype is numgrad.bfloat16 and forward.__name__ == "forward"
    assert (x @ x.T).dtype is numgrad.float32


def test_region_is_per_thread():
    seen = []

    def other():
        seen.append((numgrad.ones(2, 2) @ numgrad.ones(2, 2)).dtype)

    with numgrad.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [numgrad.float32]


def test_an_exception_leaves_the_region():
    with pytest.raises(ValueError):
        with numgrad.autocast("cpu"):
            raise ValueError
    assert not numgrad.is_autocast_enabled("cpu")
    assert (numgrad.ones(2, 2) @ numgrad.ones(2, 2)).dtype is numgrad.float32


def test_unsupported_cpu_dtype_warns_and_disables_as_torch():
    for lib in (torch, numgrad):
        with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently"):
            with lib.autocast("cpu", dtype=lib.float64):
                assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32


def test_ops_inside_a_cast_op_are_not_cast_again():
    # cdist (float32) computes with products (lower precision) inside: they stay in float32.
    x = numgrad.tensor(_arr(5, 3)).bfloat16()
    with numgrad.autocast("cpu"):
        d = numgrad.cdist(x, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.cdist(torch.tensor(x.float().numpy()), torch.tensor(x.float().numpy()))
    assert d.dtype is numgrad.float32
    np.testing.assert_allclose(d.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_grad_scaler_on_the_cpu_with_autocast_matches_torch():
    """``GradScaler('cpu')`` around an autocast step: the same losses, scales and skipped step."""
    results = {}
    for lib in (torch, numgrad):
        lib.manual_seed(0)
        model = lib.nn.Linear(4, 2)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
        x = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
        trace = []
        for step in range(5):
            opt.zero_grad()
            with lib.autocast("cpu"):
                loss = model(x).float().pow(2).mean()
            scaler.scale(loss).backward()
            if step == 2:
                model.weight.grad[0, 0] = float("inf")  # this step is skipped and the scale halves
            scaler.step(opt)
            scaler.update()
            trace.append((loss.item(), scaler.get_scale()))
        results[lib] = trace, model.weight.detach().double().numpy()
    np.testing.assert_allclose(np.array(results[numgrad][0]), np.array(results[torch][0]), rtol=1e-6)
    np.testing.assert_allclose(results[numgrad][1], results[torch][1], rtol=1e-6)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_in_autocast_match_torch(name):
    """PyTorch runs its CPU LSTM (oneDNN's layer) and RNN cells in bfloat16 under autocast and
    its GRU in the input's dtype; numgrad's layers do the same."""
    results = {}
    for lib in (torch, numgrad):
        lib.manual_seed(0)
        layer = getattr(lib.nn, name)(8, 16, batch_first=True, num_layers=2)
        x = lib.tensor(np.linspace(-1, 1, 80, dtype=np.float32).reshape(2, 5, 8)).requires_grad_()
        with lib.autocast("cpu"):
            out, state = layer(x)
        weights = lib.linspace(-1, 1, out.numel(), dtype=lib.float64).reshape(out.shape)
        (out.double() * weights).sum().backward()
        h = state[0] if isinstance(state, tuple) else state
        results[lib] = ([str(t.dtype).split(".")[1] for t in (out, h, x.grad, layer.weight_ih_l0.grad)],
                        [t.detach().double().numpy() for t in (out, x.grad, layer.weight_ih_l0.grad)])
    assert results[numgrad][0] == results[torch][0]
    for n, t in zip(results[numgrad][1], results[torch][1]):
        np.testing.assert_allclose(n, t, rtol=0, atol=2e-2 * np.abs(t).max())
