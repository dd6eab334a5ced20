"""Indexing, index-driven writes, reductions, shape corner cases and losses, each compared with
PyTorch (skipped without it)."""
import math
import warnings

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory location"


def _torch():
    return pytest.importorskip("torch")


def _same(a, t):
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(t.shape)


def _raises_alike(fn_ng, fn_t):
    """Both raise, with the same exception type and message."""
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(type(et.value)) as en:
        fn_ng()
    assert str(en.value) == str(et.value)


def _both(lib_fn):
    torch = _torch()
    return lib_fn(ng), lib_fn(torch)


# ------------------------------------------------------------------ 0-d integer tensors as ints

@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8"])
def test_zero_dim_int_tensor_index_is_an_int(dtype):
    a, t = _both(lambda L: L.arange(12).reshape(3, 2, 2)[L.tensor(1, dtype=getattr(L, dtype)), :, [1, 0]])
    _same(a, t)


def test_zero_dim_int_tensor_setitem_is_an_int():
    def run(L):
        x = L.zeros(3, 2, 2)
        x[L.tensor(1), :, [1, 0]] = L.tensor([[1., 2.], [3., 4.]])
        return x
    _same(*_both(run))


def test_zero_dim_int_tensor_index_is_a_select_view():
    torch = _torch()
    x = ng.arange(6.).reshape(2, 3).requires_grad_()
    y = x[ng.tensor(1)]
    assert y.grad_fn.name() == x.detach().requires_grad_()[torch.tensor(1).item()].grad_fn.name() == "SelectBackward0"
    b = ng.zeros(2, 3)
    b[ng.tensor(1)] = 5.
    tb = torch.zeros(2, 3)
    tb[torch.tensor(1)] = 5.
    _same(b, tb)


def test_zero_dim_int_tensor_setitem_refuses_overlapping_view():
    torch = _torch()

    def run(L):
        e = L.zeros(2, 1).expand(1, 2, 4)
        e[L.tensor(0), L.tensor(0)] = L.ones(4)
    _raises_alike(lambda: run(ng), lambda: run(torch))


@pytest.mark.parametrize("index", [lambda L: (L.tensor(4), False), lambda L: (L.tensor(5),),
                                   lambda L: ([0], 5), lambda L: (None, 0, None, [0], 5),
                                   lambda L: (Ellipsis, 5), lambda L: (Ellipsis, L.tensor(5))])
def test_out_of_range_ints_name_their_position(index):
    torch = _torch()
    _raises_alike(lambda: ng.arange(12).reshape(3, 2, 2)[index(ng)],
                  lambda: torch.arange(12).reshape(3, 2, 2)[index(torch)])


def test_index_into_empty_dims():
    torch = _torch()
    _same(ng.ones(3, 0)[[1]], torch.ones(3, 0)[[1]])
    _raises_alike(lambda: ng.ones(3, 0)[:, [0]], lambda: torch.ones(3, 0)[:, [0]])
    _raises_alike(lambda: ng.ones(0, 3)[[0]], lambda: torch.ones(0, 3)[[0]])


def test_index_put_keeps_zero_dim_tensors_advanced():
    def run(L):
        x = L.arange(12.).reshape(3, 2, 2)
        return x.index_put((L.tensor(1), L.tensor([1, 0])), L.tensor([-1., -2.]))
    _same(*_both(run))


def test_index_put_takes_tensors_only():
    torch = _torch()
    for idx in [lambda L: (None, L.tensor([1])), lambda L: ([0],)]:
        _raises_alike(lambda: ng.zeros(2, 3).index_put_(idx(ng), ng.ones(1)),
                      lambda: torch.zeros(2, 3).index_put_(idx(torch), torch.ones(1)))


# ------------------------------------------------------------------ index_put_ through expand

@pytest.mark.parametrize("shape", [(4,), (1, 4), (2, 4)])
@pytest.mark.parametrize("grad", [False, True])
def test_index_put_into_expanded_view_writes_base(shape, grad):
    def run(L):
        b = L.zeros(*shape)
        vals = L.arange(4.).requires_grad_(grad)
        e = b.expand(1, 2, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e.index_put_((L.tensor(0), L.tensor(0)), vals * 1)
        if grad:
            (e * L.arange(1., 9.).reshape(2, 4)).sum().backward()
        return b, e, vals.grad if grad else vals
    for a, t in zip(*_both(run)):
        _same(a, t)


# ------------------------------------------------------------------ overlapping index writes

_OVERLAPPING = {
    "index_copy_": lambda L, a: a.index_copy_(0, L.tensor([2, 3]), a[:2]),
    "index_copy_same": lambda L, a: a.index_copy_(0, L.tensor([1, 0, 3, 2]), a),
    "index_add_": lambda L, a: a.index_add_(0, L.tensor([2, 3]), a[:2]),
    "scatter_": lambda L, a: a.scatter_(0, L.tensor([2, 3]), a[:2]),
    "scatter_same": lambda L, a: a.scatter_(0, L.tensor([1, 0, 3, 2]), a),
    "scatter_add_": lambda L, a: a.scatter_add_(0, L.tensor([2, 3]), a[:2]),
    "scatter_reduce_": lambda L, a: a.scatter_reduce_(0, L.tensor([2, 3]), a[:2], "sum"),
    "index_reduce_": lambda L, a: a.index_reduce_(0, L.tensor([2, 3]), a[:2], "prod"),
    "put_": lambda L, a: a.put_(L.tensor([2, 3]), a[:2]),
    "put_accumulate": lambda L, a: a.put_(L.tensor([2, 3]), a[:2], accumulate=True),
    "index_put_": lambda L, a: a.index_put_((L.tensor([2, 3]),), a[:2]),
    "index_put_same": lambda L, a: a.index_put_((L.tensor([1, 0, 3, 2]),), a),
    "setitem": lambda L, a: a.__setitem__(L.tensor([2, 3]), a[:2]),
    "setitem_list": lambda L, a: a.__setitem__([2, 3], a[:2]),
    "setitem_mask": lambda L, a: a.__setitem__(L.tensor([False, False, True, True]), a[:2]),
}

_OVERLAPPING_INDEX = {
    "index_copy_": lambda L, a: a.index_copy_(0, a[:2], L.ones(2, dtype=L.int64)),
    "index_fill_": lambda L, a: a.index_fill_(0, a[:1], 5),
    "scatter_": lambda L, a: a.scatter_(0, a[:2], L.ones(2, dtype=L.int64)),
    "scatter_value": lambda L, a: a.scatter_(0, a[:2], 7),
    "put_": lambda L, a: a.put_(a[:2], L.ones(2, dtype=L.int64)),
    "index_put_": lambda L, a: a.index_put_((a[:2],), L.ones(2, dtype=L.int64)),
    "setitem": lambda L, a: a.__setitem__(a[:2], 9),
}


@pytest.mark.parametrize("name", sorted(_OVERLAPPING))
@pytest.mark.parametrize("grad", [False, True])
def test_overlapping_source_is_refused(name, grad):
    torch = _torch()
    op = _OVERLAPPING[name]

    def run(L):
        a = L.arange(4.).requires_grad_(grad).clone() if grad else L.arange(4.)
        op(L, a)
    _raises_alike(lambda: run(ng), lambda: run(torch))
    with pytest.raises(RuntimeError, match=OVERLAP):
        run(ng)


@pytest.mark.parametrize("name", sorted(_OVERLAPPING_INDEX))
def test_overlapping_index_is_refused(name):
    torch = _torch()
    op = _OVERLAPPING_INDEX[name]
    _raises_alike(lambda: op(ng, ng.arange(4)), lambda: op(torch, torch.arange(4)))


def test_disjoint_or_strided_sources_still_run():
    def run(L):
        a = L.arange(8.).reshape(2, 4)
        a[0].index_copy_(0, L.tensor([0, 1]), a[1, :2])
        a[0].scatter_(0, L.tensor([2, 3]), a[1, 2:])
        a[:, 0].index_copy_(0, L.tensor([1, 0]), a[:, 1])   # not dense: not compared, as in PyTorch
        m = L.arange(4.)
        m.masked_scatter_(L.tensor([False, False, True, True]), m[:2])   # PyTorch checks none
        return a, m
    for x, y in zip(*_both(run)):
        _same(x, y)


# ------------------------------------------------------------------ reductions over no dims

@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8"])
@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize("dim", [(), []])
@pytest.mark.parametrize("keepdim", [False, True])
def test_any_all_over_no_dims_is_elementwise(dtype, op, dim, keepdim):
    def run(L):
        x = L.tensor([[0, 1, 2], [3, 0, 1]], dtype=getattr(L, dtype))
        return getattr(x, op)(dim=dim, keepdim=keepdim), getattr(L, op)(x, dim=dim)
    for a, t in zip(*_both(run)):
        _same(a, t)


@pytest.mark.parametrize("op", ["sum", "amax", "amin", "mean", "nansum", "std", "var"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_other_reductions_over_no_dims_reduce_everything(op, keepdim):
    _same(*_both(lambda L: getattr(L.arange(6.).reshape(2, 3), op)(dim=(), keepdim=keepdim)))


# ------------------------------------------------------------------ valid calls that failed

def test_mse_loss_backward_on_empty_input():
    def run(L):
        x = L.ones(0, 3, requires_grad=True)
        loss = F.mse_loss(x, L.ones(0, 3)) if L is ng else L.nn.functional.mse_loss(x, L.ones(0, 3))
        loss.backward()
        return loss, x.grad
    for a, t in zip(*_both(run)):
        _same(a, t)


@pytest.mark.parametrize("shapes", [((2, 3, 0), (0, 0)), ((2, 3, 0), (0, 4)), ((5, 2, 0), (0, 3))])
def test_matmul_with_empty_inner_dims(shapes):
    def run(L):
        a = L.ones(*shapes[0], requires_grad=True)
        r = a @ L.ones(*shapes[1])
        r.sum().backward()
        return r, a.grad
    for a, t in zip(*_both(run)):
        _same(a, t)


def test_linear_inner_and_addbmm_with_zero_sizes():
    torch = _torch()
    tf = torch.nn.functional
    _same(F.linear(ng.ones(5, 2, 0), ng.ones(3, 0)), tf.linear(torch.ones(5, 2, 0), torch.ones(3, 0)))
    _same(F.linear(ng.ones(2, 0), ng.ones(3, 0), ng.ones(3)), tf.linear(torch.ones(2, 0), torch.ones(3, 0), torch.ones(3)))
    _same(ng.inner(ng.ones(3, 0), ng.ones(3, 0)), torch.inner(torch.ones(3, 0), torch.ones(3, 0)))
    _same(ng.addbmm(ng.ones(2, 0), ng.ones(3, 2, 4), ng.ones(3, 4, 0)),
          torch.addbmm(torch.ones(2, 0), torch.ones(3, 2, 4), torch.ones(3, 4, 0)))


def test_flip_takes_dims_one_by_one():
    for call in [lambda x: x.flip(0, 1), lambda x: x.flip((0, 1)), lambda x: x.flip(1), lambda x: x.flip(dims=[0])]:
        _same(*_both(lambda L: call(L.arange(6).reshape(2, 3))))
    torch = _torch()
    _raises_alike(lambda: ng.ones(2).flip(), lambda: torch.ones(2).flip())


@pytest.mark.parametrize("args", [(0, 0), (-1, 0), ((0,), (0,)), ((), ())])
def test_movedim_of_a_zero_dim_tensor(args):
    _same(*_both(lambda L: L.tensor(3.).movedim(*args)))


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_of_a_zero_dim_tensor(k, largest):
    def run(L):
        x = L.tensor(3., requires_grad=True)
        v, i = L.topk(x, k, largest=largest)
        v.backward()
        return v, i, x.grad
    for a, t in zip(*_both(run)):
        _same(a, t)


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "int8"])
def test_lerp_refuses_integer_tensors(dtype):
    torch = _torch()
    calls = [lambda L, x: L.lerp(x, x, 0.5), lambda L, x: L.lerp(x, x, x), lambda L, x: x.lerp_(x.clone(), 0.5)]
    for call in calls:
        _raises_alike(lambda: call(ng, ng.tensor([3, 1, 2], dtype=getattr(ng, dtype))),
                      lambda: call(torch, torch.tensor([3, 1, 2], dtype=getattr(torch, dtype))))


def test_lerp_refuses_mixed_dtypes():
    torch = _torch()
    for call in [lambda L: L.lerp(L.ones(2), L.ones(2, dtype=L.float64), 0.5),
                 lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(2, dtype=L.float64)),
                 lambda L: L.lerp(L.tensor([1, 2]), L.ones(2), 0.5)]:
        _raises_alike(lambda: call(ng), lambda: call(torch))
    _same(*_both(lambda L: L.lerp(L.ones(2), L.zeros(2), L.tensor(0.25, dtype=L.float64))))
    _same(*_both(lambda L: L.lerp(L.ones(2, dtype=L.float16), L.zeros(2, dtype=L.float16), 0.25)))


def test_topk_and_kthvalue_on_bool():
    torch = _torch()
    _raises_alike(lambda: ng.tensor([True, False]).topk(1), lambda: torch.tensor([True, False]).topk(1))
    _raises_alike(lambda: ng.tensor([True, False]).kthvalue(1), lambda: torch.tensor([True, False]).kthvalue(1))
    for dtype in ["int64", "uint8", "int8"]:
        _same(*_both(lambda L: L.tensor([3, 1, 2], dtype=getattr(L, dtype)).topk(2).values))
        _same(*_both(lambda L: L.tensor([3, 1, 2], dtype=getattr(L, dtype)).kthvalue(2).values))


_EMPTY_OPS = {
    "repeat_interleave": lambda L, x: x.repeat_interleave(2, 0),
    "repeat_interleave_flat": lambda L, x: x.repeat_interleave(2),
    "median": lambda L, x: x.median(),
    "nanmedian": lambda L, x: x.nanmedian(),
    "sum": lambda L, x: x.sum(),
    "mean": lambda L, x: x.mean(),
    "matmul": lambda L, x: x @ L.ones(x.shape[-1], 2),
}


@pytest.mark.parametrize("name", sorted(_EMPTY_OPS))
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 3)])
def test_ops_on_empty_inputs_keep_requires_grad(name, shape):
    if name == "matmul" and len(shape) == 1:
        pytest.skip("a vector times a matrix of another inner size")

    def run(L):
        x = L.ones(*shape, requires_grad=True)
        r = _EMPTY_OPS[name](L, x)
        assert r.requires_grad
        r.sum().backward()
        return r, x.grad
    for a, t in zip(*_both(run)):
        _same(a, t)


# ------------------------------------------------------------------ losses and layers

@pytest.mark.parametrize("target", [[-100, -100], [1, -100], [1, 1]])
@pytest.mark.parametrize("kw", [{}, {"weight": True}, {"label_smoothing": 0.2}, {"weight": True, "label_smoothing": 0.2},
                                {"reduction": "sum"}, {"reduction": "none"}])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 1)])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_losses_with_ignored_targets(target, kw, shape, fn):
    torch = _torch()
    if fn == "nll_loss" and "label_smoothing" in kw:
        pytest.skip("no smoothing in nll_loss")

    def run(L, funcs):
        args = dict(kw)
        if args.pop("weight", False):
            args["weight"] = L.tensor([1., 0., 2.])
        x = L.arange(6.).reshape(shape).requires_grad_()
        t = L.tensor(target).reshape((2,) + shape[2:])
        loss = getattr(funcs, fn)(x, t, **args)
        loss.sum().backward()
        return loss, x.grad
    for a, t in zip(run(ng, F), run(torch, torch.nn.functional)):
        np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_all_ignored_cross_entropy_has_zero_gradient():
    x = ng.arange(6.).reshape(2, 3).requires_grad_()
    loss = F.cross_entropy(x, ng.tensor([-100, -100]))
    loss.backward()
    assert math.isnan(loss.item())
    assert (x.grad == 0).all().item()


def test_class_weight_that_requires_grad_is_refused():
    torch = _torch()
    tf = torch.nn.functional
    for shape, tshape in [((2, 3), (2,)), ((2, 3, 4), (2, 4)), ((3,), ())]:
        for name in ["cross_entropy", "nll_loss"]:
            _raises_alike(
                lambda: getattr(F, name)(ng.ones(*shape), ng.zeros(tshape, dtype=ng.int64),
                                         weight=ng.ones(3, requires_grad=True)),
                lambda: getattr(tf, name)(torch.ones(*shape), torch.zeros(tshape, dtype=torch.int64),
                                          weight=torch.ones(3, requires_grad=True)))
    # Probability targets take a differentiable weight.
    w = ng.tensor([1., 2., 3.], requires_grad=True)
    tw = torch.tensor([1., 2., 3.], requires_grad=True)
    F.cross_entropy(ng.arange(6.).reshape(2, 3), ng.ones(2, 3) / 3, weight=w).backward()
    tf.cross_entropy(torch.arange(6.).reshape(2, 3), torch.ones(2, 3) / 3, weight=tw).backward()
    _same(w.grad, tw.grad)


def test_probability_targets_with_ignore_index():
    torch = _torch()
    tf = torch.nn.functional
    _raises_alike(lambda: F.cross_entropy(ng.ones(2, 3), ng.ones(2, 3) / 3, ignore_index=1),
                  lambda: tf.cross_entropy(torch.ones(2, 3), torch.ones(2, 3) / 3, ignore_index=1))
    _raises_alike(lambda: F.cross_entropy(ng.ones(2, 3), ng.ones(2, 3) / 3, ignore_index=0, label_smoothing=0.1),
                  lambda: tf.cross_entropy(torch.ones(2, 3), torch.ones(2, 3) / 3, ignore_index=0, label_smoothing=0.1))
    for kw in [{"ignore_index": -100}, {"ignore_index": -1, "label_smoothing": 0.1}]:
        _same(F.cross_entropy(ng.ones(2, 3), ng.ones(2, 3) / 3, **kw),
              tf.cross_entropy(torch.ones(2, 3), torch.ones(2, 3) / 3, **kw))


def test_layer_norm_refuses_empty_normalized_shape_and_bad_params():
    torch = _torch()
    tf = torch.nn.functional
    for shape in [[], ()]:
        _raises_alike(lambda: F.layer_norm(ng.ones(2, 3), shape), lambda: tf.layer_norm(torch.ones(2, 3), shape))
    _raises_alike(lambda: F.layer_norm(ng.ones(2, 3), [3], ng.ones(4)),
                  lambda: tf.layer_norm(torch.ones(2, 3), [3], torch.ones(4)))


_P = {"f": "float32", "d": "float64", "-": None}


def _same_or_same_error(run, torch):
    """``run(library, its functional module)`` gives PyTorch's result or raises PyTorch's error."""
    try:
        expected = run(torch, torch.nn.functional)
    except RuntimeError:
        _raises_alike(lambda: run(ng, F), lambda: run(torch, torch.nn.functional))
        return
    _same(run(ng, F), expected)


@pytest.mark.parametrize("x", "fd")
@pytest.mark.parametrize("w", "fd-")
@pytest.mark.parametrize("b", "fd-")
def test_layer_norm_parameter_dtypes(x, w, b):
    torch = _torch()

    def run(L, funcs):
        W = None if w == "-" else L.ones(3, dtype=getattr(L, _P[w]))
        B = None if b == "-" else L.zeros(3, dtype=getattr(L, _P[b]))
        return funcs.layer_norm(L.arange(6.).reshape(2, 3).to(getattr(L, _P[x])), [3], W, B)
    _same_or_same_error(run, torch)


@pytest.mark.parametrize("x", "fd")
@pytest.mark.parametrize("w", "fd-")
@pytest.mark.parametrize("rm", "fd")
def test_batch_norm_parameter_dtypes(x, w, rm):
    torch = _torch()

    def run(L, funcs):
        W = None if w == "-" else L.ones(3, dtype=getattr(L, _P[w]))
        d = getattr(L, _P[rm])
        return funcs.batch_norm(L.arange(6.).reshape(2, 3).to(getattr(L, _P[x])), L.zeros(3, dtype=d),
                                L.ones(3, dtype=d), W, None)
    _same_or_same_error(run, torch)


_MIXED_LAYERS = [
    lambda L, f: f.linear(L.ones(2, 3), L.ones(4, 3, dtype=L.float64)),
    lambda L, f: f.linear(L.ones(2, 3, dtype=L.float64), L.ones(4, 3), L.ones(4)),
    lambda L, f: f.linear(L.ones(2, 2, 3), L.ones(4, 3, dtype=L.float64), L.ones(4)),
    lambda L, f: f.linear(L.ones(2, 2, 3), L.ones(4, 3), L.ones(4, dtype=L.float64)),
    lambda L, f: f.linear(L.ones(3), L.ones(4, 3), L.ones(4, dtype=L.float64)),
    lambda L, f: L.addmm(L.ones(4), L.ones(2, 3, dtype=L.float64), L.ones(3, 4)),
    lambda L, f: L.addmm(L.ones(4, dtype=L.float64), L.ones(2, 3, dtype=L.float64), L.ones(3, 4)),
    lambda L, f: L.bmm(L.ones(2, 2, 3), L.ones(2, 3, 4, dtype=L.float64)),
    lambda L, f: L.matmul(L.ones(2, 2, 3), L.ones(2, 3, 4, dtype=L.float64)),
    lambda L, f: f.conv1d(L.ones(1, 1, 5), L.ones(1, 1, 2, dtype=L.float64)),
    lambda L, f: f.conv1d(L.ones(1, 1, 5), L.ones(1, 1, 2, dtype=L.float64), L.ones(1, dtype=L.float64)),
    lambda L, f: f.conv2d(L.ones(1, 1, 5, 5, dtype=L.float64), L.ones(1, 1, 2, 2)),
    lambda L, f: f.conv2d(L.ones(1, 1, 5, 5), L.ones(1, 1, 2, 2), L.ones(1, dtype=L.float64)),
    lambda L, f: f.bilinear(L.ones(2, 3), L.ones(2, 3), L.ones(4, 3, 3, dtype=L.float64)),
    lambda L, f: f.bilinear(L.ones(2, 3), L.ones(2, 3), L.ones(4, 3, 3), L.ones(4, dtype=L.float64)),
]


@pytest.mark.parametrize("k", range(len(_MIXED_LAYERS)))
def test_layers_refuse_mixed_dtypes(k):
    torch = _torch()
    call = _MIXED_LAYERS[k]
    _raises_alike(lambda: call(ng, F), lambda: call(torch, torch.nn.functional))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("dts", [("float32", "float64"), ("float64", "float32"), ("float32", "float16"),
                                 ("float32", "int64")])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_losses_with_mixed_input_dtypes(name, dts, reduction):
    torch = _torch()

    def run(L, funcs):
        a = L.full((2, 3), 0.25, dtype=getattr(L, dts[0]))
        b = L.full((2, 3), 1, dtype=getattr(L, dts[1]))
        return getattr(funcs, name)(a, b, reduction=reduction)
    try:
        expected = run(torch, torch.nn.functional)
    except RuntimeError:
        _raises_alike(lambda: run(ng, F), lambda: run(torch, torch.nn.functional))
        return
    got = run(ng, F)
    assert got.dtype is getattr(ng, str(expected.dtype).split(".")[-1])
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-3)


# ------------------------------------------------------------------ dtypes of advanced-index writes

@pytest.mark.parametrize("dest,index,value", [
    ("int64", lambda L: L.tensor([0]), lambda L: L.tensor([1.5])),
    ("int64", lambda L: L.tensor([0]), lambda L: L.tensor(1.5)),
    ("int64", lambda L: L.tensor([[0]]), lambda L: L.tensor([[1.5]])),
    ("float32", lambda L: L.tensor([True, False, True]), lambda L: L.tensor([1.5, 2.0], dtype=L.float64)),
    ("float32", lambda L: (L.tensor([0]), L.tensor([True, False, True])), lambda L: L.tensor(2.5, dtype=L.float64)),
    ("float32", lambda L: ([0], slice(None)), lambda L: L.tensor(2.5, dtype=L.float64)),
])
def test_advanced_index_writes_need_matching_dtypes(dest, index, value):
    torch = _torch()

    def write(L):
        x = L.zeros(2, 3, dtype=getattr(L, dest)) if isinstance(index(L), tuple) else L.zeros(3, dtype=getattr(L, dest))
        x[index(L)] = value(L)
    _raises_alike(lambda: write(ng), lambda: write(torch))


@pytest.mark.parametrize("index", [lambda L: L.tensor([True, False, True]), lambda L: [True, False, True],
                                   lambda L: (Ellipsis, L.tensor([True, False, True]))])
def test_a_0d_value_through_masks_converts(index):
    torch = _torch()
    a, t = _both(lambda L: L.zeros(3))
    a[index(ng)] = ng.tensor(2.5, dtype=ng.float64)
    t[index(torch)] = torch.tensor(2.5, dtype=torch.float64)
    _same(a, t)
