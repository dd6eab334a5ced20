"""Autograd corner cases (zeros, 0-d and empty tensors, results written in place, node names of
composite ops): each test pins the value, gradient, node name or error PyTorch gives; the
comparisons with torch itself skip without it."""
import math
import re

import numpy as np
import pytest

import numgrad

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def leaf(values):
    return numgrad.tensor(values, dtype=numgrad.float64, requires_grad=True)


def grad(out, x, **kw):
    return numgrad.autograd.grad(out, x, **kw)[0]


def name(t):
    return type(t.grad_fn).__name__


# ------------------------------------------------------------------------ second derivatives

@pytest.mark.parametrize("dim", [None, 0])
def test_prod_second_derivative_through_a_zero(dim):
    x = leaf([0.0, 2.0, 3.0])
    p = x.prod() if dim is None else x.prod(dim)
    g = grad(p, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [6.0, 0.0, 0.0])
    # d/dx0 of g[1] = x0 * x2 is x2, although x0 == 0 makes g[1] itself 0.
    np.testing.assert_allclose(grad(g[1], x).numpy(), [3.0, 0.0, 0.0])


@pytest.mark.parametrize("dim", [None, 0])
def test_prod_second_derivative_between_two_zeros(dim):
    x = leaf([0.0, 0.0, 3.0, 2.0])
    p = x.prod() if dim is None else x.prod(dim)
    g = grad(p, x, create_graph=True)
    np.testing.assert_allclose(grad(g[0], x, retain_graph=True).numpy(), [0.0, 6.0, 0.0, 0.0])
    np.testing.assert_allclose(grad(g[2], x).numpy(), [0.0, 0.0, 0.0, 0.0])


def test_elu_second_derivative_vanishes_at_zero():
    x = leaf([0.0, -0.5, 0.5])
    g = grad(numgrad.nn.functional.elu(x, 2.0).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2.0, 2 * math.exp(-0.5), 1.0])
    np.testing.assert_allclose(grad(g.sum(), x).numpy(), [0.0, 2 * math.exp(-0.5), 0.0])


def test_erfinv_and_sinc_second_derivatives():
    x = leaf([-0.21, 0.09, 0.75])
    g = grad(x.erfinv().sum(), x, create_graph=True)
    y = numgrad.special.erfinv(x.detach())
    np.testing.assert_allclose(g.detach().numpy(), (math.sqrt(math.pi) / 2 * (y * y).exp()).numpy())
    np.testing.assert_allclose(grad(g.sum(), x).numpy(), (2 * y * g.detach() * g.detach()).numpy())
    s = leaf([0.0, 0.3])
    gs = grad(s.sinc().sum(), s, create_graph=True)
    np.testing.assert_allclose(gs.detach().numpy(), [0.0, -0.9020281301], rtol=1e-9)
    # NaN at 0 as in PyTorch: the masked branch's derivative there is 0 / 0.
    np.testing.assert_allclose(grad(gs[1], s).numpy(), [math.nan, -2.45848529], rtol=1e-7)


# ------------------------------------------------------------------------ first derivatives

def test_atan2_gradient_at_origin_is_zero():
    y, x = leaf([0.0, 1.0]), leaf([0.0, 1.0])
    numgrad.atan2(y, x).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.5])
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -0.5])


@pytest.mark.parametrize("fn", [numgrad.var_mean, numgrad.std_mean])
@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
def test_mean_of_var_mean_over_one_element_has_a_finite_gradient(fn):
    x = leaf([2.0])
    _, m = fn(x, 0)
    (m * 3).backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0])


def test_std_mean_both_results_and_double_backward():
    x = leaf([1.0, 2.0, 4.0])
    s, m = numgrad.std_mean(x)
    g = grad(s * 2 + m * 3, x, create_graph=True)
    c = x.detach() - x.detach().mean()
    np.testing.assert_allclose(g.detach().numpy(), (c / s.detach() + 1).numpy())
    assert grad(g.pow(2).sum(), x).shape == (3,)


def test_copy_gives_zeros_to_what_it_overwrites():
    x, src = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (x * 1).copy_(src)
    assert name(y) == "CopyBackwards"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(src.grad.numpy(), [1.0, 1.0])


def test_logcumsumexp_of_a_0d_tensor_backward():
    x = leaf(0.5)
    y = numgrad.logcumsumexp(x, 0)
    g = grad(y * y, x, create_graph=True)
    assert g.item() == pytest.approx(1.0)
    assert grad(g, x).item() == pytest.approx(2.0)


def test_flip_of_a_0d_tensor_and_roll_error():
    x = leaf(2.0)
    x.flip(0).backward()
    assert x.grad.item() == 1.0
    assert numgrad.tensor(2.0).flip(-1).item() == 2.0
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        numgrad.tensor(2.0).roll(1, 0)


# ------------------------------------------------------------------------ saved values

@pytest.mark.parametrize("fn", [lambda x: x.frac(), lambda x: (x * 0.5).erfinv(), lambda x: x.sinc(),
                                lambda x: numgrad.var_mean(x, 0)[0], lambda x: numgrad.lerp(x, x * 2, 0.3),
                                lambda x: numgrad.fmod(x, 0.5), lambda x: numgrad.remainder(x, x.detach() + 2)])
def test_result_written_in_place_is_not_needed_by_backward(fn):
    # PyTorch's rules for these read the input only, so writing the result in place is allowed.
    x = leaf([[-0.7, 0.3], [0.4, 1.2]])
    y = fn(x * 1)
    y.mul_(2)
    y.sum().backward()
    assert x.grad is not None


@pytest.mark.parametrize("fn", [numgrad.fmod, numgrad.remainder])
def test_fmod_by_zero_keeps_the_gradient_of_x(fn):
    x, y = leaf([1.0, 2.5]), leaf([0.0, 2.0])
    fn(x, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(y.grad.numpy(), [-math.inf, -1.0])


def test_lerp_with_a_number_weight_is_linear_in_end():
    # The gradient of a linear op does not depend on the inputs (nor require grad under create_graph).
    x, y = leaf([1.0, 2.0]), leaf([3.0, 5.0])
    gx, gy = numgrad.autograd.grad(numgrad.lerp(x, y, 0.3).sum(), (x, y), create_graph=True)
    assert not gx.requires_grad and not gy.requires_grad
    np.testing.assert_allclose(gy.numpy(), [0.3, 0.3])


# ------------------------------------------------------------------------ norms

@pytest.mark.parametrize("ord", [0, 1, 2, 3, 0.5, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_vector_norm_is_one_node(ord, dim):
    x = leaf([[1.0, -2.0, 2.0], [0.5, 0.0, -1.5]])
    r = numgrad.linalg.vector_norm(x, ord, dim=dim)
    assert name(r) == "LinalgVectorNormBackward0"
    # Straight to the leaf: no flattening view or abs in between.
    assert type(r.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"


def test_inf_norm_ties_share_the_gradient():
    x = leaf([[1.0, -2.0, 2.0], [0.5, 0.0, -1.5]])
    numgrad.linalg.vector_norm(x, math.inf, dim=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, -0.5, 0.5], [0.0, 0.0, -1.0]])
    y = leaf([[1.0, -2.0], [0.5, 0.0]])
    numgrad.linalg.vector_norm(y, 1).backward()
    np.testing.assert_allclose(y.grad.numpy(), [[1.0, -1.0], [1.0, 0.0]])


def test_inf_norm_over_a_nonempty_dim_of_an_empty_tensor():
    x = numgrad.zeros(2, 0)
    assert numgrad.linalg.vector_norm(x, math.inf, dim=0).shape == (0,)
    with pytest.raises(RuntimeError, match="on the dimension 1because this dimension is empty"):
        numgrad.linalg.vector_norm(x, math.inf, dim=1)
    with pytest.raises(RuntimeError, match="inf norm on an empty tensor"):
        numgrad.linalg.vector_norm(x, math.inf)


def test_frobenius_norm_over_three_dims_raises():
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"):
        numgrad.ones(2, 2, 2).norm(dim=(0, 1, 2))


# ------------------------------------------------------------------------ views and layouts

def test_expand_to_its_own_shape_is_a_new_view():
    x = leaf([[1.0, 2.0]])
    y = x.expand(1, 2)
    assert y is not x and not y.is_leaf and name(y) == "ExpandBackward0"
    assert name(x.expand_as(x)) == "ExpandBackward0"


def test_node_names_of_composites_follow_torch():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    o = numgrad.outer(x[0], x[1])
    assert [type(n).__name__ for n, _ in o.grad_fn.next_functions] == ["ViewBackward0", "SelectBackward0"]
    t = numgrad.take_along_dim(x, numgrad.tensor([[0], [2]]), 1)
    assert type(t.grad_fn.next_functions[0][0]).__name__ == "ExpandBackward0"


def test_sub_with_alpha_is_one_node():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 5.0])
    out = numgrad.sub(x, y, alpha=0.5)
    assert name(out) == "SubBackward0"
    nexts = [type(n).__name__ for n, _ in out.grad_fn.next_functions if n is not None]
    assert nexts == ["AccumulateGrad", "AccumulateGrad"]
    out.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [-0.5, -0.5])
    np.testing.assert_array_equal(numgrad.tensor([5, 7]).sub(numgrad.tensor([1, 2]), alpha=2).numpy(), [3, 3])


def test_tensordot_over_an_empty_contracted_dim():
    a, b = numgrad.zeros(5, 0, requires_grad=True), numgrad.zeros(0, 3, requires_grad=True)
    r = numgrad.tensordot(a, b, dims=([-1], [0]))
    assert r.shape == (5, 3) and not r.detach().numpy().any()
    r.sum().backward()
    assert a.grad.shape == (5, 0) and b.grad.shape == (0, 3)


def test_empty_split_piece_past_the_storage_end_converts_to_numpy():
    x = numgrad.arange(3.0)[::2]
    _, empty = x.split([2, 0], 0)
    assert empty.numpy().shape == (0,)


def test_sorting_results_are_contiguous():
    x = numgrad.arange(24.0).reshape(2, 3, 4)
    assert x.sort(1).values.stride() == (12, 4, 1)
    assert x.sort(1).indices.is_contiguous()
    assert x.topk(2, 1).values.stride() == (8, 4, 1)
    assert x.kthvalue(2, 1).values.stride() == (4, 1)
    assert x.sort(0).values.view(-1).shape == (24,)


@pytest.mark.parametrize("method, message", [
    ("permute", 'permute() missing 1 required positional arguments: "dims"'),
    ("expand", 'expand() missing 1 required positional arguments: "size"'),
    ("reshape", 'reshape() missing 1 required positional arguments: "shape"'),
    ("repeat", 'repeat() missing 1 required positional arguments: "repeats"'),
    ("view", "view() received an invalid combination of arguments"),
])
def test_shape_methods_need_their_argument(method, message):
    x = numgrad.tensor(1.0)
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        getattr(x, method)()
    assert getattr(x, method)(()).shape == ()


# ------------------------------------------------------------------------ against torch

PROGRAMS = [
    "x.prod(0)",
    "lib.atan2(x, x.flip(0))",
    "lib.linalg.vector_norm(x, float('inf'), dim=0)",
    "x.norm(1, dim=1)",
    "lib.var_mean(x[:1], 0)[1] * 2",
    "lib.nn.functional.elu(x)",
    "(x * 1).copy_(x.flip(1) * 2)",
    "x.sort(0).values.view(-1)",
    "x.expand(2, 3) * 2",
    "lib.outer(x[0], x[1, ::2].flip(0))",
    "lib.lerp(x, x.flip(1), 0.3)",
]


@needs_torch
@pytest.mark.filterwarnings("ignore:var_mean.*degrees of freedom")
@pytest.mark.parametrize("expr", PROGRAMS)
def test_value_gradients_and_node_match_torch(expr):
    data = np.array([[0.0, -1.5, 2.0], [0.5, 0.0, 2.0]])
    got = []
    for lib in (torch, numgrad):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        out = eval(expr, {"lib": lib, "x": x})
        w = lib.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)), dtype=lib.float64)
        g = lib.autograd.grad((out * w).sum(), x, create_graph=True)[0]
        gg = lib.autograd.grad((g * g).sum(), x, allow_unused=True)[0] if g.requires_grad else None
        got.append((out.detach().numpy(), g.detach().numpy(), type(out.grad_fn).__name__,
                    None if gg is None or not gg.any() else gg.detach().numpy()))
    (v0, g0, n0, h0), (v1, g1, n1, h1) = got
    np.testing.assert_allclose(v1, v0, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g1, g0, rtol=1e-12, atol=1e-14)
    assert n1 == n0
    if h0 is None or h1 is None:
        assert h0 is None and h1 is None
    else:
        np.testing.assert_allclose(h1, h0, rtol=1e-10, atol=1e-12)


def test_relu_second_derivative_is_zero_not_missing():
    x = leaf([-1.0, 2.0, 3.0])
    g = grad(x.relu().sum(), x, create_graph=True)
    assert grad(g.sum(), x).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["scatter", "scatter_add"])
def test_scatter_gradient_of_a_src_larger_than_its_index(name):
    # src elements past the index are never read: their gradient is zero, and src's gradient has
    # src's shape (PyTorch's engine refuses its own index-shaped gradient here).
    x = numgrad.zeros(3, 4, dtype=numgrad.float64, requires_grad=True)
    src = numgrad.arange(24.0, dtype=numgrad.float64).reshape(4, 6).requires_grad_()
    index = numgrad.tensor([[0, 1, 2], [1, 2, 0]])
    weights = numgrad.arange(12.0, dtype=numgrad.float64).reshape(3, 4)
    (getattr(x, name)(1, index, src) * weights).sum().backward()
    expected = numgrad.zeros(4, 6, dtype=numgrad.float64)
    expected[:2, :3] = weights[:2].gather(1, index)
    assert numgrad.equal(src.grad, expected)
    assert numgrad.autograd.gradcheck(lambda s: getattr(x.detach(), name)(1, index, s), (src.detach().requires_grad_(),))


@pytest.mark.parametrize("shape, fits", [((2, 3), False), ((6,), False), ((1, 6), False), ((3, 1, 6), False),
                                         ((3, 4, 6), True), ((4, 1), False), ((2, 1, 4, 6), True)])
def test_a_gradient_of_the_wrong_shape_is_refused_as_pytorch_does(shape, fits):
    class Scale(numgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return numgrad.ones(shape)

    x = numgrad.ones(4, 6, requires_grad=True)
    if fits:  # the input broadcasts to it: summed down to the input's shape
        Scale.apply(x).sum().backward()
        assert x.grad.shape == (4, 6) and x.grad.sum().item() == math.prod(shape)
        return
    with pytest.raises(RuntimeError, match=re.escape(
            f"Function ScaleBackward returned an invalid gradient at index 0 - got {list(shape)} but expected "
            "shape compatible with [4, 6]")):
        Scale.apply(x).sum().backward()


@pytest.mark.parametrize("dtype", ["float16", "float64"])
@pytest.mark.parametrize("size, stride, offset", [((3, 3), (1, 1), 2), ((2, 3), (2, 1), 0), ((4,), (0,), 1),
                                                  ((2, 2), (4, 1), 1)])
def test_as_strided_gradient_sums_over_elements_sharing_memory(size, stride, offset, dtype):
    dtype = getattr(numgrad, dtype)
    x = numgrad.arange(12.0, dtype=dtype).reshape(3, 4).requires_grad_()
    w = numgrad.arange(1.0, 1.0 + math.prod(size), dtype=dtype).reshape(size)
    (x.as_strided(size, stride, offset) * w).sum().backward()
    expected = np.zeros(12)
    for pos in np.ndindex(*size):
        expected[offset + sum(p * s for p, s in zip(pos, stride))] += w.numpy()[pos]
    assert np.array_equal(x.grad.numpy().reshape(-1), expected)
    if dtype is numgrad.float64:
        assert numgrad.autograd.gradcheck(lambda t: t.as_strided(size, stride, offset), (x.detach().requires_grad_(),))
