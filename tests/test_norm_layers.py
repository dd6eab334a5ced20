"""group_norm, instance_norm, rms_norm, local_response_norm and their layers (with BatchNorm3d and
SyncBatchNorm) against PyTorch: values and gradients in float32 and float64, running statistics,
node names, parameters, state_dict keys, printing and PyTorch's errors and warnings."""
import warnings

import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F
from numgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional
TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def _arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [None if s is None else rng.standard_normal(s).astype(dtype) for s in shapes]


def _both(arrays):
    ng = [None if a is None else numgrad.tensor(a, requires_grad=True) for a in arrays]
    th = [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]
    return ng, th


def _check(fn, tfn, shapes, dtype, noncontiguous=False):
    """fn's value, node name and gradients of every input against tfn's."""
    arrays = _arrays(shapes, dtype)
    ng, th = _both(arrays)
    args = [t.transpose(0, -1).contiguous().transpose(0, -1) if noncontiguous and t is not None and t.ndim > 1
            else t for t in ng]
    out, tout = fn(*args), tfn(*th)
    assert tuple(out.shape) == tuple(tout.shape) and out.dtype.name == dtype
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), **TOL[dtype])
    assert out.grad_fn.name() == tout.grad_fn.name()
    g = _arrays([tuple(tout.shape)], dtype, seed=1)[0]
    out.backward(numgrad.tensor(g))
    tout.backward(torch.tensor(g))
    for a, b in zip(ng, th):
        if a is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL[dtype])


FUNCTIONS = {
    "group_norm": (lambda lib: lambda x, w, b: lib.group_norm(x, 2, w, b, eps=1e-4), [(3, 4, 5), (4,), (4,)]),
    "group_norm_4d": (lambda lib: lambda x, w: lib.group_norm(x, 3, w), [(2, 6, 3, 2), (6,)]),
    "group_norm_2d": (lambda lib: lambda x: lib.group_norm(x, 1), [(3, 4)]),
    "instance_norm": (lambda lib: lambda x, w, b: lib.instance_norm(x, weight=w, bias=b), [(3, 4, 5), (4,), (4,)]),
    "instance_norm_3d": (lambda lib: lambda x: lib.instance_norm(x, eps=1e-3), [(2, 2, 3, 2, 2)]),
    "rms_norm": (lambda lib: lambda x, w: lib.rms_norm(x, (5,), w), [(3, 4, 5), (5,)]),
    "rms_norm_eps": (lambda lib: lambda x: lib.rms_norm(x, [4, 5], eps=1e-2), [(3, 4, 5)]),
    "local_response_norm": (lambda lib: lambda x: lib.local_response_norm(x, 3), [(3, 5, 4)]),
    "local_response_norm_4d": (lambda lib: lambda x: lib.local_response_norm(x, 2, 0.1, 0.5, 2.0), [(2, 4, 3, 2)]),
    "local_response_norm_5d": (lambda lib: lambda x: lib.local_response_norm(x, 4, 0.3), [(2, 5, 2, 2, 2)]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_functions_match_torch(name, dtype):
    make, shapes = FUNCTIONS[name]
    _check(make(F), make(TF), shapes, dtype)


@pytest.mark.parametrize("name", ["group_norm", "instance_norm", "rms_norm", "local_response_norm"])
def test_noncontiguous_inputs(name):
    make, shapes = FUNCTIONS[name]
    _check(make(F), make(TF), shapes, "float64", noncontiguous=True)


@pytest.mark.parametrize("name", ["group_norm", "group_norm_4d", "instance_norm", "rms_norm",
                                  "local_response_norm_4d"])
def test_gradcheck_and_gradgradcheck(name):
    make, shapes = FUNCTIONS[name]
    inputs = [numgrad.tensor(a, requires_grad=True) for a in _arrays(shapes, "float64", seed=2)]
    assert gradcheck(make(F), inputs)
    assert gradgradcheck(make(F), inputs)


def test_empty_batch():
    x, xt = numgrad.zeros(0, 4, 3), torch.zeros(0, 4, 3)
    for fn, tfn in ((lambda v: F.group_norm(v, 2), lambda v: TF.group_norm(v, 2)),
                    (lambda v: F.rms_norm(v, (3,)), lambda v: TF.rms_norm(v, (3,))),
                    (lambda v: F.local_response_norm(v, 2), lambda v: TF.local_response_norm(v, 2)),
                    (lambda v: F.instance_norm(v), lambda v: TF.instance_norm(v))):
        assert tuple(fn(x).shape) == tuple(tfn(xt).shape)


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    x = _arrays([(2, 3)], "float32")[0] * 1e-4
    np.testing.assert_allclose(F.rms_norm(numgrad.tensor(x), (3,)).numpy(),
                               TF.rms_norm(torch.tensor(x), (3,)).numpy(), rtol=1e-5)


def test_instance_norm_running_stats():
    x, rm, rv = _arrays([(3, 4, 5), (4,), (4,)], "float32")
    rv = np.abs(rv) + 0.5
    a, b, ta, tb = numgrad.tensor(rm), numgrad.tensor(rv), torch.tensor(rm), torch.tensor(rv)
    out = F.instance_norm(numgrad.tensor(x), a, b, momentum=0.3)
    tout = TF.instance_norm(torch.tensor(x), ta, tb, momentum=0.3)
    for got, want in ((out, tout), (a, ta), (b, tb)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F.instance_norm(numgrad.tensor(x), a, b, use_input_stats=False).numpy(),
                               TF.instance_norm(torch.tensor(x), ta, tb, use_input_stats=False).numpy(), rtol=1e-5)


@pytest.mark.parametrize("momentum", [0.2, None])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_instance_norm_layers(dims, momentum):
    shape = (2, 3) + (4, 3, 2)[:dims]
    x = _arrays([shape], "float32")[0]
    layers = [lib.nn.__dict__[f"InstanceNorm{dims}d"](3, momentum=momentum, affine=True, track_running_stats=True)
              for lib in (numgrad, torch)]
    for _ in range(2):
        outs = [layer(lib.tensor(x)) for layer, lib in zip(layers, (numgrad, torch))]
        np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-5)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(layers[0], name).numpy(), getattr(layers[1], name).numpy(), rtol=1e-5)
    assert list(layers[0].state_dict()) == list(layers[1].state_dict())
    for layer in layers:
        layer.eval()
    np.testing.assert_allclose(layers[0](numgrad.tensor(x)).detach().numpy(),
                               layers[1](torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    # An unbatched input is normalized as a batch of one.
    np.testing.assert_allclose(layers[0](numgrad.tensor(x[0])).detach().numpy(),
                               layers[1](torch.tensor(x[0])).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_batch_norm_3d_and_sync_batch_norm_running_stats():
    x = _arrays([(2, 3, 2, 3, 2)], "float32")[0]
    for cls in ("BatchNorm3d", "SyncBatchNorm"):
        layers = [getattr(lib.nn, cls)(3, momentum=None) for lib in (numgrad, torch)]
        for _ in range(3):
            outs = [layer(lib.tensor(x * 2)) for layer, lib in zip(layers, (numgrad, torch))]
        np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-5)
        assert outs[0].grad_fn.name() == outs[1].grad_fn.name() == "NativeBatchNormBackward0"
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            np.testing.assert_allclose(getattr(layers[0], name).numpy(), getattr(layers[1], name).numpy(), rtol=1e-5)
        assert list(layers[0].state_dict()) == list(layers[1].state_dict())


def test_convert_sync_batchnorm_shares_parameters_and_buffers():
    nn = numgrad.nn
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Sequential(nn.BatchNorm1d(4, affine=False)))
    net.eval()
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(converted[1], nn.SyncBatchNorm) and isinstance(converted[2][0], nn.SyncBatchNorm)
    assert converted[1].weight is net[1].weight and converted[1].running_mean is net[1].running_mean
    assert converted[2][0].weight is None and not converted[1].training
    assert converted[1].process_group is None


def test_layer_values_and_grads():
    x = _arrays([(2, 4, 3, 3)], "float64")[0]
    for make in (lambda nn: nn.GroupNorm(2, 4), lambda nn: nn.LocalResponseNorm(3),
                 lambda nn: nn.RMSNorm([3, 3]), lambda nn: nn.InstanceNorm2d(4, affine=True)):
        layers = [make(lib.nn).double() for lib in (numgrad, torch)]
        ng, th = _both([x])
        outs = [layers[0](ng[0]), layers[1](th[0])]
        np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-10, atol=1e-12)
        outs[0].sum().backward()
        outs[1].sum().backward()
        np.testing.assert_allclose(ng[0].grad.numpy(), th[0].grad.numpy(), rtol=1e-8, atol=1e-10)
        for (name, p), (tname, tp) in zip(layers[0].named_parameters(), layers[1].named_parameters()):
            assert name == tname
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-8, atol=1e-10)


REPRS = [
    lambda nn: nn.GroupNorm(2, 4), lambda nn: nn.GroupNorm(2, 4, affine=False),
    lambda nn: nn.GroupNorm(1, 2, bias=False),
    lambda nn: nn.InstanceNorm1d(4), lambda nn: nn.InstanceNorm3d(4, affine=True, track_running_stats=True),
    lambda nn: nn.InstanceNorm2d(3, affine=True, bias=False), lambda nn: nn.LocalResponseNorm(2),
    lambda nn: nn.RMSNorm([3]), lambda nn: nn.RMSNorm(3, eps=1e-3, elementwise_affine=False),
    lambda nn: nn.BatchNorm3d(3), lambda nn: nn.SyncBatchNorm(3, momentum=None),
    lambda nn: nn.BatchNorm1d(3, affine=False), lambda nn: nn.LayerNorm(3, elementwise_affine=False),
]


@pytest.mark.parametrize("make", REPRS)
def test_repr_parameters_and_state_dict_keys(make):
    ours, theirs = make(numgrad.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())


ERRORS = [
    (lambda lib, x: lib.nn.functional.group_norm(x, 3), RuntimeError, "divisible by num_groups"),
    (lambda lib, x: lib.nn.functional.group_norm(x, 2, lib.ones(3)), RuntimeError,
     "Expected weight to be a vector of size equal to the number of channels"),
    (lambda lib, x: lib.nn.functional.group_norm(x[0, 0], 2), RuntimeError, "Expected at least 2 dimensions"),
    (lambda lib, x: lib.nn.functional.group_norm(x, 2, lib.ones(4, dtype=lib.float64)), RuntimeError,
     "mixed dtype"),
    (lambda lib, x: lib.nn.functional.group_norm(x.double(), 2, lib.ones(4), lib.zeros(4)), RuntimeError,
     "mixed dtype"),
    (lambda lib, x: lib.nn.functional.group_norm(lib.ones(1, 2, 1), 2), ValueError,
     "Expected more than 1 value per channel"),
    (lambda lib, x: lib.nn.functional.instance_norm(x[:, :, :1]), ValueError,
     "Expected more than 1 spatial element when training"),
    (lambda lib, x: lib.nn.functional.instance_norm(x, weight=lib.ones(4, dtype=lib.float64)), RuntimeError,
     "mixed dtype"),
    (lambda lib, x: lib.nn.functional.rms_norm(x, (2,)), RuntimeError, "Given normalized_shape="),
    (lambda lib, x: lib.nn.functional.local_response_norm(x[0], 2), ValueError, "Expected 3D or higher"),
    (lambda lib, x: lib.nn.functional.group_norm(x.long(), 2), RuntimeError, "not implemented for 'Long'"),
    (lambda lib, x: lib.nn.GroupNorm(3, 4), ValueError, r"num_channels \(4\) must be divisible by num_groups \(3\)"),
    (lambda lib, x: lib.nn.InstanceNorm1d(5, affine=True)(x), ValueError, "to match num_features"),
    (lambda lib, x: lib.nn.InstanceNorm2d(4)(x[0]), ValueError, r"expected 3D or 4D input \(got 2D input\)"),
    (lambda lib, x: lib.nn.BatchNorm3d(4)(x), ValueError, r"expected 5D input \(got 3D input\)"),
    (lambda lib, x: lib.nn.SyncBatchNorm(4)(x[0, 0]), ValueError, r"expected at least 2D input \(got 1D input\)"),
    (lambda lib, x: lib.nn.SyncBatchNorm(0)(x[:, :0]), ValueError, "number of input channels should be non-zero"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS)
def test_errors_match_torch(call, exc, match):
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32)
    for lib in (torch, numgrad):
        with pytest.raises(exc, match=match):
            call(lib, lib.tensor(x))


def test_instance_norm_feature_mismatch_warns_without_affine():
    for lib in (torch, numgrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.InstanceNorm1d(4)(lib.ones(5, 3))
        assert any("does not match num_features" in str(w.message) for w in caught)


def test_rms_norm_mixed_dtype_warns_and_keeps_the_input_dtype():
    x, w = _arrays([(2, 3), (3,)], "float32")
    outs = []
    for lib in (torch, numgrad):
        with pytest.warns(UserWarning, match="Mismatch dtype between input and weight"):
            outs.append(lib.nn.functional.rms_norm(lib.tensor(x), (3,), lib.tensor(w.astype(np.float64))))
        assert str(outs[-1].dtype).endswith("float32")
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-6)


PARAMETRIZED = {
    "layer_norm": lambda f, x, p: f.layer_norm(x, (3,), p(3), p(3)),
    "batch_norm": lambda f, x, p: f.batch_norm(x, None, None, p(4), p(4), training=True),
    "group_norm": lambda f, x, p: f.group_norm(x, 2, p(4), p(4)),
}


@pytest.mark.parametrize("name", list(PARAMETRIZED))
def test_float16_input_with_float32_parameters(name):
    x = _arrays([(2, 4, 3)], "float16")[0]
    outs, grads = [], []
    for lib, f in ((numgrad, F), (torch, TF)):
        params = []

        def make(n):
            params.append(lib.linspace(0.5, 1.5, n, dtype=lib.float32).requires_grad_())
            return params[-1]
        out = PARAMETRIZED[name](f, lib.tensor(x), make)
        out.float().sum().backward()
        outs.append(out)
        grads.append(params[0].grad)
    assert outs[0].dtype.name == "float16" and grads[0].dtype.name == "float32"
    np.testing.assert_allclose(outs[0].detach().float().numpy(), outs[1].detach().float().numpy(), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-2, atol=1e-2)


def test_instance_norm_running_stats_in_another_dtype():
    x = _arrays([(2, 4, 3)], "float32")[0]
    outs, stats = [], []
    for lib, f in ((numgrad, F), (torch, TF)):
        rm, rv = lib.zeros(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)
        outs.append(f.instance_norm(lib.tensor(x), rm, rv))
        stats.append(rm)
    assert outs[0].dtype.name == "float32" and stats[0].dtype.name == "float64"
    np.testing.assert_allclose(outs[0].numpy(), outs[1].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[0].numpy(), stats[1].numpy(), rtol=1e-6)
