"""The cached fast paths of products and reductions, and gradients that become ``.grad`` uncopied:
same results as the general paths, and no ``.grad`` ever aliases memory someone else can reach."""
import numpy as np
import pytest

import numgrad as ng


def _shares(a, b):
    return np.shares_memory(a.detach().numpy(), b.detach().numpy() if hasattr(b, "detach") else b)


def test_grad_never_aliases_a_user_gradient():
    w = ng.ones(3, 4, requires_grad=True)
    v = ng.full((3, 4), 2.0)
    w.backward(v)
    assert w.grad is not v and not _shares(w.grad, v)
    w.grad = None
    w.reshape(12).backward(v.reshape(12))
    assert not _shares(w.grad, v)
    a = np.full((3, 4), 3.0, np.float32)
    w.grad = None
    w.backward(ng.from_numpy(a))
    a[...] = 0
    assert w.grad.tolist() == [[3.0] * 4] * 3


def test_leaves_sharing_one_cotangent_get_separate_grads():
    a = ng.ones(5, requires_grad=True)
    b = ng.ones(5, requires_grad=True)
    (a + b).sum().backward()
    assert not _shares(a.grad, b.grad)
    a.grad.add_(1)
    assert b.grad.tolist() == [1.0] * 5


def test_hook_result_is_copied():
    w = ng.ones(4, requires_grad=True)
    kept = ng.zeros(4)
    w.register_hook(lambda g: kept)
    (w * 3).sum().backward()
    assert not _shares(w.grad, kept)


def test_owned_grads_accumulate():
    rng = np.random.default_rng(0)
    x = ng.tensor(rng.standard_normal((6, 5)).astype(np.float32))
    w = ng.tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    b = ng.zeros(3, requires_grad=True)
    for _ in range(2):
        ((x @ w + b) ** 2).mean().backward()
    out = x.numpy() @ w.detach().numpy() + b.detach().numpy()
    g = 2 * out / out.size
    np.testing.assert_allclose(w.grad.numpy(), 2 * x.numpy().T @ g, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), 2 * g.sum(0), rtol=1e-5)
    assert w.grad.is_contiguous() and b.grad.is_contiguous()


@pytest.mark.parametrize("layout", ["plain", "transposed", "strided"])
def test_product_layouts(layout):
    rng = np.random.default_rng(1)
    big = ng.tensor(rng.standard_normal((12, 8)))
    if layout == "plain":
        x, y = big[:4, :6].contiguous(), big[:6, :5].contiguous()
    elif layout == "transposed":
        x, y = big[:6, :4].contiguous().mT, big[:5, :6].contiguous().mT
    else:
        x, y = big[:4, 1:7], big[::2, :5]
    for _ in range(2):  # the second call runs the cached plan
        np.testing.assert_allclose((x @ y).numpy(), x.numpy() @ y.numpy(), rtol=1e-12)


def test_reduction_plans_match_and_still_raise():
    x = ng.arange(24.0).reshape(2, 3, 4)
    for _ in range(2):
        assert ng.sum(x, [0, 2]).tolist() == x.numpy().sum((0, 2)).tolist()
        assert ng.sum(x.mT, 1, keepdim=True).shape == (2, 1, 3)
        assert ng.sum(x, dtype=ng.float16).dtype is ng.float16
        assert ng.amax(x, (1,)).tolist() == x.numpy().max(1).tolist()
        with pytest.raises(IndexError):
            ng.amax(ng.zeros(0, 3), 0)


def test_mean_plans_match_the_general_path_and_still_raise():
    from numgrad.ops.statistics import _mean
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    for x in (ng.tensor(a), ng.tensor(a).mT):
        for dim, keepdim, dtype in ((None, False, None), (0, True, None), ((0, 1), False, None),
                                    (-1, False, ng.float64), ((), False, None)):
            for _ in range(2):  # the second call runs the cached plan
                r = x.mean(dim, keepdim, dtype=dtype)
                g = _mean(x, dim, keepdim, dtype, None)
                assert r.dtype is g.dtype and r.shape == g.shape
                assert r.numpy().tobytes() == g.numpy().tobytes()
    x = ng.tensor(a)
    x.mean((1,))
    for bad, err in (((True,), TypeError), ((1.0,), TypeError), (2, IndexError)):
        for _ in range(2):
            with pytest.raises(err):
                x.mean(bad)
            with pytest.raises(err):
                x.sum(bad)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="could not infer output dtype"):
            ng.arange(3).mean()
    assert ng.zeros(0).mean().isnan().item()


def test_mean_saves_only_its_input_shape():
    # As PyTorch's MeanBackward: writing the input in place afterwards does not break backward.
    x = ng.ones(3, requires_grad=True)
    y = x * 1
    m = y.mean()
    y.add_(1)
    m.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 / 3] * 3, rtol=1e-6)


def test_mm_plan_still_checks_its_operands():
    a, b = ng.ones(2, 3), ng.ones(3, 4)
    for _ in range(2):
        assert (a @ b).shape == (2, 4)
    with pytest.raises(RuntimeError, match="same dtype"):
        a @ b.double()
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        a @ ng.ones(2, 4)
    stack = ng.ones(5, 3, 4)
    assert (a @ stack).shape == (5, 2, 4)  # plans a (2-D, 3-D) product
    with pytest.raises(RuntimeError, match="mat2 must be a matrix"):
        ng.mm(a, stack)
    w = ng.ones(3, 4, requires_grad=True)
    assert (a @ w).grad_fn.name() == "MmBackward0"


def test_view_caches_still_check():
    x = ng.ones(2, 3, requires_grad=True)
    for _ in range(2):
        assert x.T.shape == (3, 2) and x.T.grad_fn.name() == "PermuteBackward0"
        assert x.mT.grad_fn.name() == "TransposeBackward0"
        assert x.permute(1, 0).stride() == (1, 3)
        assert x[0].expand(4, 3).stride() == (0, 1)
        with pytest.raises(TypeError):
            x.permute(True, 0)
        with pytest.raises(RuntimeError, match="duplicate dims"):
            x.permute(1, 1)
        with pytest.raises(RuntimeError, match="must match the existing size"):
            x.expand(4, 3)
