"""The profiler names each op as PyTorch's does: a call's first top-level event is the one
PyTorch's profiler records for the same call (``aten::flip`` for ``flip``, ``aten::add_`` for
``x.add_(y)``, ``aten::conv2d`` for ``F.conv2d``), whatever numgrad runs inside it.

Checked for every op-table row with a PyTorch counterpart, every ``nn.functional`` row whose
PyTorch function records an event of its own name, and the calls a training loop makes."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numgrad  # noqa: E402
from numgrad import testing as T  # noqa: E402
from numgrad.autograd import profiler  # noqa: E402
from torch_counterparts import torch_fn  # noqa: E402

# Row id -> why numgrad's event differs from PyTorch's.
KNOWN = {
    "softsign": "PyTorch composes F.softsign in Python (abs, add, div); numgrad has one elementwise op",
    "tanhshrink": "PyTorch composes F.tanhshrink in Python (tanh, sub); numgrad has one elementwise op",
}

ROWS = [info for info in T.OP_DB if torch_fn(info) is not None]
# nn.functional rows: PyTorch's function, when it records an event named after itself (the
# others compose other ops in Python, and their first event says nothing of the function).
NN_ROWS = [info for info in T.OP_DB if torch_fn(info) is None and info.method is None
           and hasattr(torch.nn.functional, info.name)]


def _convert(arg, lib):
    if isinstance(arg, np.ndarray):
        return numgrad.tensor(arg) if lib is numgrad else torch.from_numpy(arg.copy())
    if isinstance(arg, (list, tuple)) and arg and isinstance(arg[0], np.ndarray):
        return type(arg)(_convert(a, lib) for a in arg)
    return arg


def _torch_events(fn, *args, **kwargs):
    with torch.profiler.profile() as prof:
        fn(*args, **kwargs)
    return [e.name for e in prof.events() if e.cpu_parent is None and e.name.startswith("aten::")]


def _numgrad_events(fn, *args, **kwargs):
    with profiler.profile() as prof:
        fn(*args, **kwargs)
    events = prof.function_events
    # An op timed twice (by a wrapper and by its dispatcher) would count its calls twice.
    assert [e.name for e in events if e.cpu_parent is not None and e.cpu_parent.name == e.name] == []
    return [e.name for e in events if e.cpu_parent is None]


def _sample(info):
    dtype = "float32" if "float32" in info.dtypes else info.dtypes[-1]
    sample = info.samples(dtype)[0]
    return sample.args, sample.kwargs


def _on(lib, args, kwargs):
    return [_convert(a, lib) for a in args], {k: _convert(v, lib) for k, v in kwargs.items()}


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("info", ROWS, ids=lambda info: info.id)
def test_rows(info):
    args, kwargs = _sample(info)
    want = _torch_events(torch_fn(info), *_on(torch, args, kwargs)[0], **_on(torch, args, kwargs)[1])[:1]
    got = _numgrad_events(info.op, *_on(numgrad, args, kwargs)[0], **_on(numgrad, args, kwargs)[1])[:1]
    if info.id in KNOWN:
        assert got != want, f"{info.id} now matches PyTorch: remove it from KNOWN"
    else:
        assert got == want


@pytest.mark.parametrize("info", NN_ROWS, ids=lambda info: info.id)
def test_nn_rows(info):
    args, kwargs = _sample(info)
    try:
        events = _torch_events(getattr(torch.nn.functional, info.name), *_on(torch, args, kwargs)[0],
                               **_on(torch, args, kwargs)[1])
    except (TypeError, RuntimeError, AttributeError):
        pytest.skip("the row's sample is numgrad's signature, not PyTorch's")
    if "aten::" + info.name not in events:
        pytest.skip(f"PyTorch composes {info.name} in Python")
    got = _numgrad_events(info.op, *_on(numgrad, args, kwargs)[0], **_on(numgrad, args, kwargs)[1])
    # A row may prepare its arguments first (the in-place rows work on a clone).
    assert got[:1] == ["aten::" + info.name] or got[:2] == ["aten::clone", "aten::" + info.name]


def _calls(lib):
    """name -> (the event PyTorch records for the call, the call)."""
    F = lib.nn.functional
    x4, w4 = lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3)
    x3, w3 = lib.ones(2, 3, 8), lib.ones(4, 3, 3)
    x2, w2, b = lib.ones(4, 5), lib.ones(6, 5), lib.ones(6)
    target, mean, var = lib.tensor([0, 1, 2, 3]), lib.zeros(3), lib.ones(3)
    return {
        "conv2d": ("conv2d", lambda: F.conv2d(x4, w4)), "conv1d": ("conv1d", lambda: F.conv1d(x3, w3)),
        "linear": ("linear", lambda: F.linear(x2, w2, b)), "linear_no_bias": ("linear", lambda: F.linear(x2, w2)),
        "cross_entropy": ("cross_entropy_loss", lambda: F.cross_entropy(x2, target)),
        "nll_loss": ("nll_loss_nd", lambda: F.nll_loss(x2, target)),
        "layer_norm": ("layer_norm", lambda: F.layer_norm(x2, (5,))),
        "batch_norm": ("batch_norm", lambda: F.batch_norm(x4, mean, var)),
        "dropout": ("dropout", lambda: F.dropout(x2, 0.5)),
        "dropout_eval": ("dropout", lambda: F.dropout(x2, 0.5, training=False)),
        "embedding": ("embedding", lambda: F.embedding(target, w2)),
        "l1_loss": ("l1_loss", lambda: F.l1_loss(x2, x2)), "mse_loss": ("mse_loss", lambda: F.mse_loss(x2, x2)),
        "max_pool1d": ("max_pool1d", lambda: F.max_pool1d(x3, 2)),
        "avg_pool1d": ("avg_pool1d", lambda: F.avg_pool1d(x3, 2)),
        "max_pool2d": ("max_pool2d", lambda: F.max_pool2d(x4, 2)),
        "global_pool": ("adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(x4, 1)),
        "pad": ("pad", lambda: F.pad(x4, (1, 1))), "one_hot": ("one_hot", lambda: F.one_hot(target)),
        "relu": ("relu", lambda: F.relu(x2)), "gelu": ("gelu", lambda: F.gelu(x2)),
        "softmax": ("softmax", lambda: F.softmax(x2, 1)),
        "add_": ("add_", lambda x=x2.clone(): x.add_(1)), "mul_": ("mul_", lambda x=x2.clone(): x.mul_(2)),
        "relu_": ("relu_", lambda x=x2.clone(): F.relu_(x)), "zero_": ("zero_", lambda x=x2.clone(): x.zero_()),
        "fill_": ("fill_", lambda x=x2.clone(): x.fill_(2)),
        "flatten": ("flatten", lambda: x4.flatten(1)), "reshape": ("reshape", lambda: x4.reshape(2, -1)),
        "view": ("view", lambda: x4.view(2, -1)), "getitem": ("slice", lambda: x2[1:]),
        "argmax": ("argmax", lambda: x2.argmax(1)), "argmax_all": ("argmax", lambda: x2.argmax()),
        "max_dim": ("max", lambda: x2.max(1)), "max": ("max", lambda: x2.max()),
        "to": ("to", lambda: x2.to(lib.float64)), "contiguous_copy": ("contiguous", lambda x=x2.t(): x.contiguous()),
        "matmul": ("matmul", lambda x=w2.t(): x2 @ x), "cat": ("cat", lambda: lib.cat([x2, x2])),
        "stack": ("stack", lambda: lib.stack([x2, x2])), "sort": ("sort", lambda: x2.sort()),
        "topk": ("topk", lambda: x2.topk(2)),
    }


CALLS = sorted(_calls(numgrad))


@pytest.mark.parametrize("name", CALLS)
def test_training_loop_calls(name):
    event, call = _calls(torch)[name]
    assert "aten::" + event in _torch_events(call)
    event, call = _calls(numgrad)[name]
    assert _numgrad_events(call)[:1] == ["aten::" + event]
