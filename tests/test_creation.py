"""Factories, NumPy interop and random numbers."""
import numpy as np
import pytest

import numgrad

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _same(n, t):
    """numgrad tensor ``n`` equals torch tensor ``t`` in shape, dtype and values."""
    assert tuple(n.shape) == tuple(t.shape)
    assert n.dtype.name == str(t.dtype).replace("torch.", "")
    if n.dtype.is_floating_point:
        # PyTorch computes float32 sequences in float32; numgrad rounds once from float64.
        np.testing.assert_allclose(n.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(n.numpy(), t.numpy())


FACTORIES = [
    "tensor([1, 2.5])", "tensor([[1, 2], [3, 4]])", "tensor([True, False])", "tensor([True, 1])",
    "tensor(3)", "tensor(3.5)", "tensor([])", "tensor([[]])", "tensor([[1, 2]], dtype=T.float64)",
    "tensor(np.array([1, 2], dtype=np.int32))", "tensor([np.float64(1.5)])", "tensor([np.int32(1), 2.5])",
    "tensor([T.tensor(1.5), T.tensor(2)])",
    "Tensor(2, 3).shape", "Tensor([1, 2])", "Tensor(T.Size([4])).shape", "Tensor().shape",
    "zeros(2, 3)", "zeros((2, 3))", "zeros([2, 3], dtype=T.int8)", "zeros(T.Size([2]))", "ones(())",
    "ones(2, 0, 3)", "empty(2, 3).shape", "full((2,), 1)", "full((2,), True)", "full((2, 2), 1.5)",
    "full([2], 7, dtype=T.float64)", "eye(3)", "eye(2, 3)", "eye(2, dtype=T.int32)", "eye(0)",
    "arange(5)", "arange(5.)", "arange(1, 2.5, 0.5)", "arange(-3, 3, 0.7)", "arange(10, 0, -3)",
    "arange(0, 1, 0.1)", "arange(0.5, 5.5, 1.5, dtype=T.int64)", "arange(0, 5, 1.5, dtype=T.float16)",
    "arange(10**10, 10**10 + 3)", "linspace(0, 1, 5)", "linspace(0, 1, 1)", "linspace(0, 1, 0)",
    "linspace(3, -2, 7)", "linspace(0, 10, 5, dtype=T.int64)", "linspace(-1, 1, 6, dtype=T.int64)",
    "logspace(0, 2, 3)", "logspace(0, 2, 3, base=2)", "logspace(0, 2, 3, dtype=T.float64)",
    "zeros_like(T.ones(2, dtype=T.int32))", "ones_like(T.ones(2), dtype=T.float64)",
    "full_like(T.ones(2), 7)", "full_like(T.ones(2, dtype=T.int64), 2.7)", "empty_like(T.ones(2, 3)).shape",
    "ones(2).new_ones(3)", "ones(2).new_zeros((2, 2))", "ones(2, dtype=T.int32).new_full((2,), 3.5)",
    "ones(2, dtype=T.float64).new_tensor([1, 2])", "ones(2).new_empty(3).shape",
    "ones(2, 3).new_ones(2, 3, dtype=T.bool)", "scalar_tensor(3)", "as_tensor([1, 2])",
    "as_tensor(np.arange(3.))", "from_numpy(np.arange(3))", "from_numpy(np.arange(6).reshape(2, 3)[:, ::2])",
]


@needs_torch
@pytest.mark.parametrize("expr", FACTORIES)
def test_factories_match_pytorch(expr):
    got = eval("T." + expr, {"T": numgrad, "np": np})
    want = eval("T." + expr, {"T": torch, "np": np})
    if isinstance(want, torch.Tensor):
        _same(got, want)
    else:
        assert tuple(got) == tuple(want)


ERRORS = [
    ("tensor([[1, 2], [3, 4, 5]])", ValueError, "expected sequence of length 2 at dim 1 \\(got 3\\)"),
    ("tensor([[1], 2])", TypeError, "not a sequence"),
    ("tensor([None])", RuntimeError, "Could not infer dtype of NoneType"),
    ("tensor('abc')", TypeError, "invalid data type 'str'"),
    ("zeros(-1, 2)", RuntimeError, "negative dimension -1"),
    ("zeros(2.5)", TypeError, "must be tuple of ints"),
    ("empty(2, -3)", RuntimeError, "negative dimension -3"),
    ("eye(-1)", RuntimeError, "n must be greater or equal to 0, got -1"),
    ("arange(0, 10, 0)", RuntimeError, "step must be nonzero"),
    ("arange(0, 10, -1)", RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    ("arange(3, dtype=T.bool)", NotImplementedError, "arange_cpu"),
    ("linspace(0, 1, -1)", RuntimeError, "number of steps must be non-negative"),
    ("tensor([1, 2], requires_grad=True)", RuntimeError, "Only Tensors of floating point"),
    ("from_numpy([1, 2])", TypeError, "expected np.ndarray"),
    ("from_numpy(np.array([1 + 1j]))", TypeError, "can't convert np.ndarray of type complex128"),
    ("rand(2, dtype=T.int64)", NotImplementedError, "check_uniform_bounds"),
    ("randn(2, dtype=T.int64)", NotImplementedError, "normal_kernel_cpu"),
    ("randint(5, 3, (2,))", RuntimeError, "expects 'from' to be less than 'to'"),
    ("randperm(-1)", RuntimeError, "negative dimension -1"),
    ("zeros(2).uniform_(3, 1)", RuntimeError, "expects to return a \\[from, to\\) range"),
    ("zeros(2).normal_(0, -1)", RuntimeError, "normal expects std >= 0.0"),
    ("zeros(2).bernoulli_(1.5)", RuntimeError, "expects p to be in \\[0, 1\\]"),
    ("bernoulli(T.tensor([0.5, 2.0]))", RuntimeError, "p_in >= 0 && p_in <= 1"),
    ("zeros(3, dtype=T.uint8).random_(0, 300)", RuntimeError, "to - 1 is out of bounds"),
    ("ones(2, requires_grad=True).uniform_()", RuntimeError, "leaf Variable that requires grad"),
]


@pytest.mark.parametrize("expr, exc, match", ERRORS)
def test_factory_errors(expr, exc, match):
    with pytest.raises(exc, match=match):
        eval("T." + expr, {"T": numgrad, "np": np})


def test_tensor_copies_and_from_numpy_shares():
    a = np.arange(6.0).reshape(2, 3)
    t = numgrad.tensor(a)
    s = numgrad.from_numpy(a)
    a[0, 0] = 100
    assert t[0, 0].item() == 0 and s[0, 0].item() == 100
    s[1, 2] = -1
    assert a[1, 2] == -1
    n = s.numpy()
    n[0, 1] = 7
    assert s[0, 1].item() == 7 and np.shares_memory(n, a)
    assert numgrad.as_tensor(a).data_ptr() == a.__array_interface__["data"][0]
    assert numgrad.as_tensor(s) is s
    strided = numgrad.from_numpy(a[:, ::2])
    assert strided.stride() == (3, 2)
    strided[0, 1] = 55
    assert a[0, 2] == 55


def test_tensor_of_tensor_is_detached_copy():
    x = numgrad.ones(2, requires_grad=True)
    y = numgrad.tensor(x)
    assert not y.requires_grad and y.data_ptr() != x.data_ptr()
    assert numgrad.tensor(x, dtype=numgrad.int32).dtype is numgrad.int32


def test_out_and_requires_grad_arguments():
    out = numgrad.empty(0)
    r = numgrad.zeros(2, 3, out=out)
    assert r is out and out.shape == (2, 3) and out.sum().item() == 0
    assert numgrad.ones(2, requires_grad=True).requires_grad
    assert numgrad.arange(3.0, requires_grad=True).requires_grad
    assert numgrad.eye(2, requires_grad=True).requires_grad


def test_manual_seed_reproduces_every_stream():
    def draw():
        return [numgrad.rand(5).tolist(), numgrad.randn(3, 2).tolist(), numgrad.randint(0, 9, (6,)).tolist(),
                numgrad.randperm(7).tolist(), numgrad.normal(2.0, 3.0, (3,)).tolist(),
                numgrad.bernoulli(numgrad.full((8,), 0.5)).tolist(),
                numgrad.empty(4).uniform_(-2, 2).tolist(), numgrad.empty(5).normal_(1, 2).tolist(),
                numgrad.empty(5, dtype=numgrad.int32).random_(0, 100).tolist()]
    numgrad.manual_seed(1234)
    first = draw()
    numgrad.manual_seed(1234)
    assert draw() == first
    numgrad.manual_seed(1235)
    assert draw() != first


def test_generators_are_independent_and_restorable():
    g = numgrad.Generator().manual_seed(7)
    a = numgrad.rand(4, generator=g)
    state = g.get_state()
    b = numgrad.rand(4, generator=g)
    g.set_state(state)
    assert numgrad.rand(4, generator=g).tolist() == b.tolist()
    assert numgrad.rand(4, generator=numgrad.Generator().manual_seed(7)).tolist() == a.tolist()
    assert g.initial_seed() == 7
    s = numgrad.get_rng_state()
    x = numgrad.rand(3)
    numgrad.set_rng_state(s)
    assert numgrad.rand(3).tolist() == x.tolist()


def test_random_fills_follow_memory_order_on_any_layout():
    # As in PyTorch: draws go to the elements in the order they lie in memory.
    numgrad.manual_seed(0)
    dense = numgrad.rand(4, 3)
    numgrad.manual_seed(0)
    t = numgrad.empty(4, 3).t()
    t.uniform_()
    assert t.tolist() == dense.t().tolist()


def test_distributions_look_right():
    numgrad.manual_seed(0)
    u = numgrad.rand(20000).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    z = numgrad.randn(20000, dtype=numgrad.float64).numpy()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05
    k = numgrad.randint(-3, 4, (5000,)).numpy()
    assert k.min() == -3 and k.max() == 3
    p = numgrad.randperm(50).numpy()
    assert sorted(p.tolist()) == list(range(50))
    b = numgrad.bernoulli(numgrad.full((5000,), 0.25)).numpy()
    assert abs(b.mean() - 0.25) < 0.03
    h = numgrad.empty(1000, dtype=numgrad.float16).uniform_().numpy()
    assert h.min() >= 0 and h.max() < 1
    m = numgrad.normal(numgrad.tensor([0.0, 100.0]), numgrad.tensor([1.0, 0.0]))
    assert m[1].item() == 100.0


def test_random_dtypes_and_likes():
    x = numgrad.zeros(2, 3, dtype=numgrad.float64)
    assert numgrad.rand_like(x).dtype is numgrad.float64
    assert numgrad.randn_like(x).shape == (2, 3)
    r = numgrad.randint_like(x, 5)
    assert r.dtype is numgrad.float64 and r.max().item() < 5
    assert numgrad.randint(3, (2,)).dtype is numgrad.int64
    assert numgrad.randperm(3, dtype=numgrad.int32).dtype is numgrad.int32
    assert numgrad.zeros(4, dtype=numgrad.bool).random_().dtype is numgrad.bool
    assert set(numgrad.zeros(50).random_(3).tolist()) <= {0.0, 1.0, 2.0}
