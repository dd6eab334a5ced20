"""Autograd corner cases checked against PyTorch: views made without grad, ``out=`` with inputs
that require grad, and in-place detach of views (with optimizers' zero_grad)."""
import re

import pytest

import numgrad

try:
    import torch
except ImportError:
    torch = None

both = pytest.mark.parametrize("lib", ["numgrad", "torch"])
pytestmark = pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")

_NO_GRAD_VIEW = re.escape("A view was created in no_grad mode and its base or another view of its base has been modified")
_OUT_GRAD = re.escape("functions with out=... arguments don't support automatic differentiation")
_DETACH_VIEW = re.escape("Can't detach views in-place. Use detach() instead.")


def _lib(name):
    if name == "torch":
        if torch is None:
            pytest.skip("torch is not installed")
        return torch
    return numgrad


def _raises(match, fn):
    with pytest.raises(RuntimeError, match=match):
        fn()


# ------------------------------------------------------------------ views made under no_grad

@both
def test_no_grad_view_follows_base_requires_grad(lib):
    m = _lib(lib)
    x = m.randn(4, requires_grad=True)
    with m.no_grad():
        v, t, s = x.view(2, 2), x.view(2, 2).t(), x[1:]
        plain = m.randn(4).view(2, 2)
        d = x.detach().view(2, 2)
    assert v.requires_grad and t.requires_grad and s.requires_grad
    assert v.grad_fn is None and v.is_leaf
    assert not plain.requires_grad and not d.requires_grad
    with m.inference_mode():
        assert x.view(2, 2).requires_grad
    # A view made with grad from such a view records its own node.
    assert v[0].requires_grad and type(v[0].grad_fn).__name__ == "SelectBackward0"


@both
@pytest.mark.parametrize("where", ["base_with_grad", "base_no_grad", "leaf_no_grad", "view_no_grad"])
def test_reading_no_grad_view_after_inplace_write(lib, where):
    m = _lib(lib)
    leaf = m.randn(4, requires_grad=True)
    base = leaf if where == "leaf_no_grad" else leaf.clone()
    with m.no_grad():
        v = base.view(2, 2)
    if where == "base_with_grad":
        base.mul_(2)
    else:
        with m.no_grad():
            (v if where == "view_no_grad" else base).mul_(2)
    with m.no_grad():
        assert not (v + 1).requires_grad   # reading without grad is fine
    _raises(_NO_GRAD_VIEW, lambda: v + 1)


@both
def test_no_grad_view_unwritten_is_usable(lib):
    m = _lib(lib)
    base = m.randn(4, requires_grad=True).clone()
    with m.no_grad():
        v = base.view(2, 2)
    r = v * 2
    assert r.requires_grad and type(r.grad_fn).__name__ == "MulBackward0"
    _raises("A view was created in no_grad mode and is being modified inplace", lambda: v.mul_(2))


@both
def test_out_into_no_grad_view(lib):
    m = _lib(lib)
    base = m.randn(4, requires_grad=True).clone()
    with m.no_grad():
        v = base.view(2, 2)
    _raises("add\\(\\): " + _OUT_GRAD, lambda: m.add(m.ones(2, 2), 1, out=v))
    with m.no_grad():
        m.add(m.ones(2, 2), 1, out=v)
    assert base.detach().tolist() == [2.0] * 4


# ------------------------------------------------------------------ out= and autograd

_OUT_CASES = {
    "add": lambda m, a, b: m.add(a, b, out=m.empty(2, 2)),
    "exp": lambda m, a, b: m.exp(a, out=m.empty(2, 2)),
    "sum": lambda m, a, b: m.sum(a, 0, out=m.empty(2)),
    "mean": lambda m, a, b: m.mean(a, 0, out=m.empty(2)),
    "max": lambda m, a, b: m.max(a, 0, out=(m.empty(2), m.empty(2, dtype=m.int64))),
    "mm": lambda m, a, b: m.mm(a, b, out=m.empty(2, 2)),
    "matmul": lambda m, a, b: m.matmul(a, b, out=m.empty(2, 2)),
    "cat": lambda m, a, b: m.cat([a, b], out=m.empty(4, 2)),
    "stack": lambda m, a, b: m.stack([a, b], out=m.empty(2, 2, 2)),
    "sort": lambda m, a, b: m.sort(a, 0, out=(m.empty(2, 2), m.empty(2, 2, dtype=m.int64))),
    "cumsum": lambda m, a, b: m.cumsum(a, 0, out=m.empty(2, 2)),
    "where": lambda m, a, b: m.where(b > 0, a, b, out=m.empty(2, 2)),
    "index_select": lambda m, a, b: m.index_select(a, 0, m.tensor([0]), out=m.empty(1, 2)),
}


@both
@pytest.mark.parametrize("name", sorted(_OUT_CASES))
def test_out_refuses_inputs_that_require_grad(lib, name):
    m = _lib(lib)
    a, b = m.randn(2, 2, requires_grad=True), m.randn(2, 2)
    _raises(f"^{name}\\(\\): {_OUT_GRAD}", lambda: _OUT_CASES[name](m, a, b))
    with m.no_grad():
        _OUT_CASES[name](m, a, b)
    _OUT_CASES[name](m, a.detach(), b)


@both
def test_out_that_requires_grad(lib):
    m = _lib(lib)
    b = m.randn(2, 2)
    _raises(f"^add\\(\\): {_OUT_GRAD}", lambda: m.add(b, b, out=m.empty(2, 2, requires_grad=True)))
    _raises(f"^add\\(\\): {_OUT_GRAD}", lambda: m.add(b, b, out=m.randn(2, 2, requires_grad=True).clone()))
    _raises(f"^aten::zeros\\(\\): {_OUT_GRAD}", lambda: m.zeros(2, out=m.empty(2, requires_grad=True)))
    _raises(f"^aten::arange\\(\\): {_OUT_GRAD}", lambda: m.arange(2.0, out=m.empty(2, requires_grad=True)))


@both
def test_out_of_non_differentiable_op(lib):
    m = _lib(lib)
    a = m.randn(2, 2, requires_grad=True)
    out = m.empty(2, 2, dtype=m.bool)
    assert m.eq(a, a, out=out) is out and out.all()


@both
def test_out_fast_path_and_in_place(lib):
    m = _lib(lib)
    a, b, c = m.ones(3), m.ones(3), m.empty(3)
    for _ in range(2):   # the second call takes a cached plan
        assert m.add(a, b, out=c) is c and c.tolist() == [2.0] * 3
    x = m.ones(3, requires_grad=True).clone()
    x.add_(a)
    with m.no_grad():
        m.add(a, b, out=x)
    assert x.tolist() == [2.0] * 3


# ------------------------------------------------------------------ detach_ of views

@both
@pytest.mark.parametrize("kind", ["view_of_leaf", "view_of_non_leaf", "no_grad_view", "view_of_plain",
                                  "view_of_detached"])
def test_detach_inplace_refuses_views(lib, kind):
    m = _lib(lib)
    x = m.randn(4, requires_grad=True)
    if kind == "view_of_leaf":
        v = x.view(2, 2)
    elif kind == "view_of_non_leaf":
        v = x.clone().view(2, 2)
    elif kind == "no_grad_view":
        with m.no_grad():
            v = x.view(2, 2)
    elif kind == "view_of_plain":
        v = m.randn(4).view(2, 2)
    else:
        v = x.detach().view(2, 2)
    _raises(_DETACH_VIEW, v.detach_)


@both
def test_detach_inplace_of_non_views(lib):
    m = _lib(lib)
    y = m.randn(2, requires_grad=True).clone()
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None
    z = m.randn(2, requires_grad=True)
    assert not z.detach_().requires_grad


@both
@pytest.mark.parametrize("make", ["sum", "pow", "mv", "expand"])
def test_zero_grad_after_create_graph(lib, make):
    m = _lib(lib)
    w = m.randn(3, requires_grad=True)
    mat = m.randn(3, 3, requires_grad=True)
    loss = {"sum": lambda: w.sum(), "pow": lambda: (w ** 3).sum(), "mv": lambda: (mat @ w).sum(),
            "expand": lambda: (w.expand(2, 3) * mat[:2]).sum()}[make]
    loss().backward(create_graph=True)
    # The first gradient is a copy, never a view of what the backward pass produced.
    assert w.grad._base is None if lib == "numgrad" else not w.grad._is_view()
    if w.grad.requires_grad:
        assert type(w.grad.grad_fn).__name__ == "CopyBackwards"
    loss().backward(create_graph=True)
    opt = m.optim.SGD([w, mat], lr=0.1)
    opt.zero_grad(set_to_none=False)
    for p in (w, mat):
        if p.grad is not None:
            assert p.grad.tolist() == m.zeros(p.shape).tolist()
            assert not p.grad.requires_grad and p.grad.grad_fn is None
    opt.zero_grad()
    assert w.grad is None


@both
def test_create_graph_gradient_is_not_the_users_tensor(lib):
    m = _lib(lib)
    w = m.randn(3, requires_grad=True)
    g = m.ones(3)
    (w * 1).backward(g, create_graph=True)
    assert w.grad is not g and w.grad.data_ptr() != g.data_ptr()
    w.grad.zero_()
    assert g.tolist() == [1.0] * 3
