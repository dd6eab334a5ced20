"""numgrad.vmap against torch.func.vmap: elementwise ops, reductions, views, products and
linalg under every kind of in_dims/out_dims (values, shapes and dtypes compared), and vmap's
errors (types and messages)."""
import functools
import warnings

import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


# ----------------------------------------------------------------------------- inputs

class Spec:
    """How one input of a case is drawn: a float (or positive, int, bool) array of ``shape``,
    optionally stored non-contiguously."""

    def __init__(self, shape, kind="float", high=None, noncontig=False):
        self.shape, self.kind, self.high, self.noncontig = tuple(shape), kind, high, noncontig

    def draw(self, rng, dtype):
        if self.kind == "int":
            return rng.integers(0, self.high, size=self.shape).astype(np.int64)
        if self.kind == "bool":
            return rng.random(self.shape) > 0.5
        a = rng.standard_normal(self.shape)
        if self.kind == "pos":
            a = np.abs(a) + 0.5
        elif self.kind == "prob":
            a = rng.random(self.shape) * 0.8 + 0.1
        elif self.kind == "spd":  # well-conditioned square matrices for inverse / solve
            a = a + 3 * np.eye(self.shape[-1])
        return a.astype(dtype)


def I(*shape, high):  # noqa: E743 - reads like the spec it is
    return Spec(shape, "int", high)


def P(*shape):
    return Spec(shape, "pos")


def NC(*shape):
    return Spec(shape, noncontig=True)


def to_lib(lib, a, noncontig=False):
    """``a`` as a tensor of ``lib`` (torch or numgrad), non-contiguous when asked."""
    if noncontig and a.ndim >= 2:
        stored = np.ascontiguousarray(a.swapaxes(0, -1))
        t = torch.from_numpy(stored) if lib is torch else numgrad.tensor(stored)
        t = t.transpose(0, -1)
        assert not t.is_contiguous()
        return t
    return torch.from_numpy(a.copy()) if lib is torch else numgrad.tensor(a.copy())


def draw(specs, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [s.draw(rng, dtype) if isinstance(s, Spec) else Spec(s).draw(rng, dtype) for s in specs]


# ----------------------------------------------------------------------------- comparison

def _name(dtype):
    return str(dtype).rpartition(".")[2]


def assert_same(got, want, tol=None, path="out"):
    """``got`` (numgrad, any nesting) equals ``want`` (torch): structure, shapes, dtypes, values."""
    if isinstance(want, torch.Tensor):
        assert isinstance(got, numgrad.Tensor), f"{path}: {type(got)} is not a Tensor"
        assert tuple(got.shape) == tuple(want.shape), f"{path}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        assert _name(got.dtype) == _name(want.dtype), f"{path}: dtype {got.dtype} != {want.dtype}"
        g, w = got.detach().numpy(), want.detach().numpy()
        if w.dtype.kind in "fc":
            if tol == "loose":  # iterative algorithms (SVD) that differ in the last bits
                tol = dict(rtol=1e-3, atol=1e-4) if w.dtype == np.float32 else dict(rtol=1e-7, atol=1e-8)
            np.testing.assert_allclose(g, w, err_msg=path, **(tol or TOL.get(str(w.dtype), TOL["float32"])))
        else:
            np.testing.assert_array_equal(g, w, err_msg=path)
    elif isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{path}: {got!r} vs {want!r}"
        if hasattr(want, "_fields"):
            assert tuple(getattr(got, "_fields", ())) == want._fields, f"{path}: not a namedtuple like torch's"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, tol, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), f"{path}: keys"
        for k in want:
            assert_same(got[k], want[k], tol, f"{path}[{k!r}]")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


def run_both(fn, specs, dtype, in_dims=0, out_dims=0, tol=None, kwargs=None, **vmap_kwargs):
    """vmap(fn(lib, ...)) in numgrad and in torch on the same inputs, compared."""
    arrays = draw(specs, dtype)
    results = []
    for lib, vmap in ((numgrad, numgrad.vmap), (torch, torch.func.vmap)):
        f = functools.partial(fn, lib)
        results.append(vmap(f, in_dims, out_dims, **vmap_kwargs)(
            *[to_lib(lib, a, isinstance(s, Spec) and s.noncontig) for s, a in zip(specs, arrays)], **(kwargs or {})))
    assert_same(results[0], results[1], tol)


class Case:
    def __init__(self, name, fn, specs, in_dims=0, out_dims=0, xfail=None, tol=None, **vmap_kwargs):
        self.name, self.fn, self.specs, self.in_dims, self.out_dims = name, fn, specs, in_dims, out_dims
        self.xfail, self.tol, self.vmap_kwargs = xfail, tol, vmap_kwargs

    def param(self, dtype):
        marks = [pytest.mark.xfail(strict=True, reason=self.xfail)] if self.xfail else []
        return pytest.param(self, dtype, id=f"{self.name}-{dtype}", marks=marks)


def params(cases):
    return [c.param(d) for c in cases for d in DTYPES]


def check(case, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_both(case.fn, case.specs, dtype, case.in_dims, case.out_dims, case.tol, **case.vmap_kwargs)


def F(lib):
    return lib.nn.functional


# ----------------------------------------------------------------------------- elementwise

ELEMENTWISE = [
    Case("add", lambda T, x, y: x + y, [(3, 4), (3, 4)]),
    Case("sub_scalar", lambda T, x: 2.0 - x, [(3, 4)]),
    Case("mul_in_dims_0_1", lambda T, x, y: x * y, [(3, 4), (4, 3)], in_dims=(0, 1)),
    Case("div_in_dims_neg1", lambda T, x, y: x / y, [(4, 3), P(3, 4)], in_dims=(-1, 0)),
    Case("pow_tensor", lambda T, x, y: x ** y, [P(3, 4), (3, 4)]),
    Case("pow_scalar", lambda T, x: x ** 3 + 2 ** x, [(3, 4)]),
    Case("neg_abs", lambda T, x: -abs(x), [(3, 4)]),
    Case("comparisons", lambda T, x, y: (x < y, x >= y, x == y, x != 0.5), [(3, 4), (4,)], in_dims=(0, None)),
    Case("unbatched_larger_rank", lambda T, x, y: x * y, [(3, 4), (2, 5, 4)], in_dims=(0, None)),
    Case("batched_larger_rank", lambda T, x, y: x - y, [(2, 5, 4, 3), (4,)], in_dims=(-1, None)),
    Case("sin_exp", lambda T, x: T.sin(x) * T.exp(x), [(3, 2, 4)]),
    Case("unary_methods", lambda T, x: x.tanh() + x.sigmoid() + x.abs().sqrt() + x.abs().log1p(), [(3, 4)]),
    Case("where", lambda T, c, x, y: T.where(c > 0, x, y), [(3, 4), (3, 4), (4,)], in_dims=(0, 0, None)),
    Case("where_unbatched_cond", lambda T, c, x: T.where(c > 0, x, 0.0), [(4,), (3, 4)], in_dims=(None, 0)),
    Case("clamp", lambda T, x: T.clamp(x, -0.5, 0.5) + x.clamp(min=0.1), [(3, 4)]),
    Case("clamp_tensor_bounds", lambda T, x, lo: T.clamp(x, min=lo), [(3, 4), (4, 3)], in_dims=(0, 1)),
    Case("maximum_minimum", lambda T, x, y: T.maximum(x, y) - T.minimum(x, y), [(3, 4), (4,)],
         in_dims=(0, None)),
    Case("relu_gelu_softplus", lambda T, x: F(T).relu(x) + F(T).gelu(x) + F(T).softplus(x, beta=2.0),
         [(3, 4)]),
    Case("gelu_tanh_silu_elu", lambda T, x: F(T).gelu(x, approximate="tanh") + F(T).silu(x) + F(T).elu(x)
         + F(T).leaky_relu(x, 0.1) + F(T).hardtanh(x), [(3, 4)]),
    Case("zero_d_samples", lambda T, x, y: x * y + T.sin(x), [(5,), (5,)]),
    Case("zero_d_sample_with_vector", lambda T, x, y: x * y, [(5,), (3,)], in_dims=(0, None)),
    Case("noncontiguous", lambda T, x, y: x * 2 + y.exp(), [NC(3, 4, 2), NC(2, 3)], in_dims=(0, 1)),
    Case("out_dims_1", lambda T, x: x.cos(), [(3, 4, 2)], out_dims=1),
    Case("out_dims_neg1", lambda T, x: x.cos(), [(3, 4, 2)], out_dims=-1),
    Case("out_dims_tuple_none_unbatched", lambda T, x, y: (x * 2, y + 1), [(3, 4), (4,)], in_dims=(0, None),
         out_dims=(0, None)),
    Case("unbatched_output_expanded", lambda T, x, y: (x, y * 2), [(3, 4), (4,)], in_dims=(0, None)),
    Case("int_tensor", lambda T, i, x: x * i + i // 2, [I(3, 4, high=5), (3, 4)]),
    Case("type_promotion", lambda T, i, x: (x + i, i * 2.5, (i > 1).sum(), i.float() / 2, x * T.tensor(2.0),
                                            x.double() + x), [I(3, 4, high=5), (3, 4)]),
    Case("bool_ops", lambda T, x: (x > 0) & (x < 1) | ~(x > 2), [(3, 4)]),
    Case("chunk_size", lambda T, x, y: x * y + 1, [(7, 4), (4,)], in_dims=(0, None), chunk_size=3),
    Case("chunk_size_out_dims_1", lambda T, x: x.exp(), [(5, 4)], out_dims=1, chunk_size=2),
]


@pytest.mark.parametrize("case,dtype", params(ELEMENTWISE))
def test_elementwise(case, dtype):
    check(case, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nested_tuple_in_dims(dtype):
    a, b, z = draw([(3, 4), (4, 3), (4,)], dtype)
    out = []
    for lib, vmap in ((numgrad, numgrad.vmap), (torch, torch.func.vmap)):
        xs = (to_lib(lib, a), to_lib(lib, b))
        out.append(vmap(lambda xs, z: (xs[0] * xs[1] + z, {"s": xs[0].sum()}), in_dims=((0, 1), None),
                        out_dims=(1, {"s": 0}))(xs, to_lib(lib, z)))
    assert_same(*out)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dict_in_dims_and_kwargs(dtype):
    a, b, z = draw([(3, 4), (4, 3), (4,)], dtype)
    out = []
    for lib, vmap in ((numgrad, numgrad.vmap), (torch, torch.func.vmap)):
        def f(d, z, *, scale):
            return d["a"] * d["b"] * scale + z
        d = {"a": to_lib(lib, a), "b": to_lib(lib, b)}
        out.append(vmap(f, in_dims=({"a": 0, "b": 1}, None))(d, to_lib(lib, z), scale=to_lib(lib, z)))
    assert_same(*out)


@pytest.mark.parametrize("dtype", DTYPES)
def test_list_input_and_func_vmap_alias(dtype):
    a, b = draw([(3, 4), (3, 4)], dtype)
    got = numgrad.func.vmap(lambda xs: xs[0] + xs[1])([numgrad.tensor(a), numgrad.tensor(b)])
    want = torch.func.vmap(lambda xs: xs[0] + xs[1])([torch.from_numpy(a), torch.from_numpy(b)])
    assert_same(got, want)


def test_zero_size_batch():
    x = np.zeros((0, 3), np.float32)
    got = numgrad.vmap(lambda v: v * 2)(numgrad.tensor(x))
    want = torch.func.vmap(lambda v: v * 2)(torch.from_numpy(x))
    assert_same(got, want)


# ----------------------------------------------------------------------------- reductions

REDUCTIONS = [
    Case("sum_all_dim_keepdim", lambda T, x: (x.sum(), x.sum(1), x.sum(-1, keepdim=True), T.sum(x, (0, 1))),
         [(3, 4, 5)]),
    Case("sum_in_dim_1", lambda T, x: x.sum(0), [(4, 3, 5)], in_dims=1),
    Case("mean", lambda T, x: (x.mean(), T.mean(x, dim=0, keepdim=True)), [(3, 4, 5)]),
    Case("amax_amin", lambda T, x: (x.amax(), x.amax(-1), T.amin(x, dim=(0, 1), keepdim=True)), [(3, 4, 5)]),
    Case("std_var", lambda T, x: (x.std(), x.var(1), T.std(x, 0, unbiased=False), x.var(correction=0)),
         [(3, 4, 5)]),
    Case("prod", lambda T, x: (x.prod(), x.prod(1, keepdim=True)), [(3, 4, 3)]),
    Case("argmax_argmin", lambda T, x: (x.argmax(), x.argmax(1), T.argmin(x, 0, keepdim=True)), [(3, 4, 5)]),
    Case("max_dim_namedtuple", lambda T, x: T.max(x, 1), [(3, 4, 5)]),
    Case("min_dim_keepdim", lambda T, x: x.min(0, keepdim=True), [(3, 4, 5)]),
    Case("max_no_dim", lambda T, x: (T.max(x), x.min()), [(3, 4, 5)]),
    Case("max_binary", lambda T, x, y: T.max(x, y), [(3, 4), (4,)], in_dims=(0, None)),
    Case("median", lambda T, x: (x.median(), T.median(x, 1)), [(3, 4, 5)]),
    Case("logsumexp", lambda T, x: (T.logsumexp(x, 1), x.logsumexp((0, 1), keepdim=True)), [(3, 4, 5)]),
    Case("softmax_log_softmax", lambda T, x: (T.softmax(x, -1), F(T).log_softmax(x, dim=0)), [(3, 4, 5)]),
    Case("softmax_in_dim_neg1", lambda T, x: F(T).softmax(x, dim=-1), [(4, 5, 3)], in_dims=-1),
    Case("cumsum_cumprod", lambda T, x: (x.cumsum(0), T.cumsum(x, dim=-1), x.cumprod(1)), [(3, 4, 5)]),
    Case("sort", lambda T, x: (T.sort(x), T.sort(x, 0, descending=True), x.sort(descending=True)), [(3, 4, 5)]),
    Case("topk", lambda T, x: (x.topk(2), T.topk(x, 3, dim=0, largest=False)), [(3, 4, 5)]),
    Case("all_any", lambda T, x: ((x > 0).all(), (x > 0).any(1), T.all(x > -1, dim=0, keepdim=True)),
         [(3, 4, 5)]),
    Case("norm", lambda T, x: (T.norm(x), T.norm(x, dim=1), T.norm(x, p=1)), [(3, 4, 5)]),
    Case("kthvalue_nansum", lambda T, x: (T.kthvalue(x, 2, 1), x.nansum(0), x.msort()), [(3, 4, 5)]),
    Case("quantile", lambda T, x: (T.quantile(x, 0.3), T.quantile(x, 0.5, keepdim=True),
                                   T.quantile(x, T.tensor([0.2, 0.7], dtype=x.dtype), dim=1, keepdim=True),
                                   x.nanquantile(0.25, dim=-1)), [(3, 4, 5)]),
    Case("kron_repeat_interleave", lambda T, x: (T.kron(x, T.ones(2, 3, dtype=x.dtype)), T.repeat_interleave(x, 2),
                                                 x.repeat_interleave(2, dim=1)), [(3, 4, 5)]),
] + [Case(name, fn, [(3, 4, 5)])
     for name, fn in [
         ("method_sort_dim", lambda T, x: (x.sort(0), x.sort(dim=0))),
         ("method_argsort_dim", lambda T, x: x.argsort(0)),
         ("method_topk_dim", lambda T, x: (x.topk(2, 0), x.topk(2, dim=0))),
         ("method_kthvalue_dim", lambda T, x: x.kthvalue(1, 0)),
         ("method_logcumsumexp", lambda T, x: x.logcumsumexp(0)),
         ("method_norm_dim", lambda T, x: (x.norm(dim=1), x.norm(2, 0))),
]] + [
    Case("method_nanmedian_aminmax", lambda T, x: (x.nanmedian(0), x.aminmax(dim=0)), [(3, 4, 5)]),
    Case("trapezoid", lambda T, x: T.trapezoid(x, dim=0), [(3, 4, 5)]),
    Case("method_norm_no_dim", lambda T, x: (x.norm(), x.norm(p=1)), [(3, 4, 5)]),
    Case("method_count_nonzero", lambda T, x: (x > 0).count_nonzero(0), [(3, 4, 5)]),
]


@pytest.mark.parametrize("case,dtype", params(REDUCTIONS))
def test_reductions(case, dtype):
    check(case, dtype)


# ----------------------------------------------------------------------------- views and shapes

def _inplace_on_views(T, x, y):
    x = x.clone()
    x[:, 0].mul_(2)
    x.view(-1)[3] = 7.0
    x.transpose(0, 1)[1].zero_()
    x.relu_().sub_(1).div_(2)
    x += y
    return x


def _setitem_at(x, i, v):
    x = x.clone()
    x[i] = v
    return x


def _setitem(T, x, v):
    x = x.clone()
    x[1:3] = v
    x[0, 0] = 5.0
    return x


VIEWS = [
    Case("reshape_view", lambda T, x: (x.reshape(6, 2), x.view(-1), T.reshape(x, (2, -1))), [(3, 4, 3)]),
    Case("reshape_in_dim_1", lambda T, x: x.reshape(-1), [(4, 3, 3)], in_dims=1),
    Case("view_noncontiguous_sample", lambda T, x: x.reshape(9), [NC(3, 4, 3)], in_dims=1),
    Case("expand", lambda T, x: (x.expand(2, 4), x.unsqueeze(0).expand(3, -1, -1)), [(3, 1, 4)]),
    Case("expand_unbatched_as", lambda T, x, y: y.expand_as(x), [(3, 2, 4), (4,)], in_dims=(0, None)),
    Case("repeat", lambda T, x: (x.repeat(2, 3), x.repeat(2, 1, 1)), [(3, 2, 4)]),
    Case("permute_transpose", lambda T, x: (x.permute(2, 0, 1), x.transpose(0, 2), T.transpose(x, 1, -1)),
         [(3, 2, 4, 5)]),
    Case("t_mT_T", lambda T, x: (x.t(), x.mT, x.T), [(3, 2, 4)]),
    Case("mT_3d", lambda T, x: (x.mT, T.t(x[0])), [(3, 2, 4, 5)]),
    Case("squeeze_unsqueeze", lambda T, x: (x.squeeze(), x.squeeze(1), T.squeeze(x, (0, 1)), x.unsqueeze(-1),
                                            T.unsqueeze(x, 0)), [(3, 1, 1, 4)]),
    Case("squeeze_batch_size_1", lambda T, x: x.squeeze(), [(1, 1, 4)]),
    Case("flatten_unflatten", lambda T, x: (x.flatten(), T.flatten(x, 1), x.flatten().unflatten(0, (2, 6))),
         [(3, 2, 3, 2)]),
    Case("movedim", lambda T, x: (x.movedim(0, -1), T.movedim(x, (0, 1), (2, 0))), [(3, 2, 4, 5)]),
    Case("narrow_select", lambda T, x: (x.narrow(1, 1, 2), x.select(0, 1), T.select(x, -1, 0)), [(3, 2, 4)]),
    Case("split_chunk_unbind", lambda T, x: (x.split(2, 1), T.chunk(x, 2, 0), x.unbind(1), x.split([1, 3], -1)),
         [(3, 2, 4)]),
    Case("diagonal", lambda T, x: (x.diagonal(), T.diagonal(x, 1), T.diag(x[0])), [(3, 4, 4)]),
    Case("diag_embed_vector", lambda T, x: T.diag(x), [(3, 4)]),
    Case("flip_roll", lambda T, x: (x.flip(-1), T.flip(x, (0, 1)), T.roll(x, 1, 1), T.roll(x, 2)), [(3, 2, 4)]),
    Case("method_flip_dim", lambda T, x: x.flip(0), [(3, 2, 4)]),
    Case("method_flip_dims_keyword", lambda T, x: x.flip(dims=(0,)), [(3, 2, 4)]),
    Case("method_roll", lambda T, x: (x.roll(1, 0), x.roll(1), x.roll(1, dims=0)), [(3, 2, 4)]),
    Case("cat_stack_unbatched", lambda T, x, y: (T.cat([x, y], 0), T.stack([x, y], 1), T.cat((y, x, y), -1)),
         [(3, 2, 4), (2, 4)], in_dims=(0, None)),
    Case("cat_mixed_in_dims", lambda T, x, y: T.cat([x, y]), [(3, 2, 4), (2, 4, 3)], in_dims=(0, 2)),
    Case("gather", lambda T, x, i: (x.gather(1, i), T.gather(x, 0, i)), [(3, 2, 4), I(3, 2, 2, high=2)]),
    Case("gather_unbatched_index", lambda T, x, i: x.gather(1, i), [(3, 2, 4), I(2, 3, high=4)],
         in_dims=(0, None)),
    Case("gather_batched_index_only", lambda T, x, i: x.gather(1, i), [(2, 4), I(3, 2, 3, high=4)],
         in_dims=(None, 0)),
    Case("take_along_dim_unbatched_index", lambda T, x, i: T.take_along_dim(x, i, 0), [(3, 4, 2), I(1, 2, high=4)],
         in_dims=(0, None)),
    Case("take_along_dim", lambda T, x, i: T.take_along_dim(x, i, 1), [(3, 4, 2), I(3, 4, 1, high=2)]),
    Case("index_select", lambda T, x, i: T.index_select(x, 1, i), [(3, 2, 4), I(3, 5, high=4)]),
    Case("index_select_unbatched_index", lambda T, x, i: T.index_select(x, 0, i), [(3, 2, 4), I(5, high=2)],
         in_dims=(0, None)),
    Case("method_index_select", lambda T, x, i: x.index_select(0, i), [(3, 2, 4), I(5, high=2)],
         in_dims=(0, None)),
    Case("basic_index", lambda T, x: (x[0], x[:, 1:3], x[..., -1], x[None, 1], x[1:, ::2]), [(3, 2, 5)]),
    Case("int_tensor_index", lambda T, x, i: x[i], [(3, 4, 2), I(3, 5, high=4)]),
    Case("int_tensor_index_unbatched", lambda T, x, i: (x[i], x[:, i]), [(3, 4, 4), I(5, high=4)],
         in_dims=(0, None)),
    Case("int_tensor_index_unbatched_source", lambda T, x, i: x[i], [(4, 5), I(3, 2, high=4)], in_dims=(None, 0)),
    Case("setitem_batched_index_and_value", lambda T, x, i, v: _setitem_at(x, i, v), [(3, 4, 5), I(3, 2, high=4),
                                                                                    (3, 2, 5)]),
    Case("scatter_unbatched_index", lambda T, x, i: (T.scatter(x, 0, i, 1.0), T.scatter(x, 1, i, 2.0)),
         [(3, 4, 5), I(1, 5, high=4)], in_dims=(0, None)),
    Case("scatter_batched_index", lambda T, x, i: T.scatter(x, 0, i, 1.0), [(3, 4, 5), I(3, 1, 5, high=4)]),
    Case("scatter_batched_index_unbatched_self", lambda T, x, i: T.scatter(x, 0, i, 1.0),
         [(4, 5), I(3, 1, 5, high=4)], in_dims=(None, 0)),
    Case("scatter_add_batched_source", lambda T, x, i, src: T.scatter_add(x, 0, i, src),
         [(3, 4, 5), I(1, 5, high=4), (3, 1, 5)], in_dims=(0, None, 0)),
    Case("index_ops_unbatched_self_batched_source",
         lambda T, x, src: (T.scatter_add(x, 0, T.zeros(1, 5, dtype=T.int64), src),
                            T.index_add(x, 0, T.tensor([1]), src), T.index_copy(x, 0, T.tensor([1]), src),
                            T.index_put(x, (T.tensor([1]),), src)), [(4, 5), (3, 1, 5)], in_dims=(None, 0)),
    Case("method_scatter", lambda T, x, i: (x.scatter(0, i, 1.0), x.scatter_add(0, i, x[:1])),
         [(3, 4, 5), I(1, 5, high=4)], in_dims=(0, None)),
    Case("method_scatter_unbatched_self", lambda T, x, i: x.scatter(0, i, 1.0), [(4, 5), I(3, 1, 5, high=4)],
         in_dims=(None, 0)),
] + [Case(f"method_{name}_unbatched_self_batched_source", fn, [(4, 5), (3, 1, 5)], in_dims=(None, 0))
     for name, fn in [
         ("scatter_add", lambda T, x, src: x.scatter_add(0, T.zeros(1, 5, dtype=T.int64), src)),
         ("index_add", lambda T, x, src: x.index_add(0, T.tensor([1]), src)),
         ("index_copy", lambda T, x, src: x.index_copy(0, T.tensor([1]), src)),
         ("index_put", lambda T, x, src: x.index_put((T.tensor([1]),), src)),
]] + [
    Case("masked_fill_unbatched_value", lambda T, x, v: x.masked_fill(x > 0, v), [(3, 4), ()], in_dims=(0, None)),
    Case("masked_fill_fill_batched_value", lambda T, x, v: (T.masked_fill(x, x > 0, v), x.clone().fill_(v)),
         [(3, 4), (3,)]),
    Case("bool_mask_mul", lambda T, x: x * (x > 0), [(3, 4)]),
    Case("setitem_slice", _setitem, [(3, 4, 2), (2, 2)], in_dims=(0, None)),
    Case("setitem_batched_value", _setitem, [(3, 4, 2), (3, 2, 2)]),
    Case("inplace_on_views", _inplace_on_views, [(3, 4, 5), (5,)], in_dims=(0, None)),
    Case("inplace_batched_other", _inplace_on_views, [(3, 4, 5), (5, 3)], in_dims=(0, 1)),
    Case("clone_contiguous", lambda T, x: x.clone() + x.contiguous(), [NC(3, 4, 2)]),
    Case("new_zeros_like", lambda T, x: (T.zeros_like(x) + x, T.ones_like(x), x.new_zeros(2), T.full_like(x, 2.)),
         [(3, 4)]),
]


@pytest.mark.parametrize("case,dtype", params(VIEWS))
def test_views_and_indexing(case, dtype):
    check(case, dtype)


# ----------------------------------------------------------------------------- products and linalg

# (sample ranks of a and b, full shapes of a and b, in_dims)
MATMULS = [
    ("1d_1d", (3, 4), (3, 4), (0, 0)),
    ("1d_2d", (3, 4), (4, 5), (0, None)),
    ("2d_1d", (3, 2, 4), (4,), (0, None)),
    ("2d_2d", (3, 2, 4), (3, 4, 5), (0, 0)),
    ("2d_2d_right_batched", (2, 4), (3, 4, 5), (None, 0)),
    ("2d_2d_in_dim_1", (2, 3, 4), (4, 5), (1, None)),
    ("3d_2d", (3, 2, 2, 4), (4, 5), (0, None)),
    ("3d_3d_right_batched", (2, 2, 4), (3, 2, 4, 5), (None, 0)),
    ("2d_3d_in_dim_neg1", (3, 2, 4), (2, 4, 5, 3), (0, -1)),
    ("1d_3d", (4,), (3, 2, 4, 5), (None, 0)),
    ("3d_1d_in_dim_1", (3, 2, 2, 4), (4, 3), (0, 1)),
]

PRODUCTS = [Case(f"matmul_{name}", lambda T, a, b: T.matmul(a, b), [a, b], in_dims=dims) for name, a, b, dims in MATMULS
] + [
    Case("matmul_operator", lambda T, a, b: a @ b, [(3, 2, 4), (4, 5)], in_dims=(0, None)),
    Case("mm", lambda T, a, b: (T.mm(a, b), a.mm(b)), [(3, 2, 4), (3, 4, 5)]),
    Case("mm_unbatched_left", lambda T, a, b: T.mm(a, b), [(2, 4), (3, 4, 5)], in_dims=(None, 0)),
    Case("bmm", lambda T, a, b: T.bmm(a, b), [(3, 2, 2, 4), (2, 4, 5)], in_dims=(0, None)),
    Case("mv", lambda T, a, b: (T.mv(a, b), a.mv(b)), [(3, 2, 4), (4, 3)], in_dims=(0, 1)),
    Case("dot", lambda T, a, b: (T.dot(a, b), a.dot(b)), [(3, 4), (4,)], in_dims=(0, None)),
    Case("outer", lambda T, a, b: T.outer(a, b), [(3, 4), (3, 5)]),
    Case("einsum", lambda T, a, b: (T.einsum("ij,jk->ik", a, b), T.einsum("ij->j", a),
                                    T.einsum("ij,ij->", a, a), T.einsum("bij,jk->bik", b[None], b.T @ b)),
         [(3, 2, 4), (4, 5)], in_dims=(0, None)),
    Case("einsum_both_batched", lambda T, a, b: T.einsum("i,j->ij", a, b), [(3, 4), (5, 3)], in_dims=(0, 1)),
    Case("linear_batched_input", lambda T, x, w, b: F(T).linear(x, w, b), [(3, 2, 4), (5, 4), (5,)],
         in_dims=(0, None, None)),
    Case("linear_batched_weight", lambda T, x, w, b: F(T).linear(x, w, b), [(2, 4), (3, 5, 4), (3, 5)],
         in_dims=(None, 0, 0)),
    Case("linear_no_bias_1d", lambda T, x, w: F(T).linear(x, w), [(3, 4), (3, 5, 4)]),
    Case("addmm", lambda T, c, a, b: (T.addmm(c, a, b), T.addmm(c, a, b, beta=0.5, alpha=2.0)),
         [(5,), (3, 2, 4), (4, 5)], in_dims=(None, 0, None)),
    Case("addmm_batched_bias", lambda T, c, a, b: T.addmm(c, a, b), [(3, 2, 5), (2, 4), (4, 5)],
         in_dims=(0, None, None)),
    Case("inv_det", lambda T, a: (T.linalg.inv(a), T.linalg.det(a), T.inverse(a), T.det(a)),
         [Spec((3, 3, 3), "spd")]),
    Case("solve", lambda T, a, b: (T.linalg.solve(a, b), T.linalg.solve(a, b[:, 0])), [Spec((3, 3, 3), "spd"),
                                                                                    (3, 2)], in_dims=(0, None)),
    Case("solve_batched_rhs", lambda T, a, b: T.linalg.solve(a, b), [Spec((3, 3), "spd"), (3, 3, 2)],
         in_dims=(None, 0)),
    Case("vector_norm", lambda T, x: (T.linalg.vector_norm(x), T.linalg.vector_norm(x, 1, dim=-1),
                                      T.linalg.vector_norm(x, float("inf"), dim=0, keepdim=True)), [(3, 2, 4)]),
    Case("matrix_norm", lambda T, x: (T.linalg.matrix_norm(x), T.linalg.matrix_norm(x, "nuc"),
                                      T.linalg.matrix_norm(x, 1), T.linalg.norm(x)), [(3, 2, 4)], tol="loose"),
]


@pytest.mark.parametrize("case,dtype", params(PRODUCTS))
def test_products_and_linalg(case, dtype):
    check(case, dtype)


# ----------------------------------------------------------------------------- errors

def _double(x):
    return x * 2


def _add(x, y):
    return x + y


def _control_flow(x):
    if x.sum() > 0:
        return x
    return -x


def _item(x):
    return x * x.sum().item()


def _add_into_unbatched(x, y):
    y.add_(x)
    return y


def _set_into_unbatched(x, y):
    y = y.clone()
    y[0] = x[0]
    return y


def _xfail(reason):
    return dict(marks=pytest.mark.xfail(strict=True, reason=reason))


# (id, call(lib, vmap), exception type, message start)
ERRORS = [
    ("batch_sizes", lambda L, vmap: vmap(_add)(L.ones(3, 2), L.ones(4, 2)), ValueError,
     "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [3, 4]"),
    ("in_dim_out_of_range", lambda L, vmap: vmap(_double, in_dims=2)(L.ones(3, 2)), ValueError,
     "vmap(_double, in_dims=2, ...)(<inputs>): Got in_dim=2 for some input, but that input is a Tensor of "
     "dimensionality 2 so expected in_dim to satisfy -2 <= in_dim < 2."),
    ("in_dim_negative_out_of_range", lambda L, vmap: vmap(_double, in_dims=-3)(L.ones(3, 2)), ValueError,
     "vmap(_double, in_dims=-3, ...)(<inputs>): Got in_dim=-3 for some input"),
    ("in_dim_non_tensor", lambda L, vmap: vmap(_add, in_dims=(0, 0))(L.ones(3, 2), 1.0), ValueError,
     "vmap(_add, in_dims=(0, 0), ...)(<inputs>): Got in_dim=0 for an input but the input is of type "
     "<class 'float'>. We cannot vmap over non-Tensor arguments"),
    ("in_dims_structure", lambda L, vmap: vmap(_add, in_dims=(0, 0, 0))(L.ones(3, 2), L.ones(3, 2)),
     ValueError, "vmap(_add, in_dims=(0, 0, 0), ...)(<inputs>): in_dims is not compatible with the structure of "
     "`inputs`. in_dims has structure"),
    ("in_dims_list", lambda L, vmap: vmap(_add, in_dims=[0, 0])(L.ones(3, 2), L.ones(3, 2)), ValueError,
     "vmap(_add, in_dims=[0, 0], ...)(<inputs>): expected `in_dims` to be int or a (potentially nested) tuple"),
    ("in_dims_all_none", lambda L, vmap: vmap(_double, in_dims=None)(L.ones(3, 2)), ValueError,
     "vmap(_double, in_dims=None, ...)(<inputs>): expected `in_dims` to be int"),
    ("in_dim_str", lambda L, vmap: vmap(_double, in_dims=("a",))(L.ones(3, 2)), ValueError,
     "vmap(_double, in_dims=('a',), ...)(<inputs>): Got in_dim=a for an input but in_dim must be either an "
     "integer dimension or None."),
    ("no_inputs", lambda L, vmap: vmap(_double)(), ValueError,
     "vmap(_double)(<inputs>): got no inputs. Maybe you forgot to add inputs"),
    ("non_tensor_output", lambda L, vmap: vmap(lambda x: (x, 1.0))(L.ones(3, 2)), ValueError,
     "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'float'>. Did you mean to set "
     "out_dims= to None for output?"),
    ("batched_output_out_dims_none", lambda L, vmap: vmap(_double, out_dims=None)(L.ones(3, 2)), ValueError,
     "vmap(_double, ...): `_double` can not return a BatchedTensor when out_dim is None"),
    ("out_dims_structure", lambda L, vmap: vmap(lambda x: (x, x), out_dims=(0, 0, 0))(L.ones(3, 2)),
     ValueError, "vmap(<lambda>, ..., out_dims=(0, 0, 0))(<inputs>): out_dims is not compatible with the "
     "structure of `outputs`."),
    ("out_dims_str", lambda L, vmap: vmap(_double, out_dims="a")(L.ones(3, 2)), ValueError,
     "vmap(_double, ..., out_dims=a): `out_dims` must be an int, None or a python collection of ints"),
    ("out_dim_out_of_range", lambda L, vmap: vmap(_double, out_dims=3)(L.ones(3, 2)), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("data_dependent_control_flow", lambda L, vmap: vmap(_control_flow)(L.ones(3, 2)), RuntimeError,
     "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
     "We don't support that yet"),
    ("item", lambda L, vmap: vmap(_item)(L.ones(3, 2)), RuntimeError,
     "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
     "Tensor, please try to rewrite what you're doing with other operations."),
    # PyTorch words this one as a broadcast error, numgrad as the in-place error: both refuse it.
    ("inplace_into_unbatched",
     lambda L, vmap: vmap(_add_into_unbatched, in_dims=(0, None))(L.ones(3, 2), L.ones(2)), RuntimeError, ""),
    ("setitem_into_unbatched",
     lambda L, vmap: vmap(_set_into_unbatched, in_dims=(0, None))(L.ones(3, 2), L.ones(2)),
     RuntimeError, "vmap: inplace arithmetic(self, *extra_args) is not possible"),
    ("randomness_string", lambda L, vmap: vmap(_double, randomness="bad")(L.ones(3, 2)), RuntimeError,
     "Only allowed values for randomness are 'error', 'different', or 'same'. Got bad"),
    ("chunk_size_zero", lambda L, vmap: vmap(_double, chunk_size=0)(L.ones(3, 2)), ValueError,
     "vmap: chunk_size should be None or greater than 0. (got 0)"),
    ("dynamic_shape_nonzero", lambda L, vmap: vmap(L.nonzero)(L.ones(3, 2)), RuntimeError,
     "vmap: We do not support batching operators that can output dynamic shape."),
]


@pytest.mark.parametrize("name,call,error,message", [
    pytest.param(*p.values, id=p.values[0], marks=p.marks) if hasattr(p, "values") else pytest.param(*p, id=p[0])
    for p in ERRORS])
def test_errors_as_torch(name, call, error, message):
    with pytest.raises(error) as info:  # the expectation itself is torch's behaviour
        call(torch, torch.func.vmap)
    assert str(info.value).startswith(message), str(info.value)
    with warnings.catch_warnings(), pytest.raises(error) as info:
        warnings.simplefilter("ignore")
        call(numgrad, numgrad.vmap)
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize("op", ["nonzero", "masked_select"])
def test_dynamic_shape_with_unequal_counts_raises(op):
    a = np.array([[1., 0.], [1., 1.], [0., 0.]])
    fns = {"nonzero": lambda L: L.nonzero, "masked_select": lambda L: lambda x: x[x > 0]}
    for L in (numgrad, torch):
        with warnings.catch_warnings(), pytest.raises(RuntimeError):
            warnings.simplefilter("ignore")
            L.vmap(fns[op](L))(L.tensor(a))


# ----------------------------------------------------------------------------- batch dim last

def _batch_dim_last(case):
    """``case`` with every input's batch dim moved last, or None where an input is not batched."""
    dims = case.in_dims if isinstance(case.in_dims, tuple) else (case.in_dims,) * len(case.specs)
    if case.xfail or None in dims or any(isinstance(s, Spec) and s.noncontig for s in case.specs):
        return None
    return pytest.param(case, dims, id=case.name)


@pytest.mark.parametrize("case,dims", [p for p in map(_batch_dim_last, ELEMENTWISE + REDUCTIONS + VIEWS + PRODUCTS)
                                       if p is not None])
def test_batch_dim_last(case, dims):
    arrays = [np.ascontiguousarray(np.moveaxis(a, d, -1)) for a, d in zip(draw(case.specs, "float64"), dims)]
    results = []
    for lib, vmap in ((numgrad, numgrad.vmap), (torch, torch.func.vmap)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = functools.partial(case.fn, lib)
            results.append(vmap(f, -1, case.out_dims, **case.vmap_kwargs)(*[to_lib(lib, a) for a in arrays]))
    assert_same(results[0], results[1], case.tol)
