"""PyTorch conformance of small corners: argmax/argmin ``out=``, the random factories' ``out=``,
``requires_grad_`` on views, the history of views whose base was written in place, and the
``requires_grad`` and ``grad_fn`` attributes."""
import warnings

import numpy as np
import pytest

import numgrad as ng

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

OUT_GRAD = ("{}(): functions with out=... arguments don't support automatic differentiation, but one "
            "of the arguments requires grad.")
LEAF_ONLY = ("you can only change requires_grad flags of leaf variables. If you want to use a computed "
             "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
NO_GRAD_VIEW = ("A view was created in no_grad mode and its base or another view of its base has been "
                "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
                "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
                "inplace either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).")


def _raises(exc, msg, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == msg


# ------------------------------------------------------------------------------ argmax/argmin out=

X = [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("args, out_shape", [((1,), (0,)), ((1,), (5,)), ((0, True), (3, 3)), ((), (4,)),
                                             ((None, True), (2,))])
def test_arg_out(name, args, out_shape):
    out = ng.empty(out_shape, dtype=ng.int64)
    r = getattr(ng, name)(ng.tensor(X), *args, out=out)
    assert r is out
    want = getattr(np, name)(np.array(X), axis=args[0] if args else None)
    keep = len(args) > 1 and args[1]
    if keep:
        want = np.expand_dims(want, tuple(range(2)) if args[0] is None else args[0])
    assert out.shape == want.shape and out.tolist() == np.asarray(want).tolist()


@pytest.mark.parametrize("dtype, cname", [(ng.int32, "int"), (ng.float32, "float"), (ng.float16, "c10::Half"),
                                          (ng.uint8, "unsigned char"), (ng.bool, "bool")])
def test_arg_out_dtype(dtype, cname):
    _raises(RuntimeError, f"Expected out tensor to have dtype long int, but got {cname} instead",
            lambda: ng.argmax(ng.tensor(X), 1, out=ng.empty(2, dtype=dtype)))


def test_arg_errors_come_before_out_checks():
    _raises(RuntimeError, "argmin(): does not support bool input",
            lambda: ng.argmin(ng.tensor([True]), out=ng.empty(0)))
    _raises(IndexError, "argmax(): Expected reduction dim 1 to have non-zero size.",
            lambda: ng.argmax(ng.ones(2, 0), 1, out=ng.empty(0)))


def test_arg_out_noncontiguous_and_grad_input():
    out = ng.empty(2, 2, dtype=ng.int64)[:, 0]
    x = ng.tensor(X, requires_grad=True)
    assert ng.argmax(x, 1, out=out).tolist() == [1, 0] and out.stride() == (2,)


# --------------------------------------------------------------------------- random factories' out=

def _rg(*shape, dtype=None):
    return ng.empty(*shape, dtype=dtype, requires_grad=True)


FACTORIES = {
    "rand": (lambda m, out, **k: m.rand(3, out=out, **k)),
    "randint": (lambda m, out, **k: m.randint(5, (3,), out=out, **k)),
    "randperm": (lambda m, out, **k: m.randperm(3, out=out, **k)),
    "normal": (lambda m, out, **k: m.normal(0.0, 1.0, (3,), out=out, **k)),
}


@pytest.mark.parametrize("name", list(FACTORIES))
@pytest.mark.parametrize("n", [0, 3])
def test_factory_out_requiring_grad(name, n):
    _raises(RuntimeError, OUT_GRAD.format("aten::" + name), lambda: FACTORIES[name](ng, _rg(n)))
    with ng.no_grad():
        out = _rg(n)
        assert FACTORIES[name](ng, out) is out and out.shape == (3,) and out.requires_grad


def test_randn_out_requiring_grad_is_refused_in_any_mode():
    # PyTorch's randn resizes ``out`` even when its shape is right, and resize_ refuses.
    _raises(RuntimeError, "cannot resize variables that require grad", lambda: ng.randn(3, out=_rg(3)))
    with ng.no_grad():
        _raises(RuntimeError, "cannot resize variables that require grad", lambda: ng.randn(3, out=_rg(3)))


@pytest.mark.parametrize("call, name", [
    (lambda out: ng.normal(ng.zeros(3), 1.0, out=out), "normal"),
    (lambda out: ng.normal(0.0, ng.ones(3), out=out), "normal"),
    (lambda out: ng.normal(ng.zeros(3), ng.ones(3), out=out), "normal"),
    (lambda out: ng.bernoulli(ng.full((3,), 0.5), out=out), "bernoulli"),
])
def test_tensor_random_out_requiring_grad(call, name):
    _raises(RuntimeError, OUT_GRAD.format(name), lambda: call(_rg(3)))


def test_random_out_with_input_requiring_grad():
    m = ng.zeros(3, requires_grad=True)
    _raises(RuntimeError, OUT_GRAD.format("normal"), lambda: ng.normal(m, 1.0, out=ng.empty(3)))
    _raises(RuntimeError, OUT_GRAD.format("normal"), lambda: ng.normal(0.0, m + 1, out=ng.empty(3)))
    _raises(RuntimeError, OUT_GRAD.format("bernoulli"),
            lambda: ng.bernoulli(ng.full((3,), 0.5, requires_grad=True), out=ng.empty(3)))
    # The grad check comes before the arguments' own checks.
    _raises(RuntimeError, OUT_GRAD.format("aten::normal"), lambda: ng.normal(0.0, -1.0, (3,), out=_rg(3)))
    # multinomial is not differentiable: PyTorch lets its input require grad.
    out = ng.empty(0, dtype=ng.int64)
    assert ng.multinomial(ng.ones(3, requires_grad=True), 2, out=out) is out and out.shape == (2,)


@pytest.mark.parametrize("call, msg", [
    (lambda: ng.rand(3, dtype=ng.float64, out=_rg(3)), "dtype Double does not match dtype of out parameter (Float)"),
    (lambda: ng.randn(3, dtype=ng.float64, out=ng.empty(3)),
     "dtype Double does not match dtype of out parameter (Float)"),
    (lambda: ng.randint(5, (3,), dtype=ng.int32, out=ng.empty(3, dtype=ng.int64)),
     "dtype Int does not match dtype of out parameter (Long)"),
    (lambda: ng.randperm(3, dtype=ng.int32, out=ng.empty(3, dtype=ng.int64)),
     "dtype Int does not match dtype of out parameter (Long)"),
])
def test_factory_out_dtype_mismatch(call, msg):
    _raises(RuntimeError, msg, call)


@pytest.mark.parametrize("call, msg", [
    (lambda: ng.randn(3, out=ng.empty(3, dtype=ng.int64)), "\"normal_kernel_cpu\" not implemented for 'Long'"),
    (lambda: ng.rand(3, out=ng.empty(3, dtype=ng.int32)), "\"check_uniform_bounds\" not implemented for 'Int'"),
])
def test_factory_out_of_wrong_kind(call, msg):
    _raises(NotImplementedError, msg, call)


def test_factory_out_with_requires_grad_flag():
    out = ng.empty(3)
    assert ng.randn(3, out=out, requires_grad=True) is out and out.requires_grad and out.is_leaf


# Each case: (numgrad call, torch call) drawing into ``out`` after manual_seed(0).
DRAWS = [
    lambda m: m.randn(3, out=m.empty(3, dtype=m.float64)),
    lambda m: m.randn(20, out=m.empty(0)),
    lambda m: m.rand(3, 4, out=m.empty(4, 3).t()),
    lambda m: m.randn(3, 2, out=m.empty(3, 4, dtype=m.float64)[:, :2]),
    lambda m: m.rand(5, out=m.empty(5, dtype=m.float16)),
    lambda m: m.randint(3, 9, (6,), out=m.empty(6)),
    lambda m: m.randint(2, (6,), out=m.empty(0, dtype=m.bool)),
    lambda m: m.randperm(7, out=m.empty(2)),
    lambda m: m.normal(2.0, 3.0, (4,), out=m.empty(4, dtype=m.float64)),
    lambda m: m.normal(m.arange(4.0), 2.0, out=m.empty(4, dtype=m.float64)),
    lambda m: m.normal(m.arange(3.0), 2.0, out=m.empty(2, 3)),
    lambda m: m.normal(1.0, m.arange(1.0, 5.0), out=m.empty(0)),
    lambda m: m.normal(m.arange(4.0), m.ones(4, dtype=m.float64), out=m.empty(4)),
    lambda m: m.bernoulli(m.full((5,), 0.5), out=m.empty(5, dtype=m.int64)),
]


@needs_torch
@pytest.mark.parametrize("k", range(len(DRAWS)))
def test_out_draws_match_torch(k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        want = DRAWS[k](torch)
    ng.manual_seed(0)
    got = DRAWS[k](ng)
    assert got.dtype.__str__().split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ----------------------------------------------------------------------- requires_grad_ on views

def test_requires_grad_off_on_a_view_with_history():
    base = ng.ones(4, requires_grad=True)
    v = base[:2]
    _raises(RuntimeError, LEAF_ONLY, lambda: v.requires_grad_(False))
    assert v.requires_grad_(True) is v and v.requires_grad and not v.is_leaf
    assert v.grad_fn.name() == "SliceBackward0"


@pytest.mark.parametrize("make_base", [lambda: ng.ones(4, requires_grad=True),
                                       lambda: ng.ones(4, requires_grad=True) * 2])
def test_requires_grad_off_on_a_no_grad_view_is_ignored(make_base):
    base = make_base()
    with ng.no_grad():
        v = base[:2]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    for flag in (False, True):
        assert v.requires_grad_(flag) is v
        assert v.requires_grad and v.is_leaf and v.grad_fn is None


def test_requires_grad_on_a_view_of_a_plain_base():
    base = ng.ones(4)
    v = base[:2]
    assert not v.requires_grad and v.is_leaf
    v.requires_grad_(True)
    assert v.requires_grad and v.is_leaf and v.grad_fn is None and not base.requires_grad
    assert (v * 2).grad_fn.name() == "MulBackward0"
    v.requires_grad_(False)
    assert not v.requires_grad and v.is_leaf


# ------------------------------------------------------------ views whose base was written in place

def test_view_used_after_base_written_takes_the_new_history():
    a = ng.ones(4, requires_grad=True)
    b = a * 1
    v = b[:2]
    b.mul_(2)
    y = v * 1
    assert y.grad_fn.next_functions[0][0].name() == "AsStridedBackward0"
    y.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 0.0, 0.0]


@pytest.mark.parametrize("write_in_grad_mode", [True, False])
def test_no_grad_view_used_after_base_written(write_in_grad_mode):
    a = ng.ones(4, requires_grad=True)
    b = a * 1
    with ng.no_grad():
        v = b[:2]
    if write_in_grad_mode:
        b.mul_(2)
    else:
        with ng.no_grad():
            b.mul_(2)
    _raises(RuntimeError, NO_GRAD_VIEW, lambda: v * 1)


def test_view_of_leaf_written_under_no_grad():
    a = ng.ones(4, requires_grad=True)
    v = a[:2]
    with ng.no_grad():
        a.mul_(2)
    v.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_view_made_before_its_base_gets_history_carries_gradient():
    # PyTorch: the view requires grad once its base does, reading the base's history.
    b = ng.ones(3)
    v = b[:2]
    w = ng.full((3,), 2.0, requires_grad=True)
    b.mul_(w)
    y = v * 2
    assert y.requires_grad
    assert v.grad_fn.name() == "AsStridedBackward0"
    (y.sum() + w.sum()).backward()
    assert w.grad.tolist() == [3.0, 3.0, 1.0]
    b = ng.ones(3)
    v = b[1:]
    w = ng.full((3,), 2.0, requires_grad=True)
    b.add_(w)
    m = v.view(2, 1)
    assert m.grad_fn.name() == "ViewBackward0"
    (m @ m.t()).sum().backward()
    assert w.grad.tolist() == [0.0, 12.0, 12.0]


# ------------------------------------------------------------------ requires_grad and grad_fn attributes

def test_view_reads_its_base_history_as_soon_as_the_base_is_written():
    b = ng.zeros(4)
    v = b[:2]
    b.add_(ng.ones(4, requires_grad=True))
    assert v.requires_grad and not v.is_leaf
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert "grad_fn=<AsStridedBackward0>" in repr(v)


@pytest.mark.parametrize("write", ["base", "other view", "the view"])
def test_view_of_a_written_base_shows_as_strided_history(write):
    b = ng.ones(4, requires_grad=True) * 1
    v, u = b[:2], b[2:]
    {"base": b, "other view": u, "the view": v}[write].mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert b.grad_fn.name() == ("MulBackward0" if write == "base" else "CopySlices")


def test_view_requires_grad_while_its_base_does():
    x = ng.ones(3)
    v = x[1:]
    x.requires_grad_()
    # No write since the view was made: its history is unchanged, as PyTorch's.
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    v.requires_grad = False
    assert v.requires_grad


def test_reading_grad_fn_of_a_no_grad_view_after_its_base_was_written():
    x = ng.ones(3)
    with ng.no_grad():
        v = x[1:]
    x.add_(ng.ones(3, requires_grad=True))
    assert v.requires_grad
    _raises(RuntimeError, NO_GRAD_VIEW, lambda: v.grad_fn)


def test_setting_requires_grad():
    x = ng.ones(3)
    x.requires_grad = True
    assert x.requires_grad and x.is_leaf
    x.requires_grad = False
    assert not x.requires_grad
    ng.ones(3, dtype=ng.int64).requires_grad = False
    _raises(RuntimeError, "only Tensors of floating point and complex dtype can require gradients",
            lambda: setattr(ng.ones(3, dtype=ng.int64), "requires_grad", True))
    for value in (1, "yes", None):
        _raises(RuntimeError, "requires_grad must be a bool", lambda: setattr(x, "requires_grad", value))
    y = ng.ones(3, requires_grad=True) * 2
    _raises(RuntimeError, "you can only change requires_grad flags of leaf variables.",
            lambda: setattr(y, "requires_grad", True))
    _raises(RuntimeError, LEAF_ONLY, lambda: setattr(y, "requires_grad", False))
    _raises(RuntimeError, LEAF_ONLY, lambda: setattr(y[1:], "requires_grad", False))


def test_requires_grad_method_checks():
    _raises(RuntimeError, "only Tensors of floating point dtype can require gradients",
            lambda: ng.ones(3, dtype=ng.int64).requires_grad_())
    assert not ng.ones(3, dtype=ng.int64).requires_grad_(False).requires_grad
    for value, name in ((1, "int"), (None, "NoneType"), (np.bool_(True), "numpy.bool")):
        _raises(TypeError, f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not {name}",
                lambda: ng.ones(3).requires_grad_(value))
    y = ng.ones(3, requires_grad=True) * 2
    assert y.requires_grad_() is y and y.requires_grad


def test_factories_and_parameters_refuse_integer_grads():
    msg = "Only Tensors of floating point and complex dtype can require gradients"
    _raises(RuntimeError, msg, lambda: ng.zeros(2, dtype=ng.int64, requires_grad=True))
    _raises(RuntimeError, msg, lambda: ng.nn.Parameter(ng.ones(3, dtype=ng.int64)))
    assert not ng.nn.Parameter(ng.ones(3, dtype=ng.int64), requires_grad=False).requires_grad


def test_grad_fn_is_read_only():
    y = ng.ones(3, requires_grad=True) * 2
    _raises(AttributeError, "attribute 'grad_fn' of 'numgrad.Tensor' objects is not writable",
            lambda: setattr(y, "grad_fn", None))
    assert y.grad_fn.name() == "MulBackward0"


@needs_torch
def test_attribute_semantics_match_torch():
    def story(lib):
        seen = []
        b = lib.zeros(4)
        v = b[:2]
        seen.append((v.requires_grad, v.grad_fn is None, v.is_leaf))
        b.add_(lib.ones(4, requires_grad=True))
        seen.append((v.requires_grad, type(v.grad_fn).__name__, v.is_leaf))
        x = lib.ones(3)
        u = x[1:]
        x.requires_grad_()
        seen.append((u.requires_grad, u.grad_fn is None, u.is_leaf))
        return seen
    assert story(ng) == story(torch)
