"""The top-level functions and Tensor methods PyTorch programs call beyond the op families:
top-level forms of nn.functional, namespace utilities and constants, and the Tensor methods,
compared with PyTorch."""
import warnings

import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck
from numgrad.ops import (aliases, buffers, conjugation, differences, histograms, matrix_extras, tensor_queries,
                         unravel)

torch = pytest.importorskip("torch")
from torch_pairs import close as _close, pair, rand as _rand  # noqa: E402

DTYPES = ["float32", "float64"]


def _pair(array, requires_grad=False):
    return pair(torch, array, requires_grad)


# ------------------------------------------------------------------ top-level nn.functional forms
def _toplevel_cases(dtype):
    r = np.random.default_rng(1)

    def a(*shape, low=-2.0, high=2.0):
        return r.uniform(low, high, shape).astype(dtype)
    x4 = a(2, 3, 5, 5)
    target = np.sign(a(4)).astype(dtype)
    return [
        ("conv1d", (a(2, 3, 8), a(4, 3, 3), a(4)), {"stride": 2, "padding": 1}),
        ("conv2d", (x4, a(2, 3, 3, 3)), {"padding": 1}),
        ("conv3d", (a(1, 2, 4, 4, 4), a(3, 2, 2, 2, 2)), {}),
        ("conv_transpose1d", (a(2, 3, 6), a(3, 2, 3)), {"stride": 2}),
        ("conv_transpose2d", (x4, a(3, 2, 3, 3)), {}),
        ("conv_transpose3d", (a(1, 2, 3, 3, 3), a(2, 2, 2, 2, 2)), {}),
        ("layer_norm", (x4, [5, 5], a(5, 5), a(5, 5), 1e-5, True), {}),
        ("group_norm", (x4, 3, a(3), a(3)), {}),
        ("batch_norm", (x4, a(3), a(3), a(3), a(3, low=0.5, high=2), True, 0.1, 1e-5, True), {}),
        ("batch_norm", (x4, None, None, a(3), a(3, low=0.5, high=2), False, 0.1, 1e-5, True), {}),
        ("instance_norm", (x4, a(3), a(3), None, None, True, 0.1, 1e-5, True), {}),
        ("rms_norm", (x4, [5]), {"eps": 1e-6}),
        ("pixel_shuffle", (a(1, 8, 2, 3), 2), {}),
        ("pixel_unshuffle", (a(1, 2, 4, 6), 2), {}),
        ("channel_shuffle", (a(1, 6, 2, 2), 3), {}),
        ("native_channel_shuffle", (a(1, 6, 2, 2), 2), {}),
        ("cosine_similarity", (a(4, 5), a(4, 5)), {}),
        ("pairwise_distance", (a(4, 5), a(4, 5)), {"p": 3.0}),
        ("pdist", (a(4, 5),), {}),
        ("cosine_embedding_loss", (a(4, 5), a(4, 5), target, 0.1, 2), {}),
        ("margin_ranking_loss", (a(4), a(4), target), {"margin": 0.2, "reduction": 0}),
        ("hinge_embedding_loss", (a(4), target), {}),
        ("triplet_margin_loss", (a(4, 5), a(4, 5), a(4, 5)), {"swap": True}),
        ("kl_div", (a(4, 5), a(4, 5, low=0.1, high=1.0), 2), {}),
        ("kl_div", (a(4, 5), a(4, 5)), {"log_target": True}),
        ("poisson_nll_loss", (a(4, 5), a(4, 5, low=0, high=3), True, False, 1e-8, 1), {}),
        ("poisson_nll_loss", (a(4, 5, low=0.1, high=2), a(4, 5, low=0, high=3), False, True, 1e-8, 0), {}),
        ("binary_cross_entropy_with_logits", (a(4, 5), a(4, 5, low=0, high=1), a(5), a(5, low=0.5, high=2)),
         {"reduction": 2}),
        ("bilinear", (a(3, 4), a(3, 2), a(5, 4, 2), a(5)), {}),
        ("max_pool1d", (a(2, 3, 9), 3), {"stride": 2, "padding": 1}),
        ("max_pool2d", (x4, 2), {}),
        ("max_pool3d", (a(1, 2, 4, 4, 4), 2), {"ceil_mode": True, "stride": 3}),
        ("max_pool1d_with_indices", (a(2, 3, 9), 3), {}),
        ("avg_pool1d", (a(2, 3, 9), 3), {"stride": 2}),
        ("adaptive_avg_pool1d", (a(2, 3, 9), 4), {}),
        ("adaptive_max_pool1d", (a(2, 3, 9), 4), {}),
        ("constant_pad_nd", (a(2, 3), [1, 2, -1, 1]), {"value": 1.5}),
        ("affine_grid_generator", (a(2, 2, 3), [2, 1, 3, 4], False), {}),
        ("grid_sampler", (a(1, 2, 4, 4), a(1, 3, 3, 2, low=-1, high=1), 0, 0, False), {}),
        ("grid_sampler", (a(1, 2, 4, 4), a(1, 3, 3, 2, low=-1.2, high=1.2), 1, 1, True), {}),
        ("dropout", (a(3, 4), 0.5, False), {}),
        ("feature_dropout", (a(3, 4), 0.5, False), {}),
    ]


@pytest.mark.parametrize("dtype", DTYPES)
def test_toplevel_functional_forms_match_torch(dtype):
    for name, args, kwargs in _toplevel_cases(dtype):
        ours = [numgrad.tensor(v) if isinstance(v, np.ndarray) else v for v in args]
        theirs = [torch.tensor(v) if isinstance(v, np.ndarray) else v for v in args]
        tol = (1e-4, 1e-5) if dtype == "float32" else (1e-7, 1e-9)
        _close(getattr(numgrad, name)(*ours, **kwargs), getattr(torch, name)(*theirs, **kwargs), *tol)


def test_toplevel_gradients_match_torch():
    w, tw = _pair(_rand((6, 4)), True)
    idx = np.array([[1, 5, 5], [0, 2, 5]])
    out, tout = numgrad.embedding(w, numgrad.tensor(idx), 5), torch.embedding(tw, torch.tensor(idx), 5)
    _close(out, tout)
    out.sum().backward()
    tout.sum().backward()
    _close(w.grad, tw.grad)
    x, tx = _pair(_rand((2, 3, 4, 4)), True)
    weight, tweight = _pair(_rand((3,)), True)
    y = numgrad.layer_norm(x, [4, 4]) * 2 + numgrad.group_norm(x, 3, weight, None)
    ty = torch.layer_norm(tx, [4, 4]) * 2 + torch.group_norm(tx, 3, tweight, None)
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    _close(x.grad, tx.grad, 1e-6, 1e-8)
    _close(weight.grad, tweight.grad, 1e-6, 1e-8)
    assert gradcheck(lambda a, b: numgrad.cosine_embedding_loss(a, b, numgrad.tensor([1.0, -1.0]), 0.0, 1),
                     (numgrad.tensor(_rand((2, 3)), requires_grad=True),
                      numgrad.tensor(_rand((2, 3), seed=1), requires_grad=True)))


def test_embedding_bag_and_ctc_loss_match_torch():
    idx, offsets = np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 2, 5])
    for mode, dtype in ((0, "float32"), (0, "float64"), (1, "float64"), (2, "float32")):
        w, tw = _pair(_rand((6, 3), dtype), True)
        ours = numgrad.embedding_bag(w, numgrad.tensor(idx), numgrad.tensor(offsets), False, mode)
        theirs = torch.embedding_bag(tw, torch.tensor(idx), torch.tensor(offsets), False, mode)
        _close(ours[0], theirs[0])
        for aux, taux in zip(ours[1:], theirs[1:]):
            np.testing.assert_array_equal(aux.numpy(), taux.numpy())
    log_probs = torch.randn(6, 2, 4, dtype=torch.float64).log_softmax(2)
    targets, lengths, target_lengths = torch.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2]
    for reduction in (0, 1, 2):
        _close(numgrad.ctc_loss(numgrad.tensor(log_probs.numpy()), numgrad.tensor(targets.numpy()), lengths,
                                target_lengths, 0, reduction),
               torch.ctc_loss(log_probs, targets, lengths, target_lengths, 0, reduction))


def test_dropout_forms_follow_the_seed_as_torch():
    data = _rand((4, 6), "float32")
    for name in ("dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"):
        numgrad.manual_seed(3)
        torch.manual_seed(3)
        _close(getattr(numgrad, name)(numgrad.tensor(data), 0.4, True),
               getattr(torch, name)(torch.tensor(data), 0.4, True))
    numgrad.manual_seed(3)
    torch.manual_seed(3)
    x, tx = _pair(data)
    assert numgrad.dropout_(x, 0.3, True) is x
    torch.dropout_(tx, 0.3, True)
    _close(x, tx)
    with pytest.raises(ValueError):
        numgrad.dropout(x, 1.5, True)
    with pytest.raises(TypeError):
        numgrad.dropout(x, 0.5)


def test_toplevel_reduction_codes_are_checked():
    x = numgrad.tensor(_rand((3,)))
    with pytest.raises(ValueError):
        numgrad.hinge_embedding_loss(x, x.sign(), 1.0, 5)


# -------------------------------------------------------------------------------- utilities
def test_queries_match_torch():
    x, tx = _pair(_rand((2, 3), "float32"))
    assert tensor_queries.broadcast_shapes((2, 1), (3,), 1) == torch.broadcast_shapes((2, 1), (3,), 1)
    assert tensor_queries.broadcast_shapes() == torch.broadcast_shapes()
    with pytest.raises(RuntimeError):
        tensor_queries.broadcast_shapes((2,), (3,))
    assert tensor_queries.is_nonzero(numgrad.tensor([0.5])) is True
    assert tensor_queries.is_nonzero(numgrad.tensor(0)) is False
    for bad in (numgrad.tensor([]), numgrad.tensor([1, 2])):
        with pytest.raises(RuntimeError, match="ambiguous"):
            tensor_queries.is_nonzero(bad)
    for name in ("float32", "int64", "uint8", "bool", "int8"):
        assert tensor_queries.is_signed(numgrad.zeros(1, dtype=getattr(numgrad, name))) == \
            torch.is_signed(torch.zeros(1, dtype=getattr(torch, name)))
    for a, b in ((x, x), (x, x.t())):
        assert tensor_queries.is_same_size(a, b) == torch.is_same_size(tx, tx if b is x else tx.t())
    for fn in ("is_complex", "is_conj", "is_neg", "is_inference"):
        assert getattr(tensor_queries, fn)(x) is False and getattr(torch, fn)(tx) is False
    for src in ("float32", "int32", "bool", "uint8"):
        for dst in ("float64", "int16", "bool"):
            assert tensor_queries.can_cast(getattr(numgrad, src), getattr(numgrad, dst)) == \
                torch.can_cast(getattr(torch, src), getattr(torch, dst))
    assert tensor_queries.typename(x) == torch.typename(tx)
    assert tensor_queries.typename(3) == torch.typename(3) == "int"
    assert tensor_queries.get_device(x) == torch.get_device(tx) == -1
    tensor_queries.set_num_interop_threads(3)
    assert tensor_queries.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError):
        tensor_queries.set_num_interop_threads(0)
    assert tensor_queries.is_warn_always_enabled() is False
    tensor_queries.set_warn_always(True)
    assert tensor_queries.is_warn_always_enabled() is True
    tensor_queries.set_warn_always(False)


def test_real_identities_and_adjoint():
    x, tx = _pair(_rand((2, 3)), True)
    for name in ("conj", "resolve_conj", "resolve_neg", "conj_physical", "real", "positive"):
        assert getattr(conjugation, name)(x) is x
        assert getattr(torch, name)(tx) is tx
    assert conjugation.conj_physical_(x) is x
    with pytest.raises(RuntimeError, match="bool"):
        conjugation.positive(numgrad.tensor([True]))
    adj = conjugation.adjoint(x)
    _close(adj, torch.adjoint(tx))
    assert adj._storage is x._storage
    with pytest.raises(RuntimeError, match="matrices"):
        conjugation.adjoint(numgrad.zeros(3))


def test_aliases_match_torch():
    x, tx = _pair(_rand((2, 3)))
    _close(aliases.ravel(x.t()), torch.ravel(tx.t()))
    _close(aliases.rsub(x, 2.5, alpha=2), torch.rsub(tx, 2.5, alpha=2))
    _close(aliases.rsub(x, x * 3), torch.rsub(tx, tx * 3))
    _close(aliases.row_stack([x, x]), torch.row_stack([tx, tx]))
    _close(aliases.trapz(x), torch.trapz(tx))
    _close(aliases.trapz(x, dx=0.5, dim=0), torch.trapz(tx, dx=0.5, dim=0))
    with pytest.warns(UserWarning, match="range is deprecated"):
        ours = aliases.range(1, 4, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(ours, torch.range(1, 4, 0.5))
        _close(aliases.range(0, 1, 0.1, dtype=numgrad.float64), torch.range(0, 1, 0.1, dtype=torch.float64))
        _close(aliases.range(5, dtype=numgrad.int64), torch.range(0, 5, dtype=torch.int64))
        m = [_rand((2, 3)), _rand((3, 4)), _rand((4, 2))]
        _close(aliases.chain_matmul(*map(numgrad.tensor, m)), torch.chain_matmul(*map(torch.tensor, m)))
    _close(aliases.fill(x, 2.0), torch.fill(tx, 2.0))
    _close(aliases.fill(x, numgrad.tensor(3)), torch.fill(tx, torch.tensor(3)))
    with pytest.raises(RuntimeError):
        aliases.fill(x, numgrad.ones(2))
    y = x.clone()
    assert aliases.fill_(y, 1.5) is y and aliases.zero_(y) is y and float(y.abs().sum()) == 0
    aliases.index_put_(y, (numgrad.tensor([0, 1]), numgrad.tensor([2, 0])), numgrad.tensor(7.0, dtype=y.dtype))
    ty = torch.zeros(2, 3, dtype=torch.float64)
    torch.index_put_(ty, (torch.tensor([0, 1]), torch.tensor([2, 0])), torch.tensor(7.0, dtype=torch.float64))
    _close(y, ty)


def test_unravel_index_matches_torch():
    for indices, shape in (([0, 5, -1, 7], (2, 4)), (3, (2, 2)), ([[1, 2]], (3,)), ([], (2, 3))):
        _close(unravel.unravel_index(numgrad.tensor(indices, dtype=numgrad.int64), shape),
               torch.unravel_index(torch.tensor(indices, dtype=torch.int64), shape))
    with pytest.raises(TypeError):
        unravel.unravel_index(numgrad.tensor([1.0]), (2, 2))
    with pytest.raises(RuntimeError):
        unravel.unravel_index(numgrad.tensor([1]), (0, 2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_extras_match_torch(dtype):
    a = _rand((2, 3, 3), dtype, seed=4)
    tol = (1e-4, 1e-4) if dtype == "float32" else (1e-10, 1e-10)
    _close(matrix_extras.matrix_exp(numgrad.tensor(a)), torch.matrix_exp(torch.tensor(a)), *tol)
    _close(matrix_extras.matrix_exp(numgrad.zeros(0, 2, 2)), torch.matrix_exp(torch.zeros(0, 2, 2)))
    spd = torch.tensor(a) @ torch.tensor(a).mT + 3 * torch.eye(3, dtype=getattr(torch, dtype))
    low = torch.linalg.cholesky(spd)
    b = torch.tensor(_rand((2, 3, 2), dtype, seed=5))
    for upper in (False, True):
        factor = low.mT if upper else low
        _close(matrix_extras.cholesky_solve(numgrad.tensor(b.numpy()), numgrad.tensor(factor.numpy()), upper),
               torch.cholesky_solve(b, factor, upper), *tol)
        _close(matrix_extras.cholesky_inverse(numgrad.tensor(factor[0].numpy()), upper),
               torch.cholesky_inverse(factor[0], upper), *tol)
    for shape in ((4, 3), (3, 5), (2, 4, 4)):
        lu, pivots = torch.linalg.lu_factor(torch.tensor(_rand(shape, dtype, seed=6)))
        ours = matrix_extras.lu_unpack(numgrad.tensor(lu.numpy()), numgrad.tensor(pivots.numpy()))
        _close(tuple(ours), tuple(torch.lu_unpack(lu, pivots)))
        assert type(ours).__name__ == "lu_unpack"
    x = _rand((5,), dtype, low=2, high=4)
    for p in (1, 3):
        _close(matrix_extras.mvlgamma(numgrad.tensor(x), p), torch.mvlgamma(torch.tensor(x), p), *tol)
    with pytest.raises(RuntimeError):
        matrix_extras.mvlgamma(numgrad.tensor(x), 0)


def test_matrix_extras_gradients():
    a = numgrad.tensor(_rand((3, 3), seed=7) * 0.7, requires_grad=True)
    assert gradcheck(matrix_extras.matrix_exp, (a,))
    ta = torch.tensor(a.detach().numpy(), requires_grad=True)
    matrix_extras.matrix_exp(a).sum().backward()
    torch.matrix_exp(ta).sum().backward()
    _close(a.grad, ta.grad, 1e-8, 1e-10)
    low = numgrad.tensor(np.tril(_rand((3, 3), seed=8)) + 3 * np.eye(3), requires_grad=True)
    b = numgrad.tensor(_rand((3, 2), seed=9), requires_grad=True)
    assert gradcheck(matrix_extras.cholesky_solve, (b, low))
    assert gradcheck(matrix_extras.cholesky_inverse, (low,))
    assert gradcheck(lambda x: matrix_extras.mvlgamma(x, 2), (numgrad.tensor([2.5, 3.0], dtype=numgrad.float64,
                                                                                requires_grad=True),))


@pytest.mark.parametrize("dtype", DTYPES)
def test_histogram_matches_torch(dtype):
    data = _rand((200,), dtype, seed=10)
    weight = _rand((200,), dtype, seed=11, low=0, high=1)
    cases = [((data,), {"bins": 7}), ((data,), {"bins": 4, "range": (-1.0, 1.0), "density": True}),
             ((data,), {"bins": np.array([-2.0, -0.5, 0.0, 2.0], dtype=dtype), "weight": weight}),
             ((np.array([1.0, 1.0], dtype=dtype),), {"bins": 3}), ((np.zeros(0, dtype=dtype),), {"bins": 2}),
             ((data.reshape(10, 20),), {"bins": 5})]
    for args, kwargs in cases:
        ours = histograms.histogram(*map(numgrad.tensor, args), **{k: numgrad.tensor(v) if isinstance(
            v, np.ndarray) else v for k, v in kwargs.items()})
        theirs = torch.histogram(*map(torch.tensor, args), **{k: torch.tensor(v) if isinstance(
            v, np.ndarray) else v for k, v in kwargs.items()})
        _close(tuple(ours), tuple(theirs))
        assert type(ours).__name__ == "histogram" and ours.hist is ours[0]
    with pytest.raises(NotImplementedError):
        histograms.histogram(numgrad.tensor([1, 2]), 3)
    with pytest.raises(RuntimeError):
        histograms.histogram(numgrad.tensor([1.0, 2.0]), 3, range=(2.0, 1.0))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_torch(edge_order):
    data = _rand((4, 5), seed=12)
    coords = np.cumsum(_rand((5,), seed=13, low=0.2, high=1.0))
    for kwargs in ({}, {"spacing": 2.0}, {"spacing": [0.5, 2.0]}, {"dim": 1}, {"dim": [-1], "spacing": [3.0]},
                   {"spacing": [numgrad.tensor(coords)], "dim": 1}):
        theirs_kw = {k: [torch.tensor(s.numpy()) if isinstance(s, numgrad.Tensor) else s for s in v]
                     if isinstance(v, list) else v for k, v in kwargs.items()}
        _close(differences.gradient(numgrad.tensor(data), edge_order=edge_order, **kwargs),
               torch.gradient(torch.tensor(data), edge_order=edge_order, **theirs_kw), 1e-10, 1e-10)
    _close(differences.gradient(numgrad.tensor([1, 4, 9, 16])), torch.gradient(torch.tensor([1, 4, 9, 16])))
    with pytest.raises(RuntimeError):
        differences.gradient(numgrad.tensor([1.0, 2.0, 3.0]), edge_order=3)
    with pytest.raises(RuntimeError):
        differences.gradient(numgrad.tensor([1.0, 2.0]), edge_order=2)
    with pytest.raises(RuntimeError):
        differences.gradient(numgrad.tensor([1.0, 2.0, 3.0]), spacing=[1.0, 2.0])
    x = numgrad.tensor(data, requires_grad=True)
    assert gradcheck(lambda t: differences.gradient(t, edge_order=edge_order)[1], (x,))


def test_frombuffer_shares_memory():
    memory = bytearray(np.arange(4, dtype=np.int32).tobytes())
    t = buffers.frombuffer(memory, dtype=numgrad.int32)
    _close(t, torch.frombuffer(bytearray(memory), dtype=torch.int32))
    memory[0] = 9
    assert int(t[0]) == 9
    _close(buffers.frombuffer(memory, dtype=numgrad.int16, count=3, offset=2),
           torch.frombuffer(bytearray(memory), dtype=torch.int16, count=3, offset=2))
    for kwargs in ({"count": 0}, {"offset": 3}, {"count": 5}):
        with pytest.raises(ValueError):
            buffers.frombuffer(memory, dtype=numgrad.int32, **kwargs)


# ----------------------------------------------------------------------------------- methods
def test_tensor_methods_match_torch():
    x, tx = _pair(_rand((3, 4)), True)
    for name in ("mH", "H", "real"):
        _close(getattr(x, name), getattr(tx, name))
    assert x.output_nr == tx.output_nr == 0
    assert x.split(2)[1].output_nr == tx.split(2)[1].output_nr == 1
    assert x.get_device() == -1 and x.is_inference() is False and x.share_memory_() is x
    with pytest.raises(RuntimeError):
        numgrad.zeros(2, 2, 2).H
    _close(x.sum_to_size(1, 4), tx.sum_to_size(1, 4))
    _close(x.sum_to_size(4), tx.sum_to_size(4))
    with pytest.raises(RuntimeError, match="expandable"):
        x.sum_to_size(2, 4)
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.stride() == (1, 2) and e.dtype is x.dtype
    for name in ("positive", "ravel", "conj", "resolve_conj", "resolve_neg", "adjoint", "matrix_exp"):
        _close(getattr(x[:, :3], name)(), getattr(tx[:, :3], name)())
    y, ty = _pair(_rand((2, 5), low=2, high=3))
    _close(y.mvlgamma(2), ty.mvlgamma(2))
    _close(y.clone().mvlgamma_(2), ty.clone().mvlgamma_(2))
    _close(tuple(y.histogram(3)), tuple(ty.histogram(3)))


def test_inplace_method_aliases_match_torch():
    data = _rand((3, 4), low=-0.9, high=0.9)
    for name, arg in (("cumsum_", 1), ("cumprod_", 0), ("greater_", 0.1), ("greater_equal_", 0.1), ("less_", 0.1),
                      ("less_equal_", 0.1), ("not_equal_", 0.1), ("arctan2_", "tensor"), ("arcsinh_", None),
                      ("arctanh_", None)):
        x, tx = _pair(data.copy())
        args = () if arg is None else (arg,)
        if arg == "tensor":
            args, targs = (numgrad.tensor(data[0]),), (torch.tensor(data[0]),)
        else:
            targs = args
        assert getattr(x, name)(*args) is x
        getattr(tx, name)(*targs)
        _close(x, tx)
    x, tx = _pair(1 + np.abs(data))
    _close(x.arccosh_(), tx.arccosh_())
    for name in ("bitwise_left_shift_", "bitwise_right_shift_"):
        x, tx = _pair(np.array([1, -8, 5]))
        _close(getattr(x, name)(2), getattr(tx, name)(2))


def test_fill_diagonal_apply_map_match_torch():
    for shape, wrap in (((7, 3), True), ((7, 3), False), ((2, 5), True), ((3, 3, 3), False)):
        _close(numgrad.zeros(shape).fill_diagonal_(5.0, wrap), torch.zeros(shape).fill_diagonal_(5.0, wrap))
    with pytest.raises(RuntimeError):
        numgrad.zeros(2, 3, 3).fill_diagonal_(1.0)
    x, tx = _pair(_rand((2, 3)))
    _close(x.apply_(lambda v: v * 2 + 1), tx.apply_(lambda v: v * 2 + 1))
    other = _rand((3,), seed=3)
    _close(x.map_(numgrad.tensor(other), lambda a, b: a - b), tx.map_(torch.tensor(other), lambda a, b: a - b))
    g = numgrad.tensor(_rand((3, 3)), requires_grad=True)
    y = g * 1.0
    y.fill_diagonal_(0.0)
    y.sum().backward()
    assert g.grad.diagonal().tolist() == [0.0, 0.0, 0.0]


def test_scatter_and_linalg_methods():
    x, tx = _pair(_rand((3, 3)))
    s, ts = _pair(_rand((3,), seed=5))
    _close(x.diagonal_scatter(s), tx.diagonal_scatter(ts))
    _close(x.select_scatter(s, 0, 1), tx.select_scatter(ts, 0, 1))
    _close(x.narrow_copy(0, 1, 2), tx.narrow_copy(0, 1, 2))
    spd = tx @ tx.mT + 3 * torch.eye(3, dtype=torch.float64)
    low = numgrad.tensor(torch.linalg.cholesky(spd).numpy())
    _close(low.cholesky_inverse(), torch.tensor(low.numpy()).cholesky_inverse())
    _close(x.cholesky_solve(low), tx.cholesky_solve(torch.tensor(low.numpy())))
    a, ta = _pair(np.array([12, 18]))
    _close(a.gcd(a + 6), ta.gcd(ta + 6))
    _close(a.lcm(a + 6), ta.lcm(ta + 6))


def test_constants_angle_imag_and_other_spellings():
    from numgrad.ops import constants
    for name in ("e", "pi", "inf", "nan", "newaxis"):
        ours, theirs = getattr(constants, name), getattr(torch, name)
        assert ours is theirs or ours == theirs or (ours != ours and theirs != theirs)
    data = np.array([-1.0, 0.0, 2.0, np.nan, -np.inf])
    x, tx = _pair(data, True)
    out, tout = conjugation.angle(x), torch.angle(tx)
    _close(out, tout)
    out.sum().backward()
    tout.sum().backward()
    _close(x.grad, tx.grad)
    _close(conjugation.angle(numgrad.tensor([-1, 2])), torch.angle(torch.tensor([-1, 2])))
    _close(x.angle(), tx.angle())
    with pytest.raises(RuntimeError, match="non-complex"):
        conjugation.imag(x)
    with pytest.raises(RuntimeError, match="non-complex"):
        x.imag
    assert not aliases.detach(x).requires_grad
    y = x.detach().clone()
    assert aliases.resize_as_(y, numgrad.zeros(2, 3)).shape == (2, 3)
    z, tz = _pair(_rand((4, 3)))
    _close(aliases.unsafe_chunk(z, 3, 1), torch.unsafe_chunk(tz, 3, 1))
    _close(aliases.unsafe_split(z, 3), torch.unsafe_split(tz, 3))
    _close(z.unsafe_split_with_sizes([1, 3]), tz.unsafe_split_with_sizes([1, 3]))
    for values, size, fill in (([1, 0, 2], 4, -1), ([[1, 0], [0, 2]], 1, 7), ([0, 0], 2, 5), ([[1, 1]], 0, -1)):
        _close(aliases.nonzero_static(numgrad.tensor(values), size=size, fill_value=fill),
               torch.nonzero_static(torch.tensor(values), size=size, fill_value=fill))


def test_legacy_new_constructor():
    x, tx = _pair(_rand((2,), "float32"))
    assert x.new(2, 3).shape == tx.new(2, 3).shape and x.new(2, 3).dtype is x.dtype
    _close(x.new([1, 2]), tx.new([1, 2]))
    assert x.new().shape == tx.new().shape
    assert x.new(numgrad.Size([2, 2])).shape == (2, 2)
    assert x.new(x) is x
    with pytest.raises(TypeError):
        x.new(numgrad.tensor([1]))


def test_more_namespace_forms_match_torch():
    from numgrad.ops import constants
    assert repr(constants.channels_last).endswith(".channels_last")
    assert isinstance(constants.preserve_format, constants.memory_format)
    assert tensor_queries.is_storage(numgrad.zeros(2).untyped_storage()) and not tensor_queries.is_storage(3)
    assert tensor_queries.set_flush_denormal(False) is False
    x, w = _rand((1, 2, 6)), _rand((3, 2, 2), seed=1)
    for transposed, weight in ((False, w), (True, _rand((2, 3, 2), seed=2))):
        _close(numgrad.convolution(numgrad.tensor(x), numgrad.tensor(weight), None, [2], [1], [1], transposed, [0], 1),
               torch.convolution(torch.tensor(x), torch.tensor(weight), None, [2], [1], [1], transposed, [0], 1))
    image, grid = _rand((1, 2, 4, 4)), _rand((1, 3, 3, 2), seed=3, low=-1, high=1)
    _close(numgrad.grid_sampler_2d(numgrad.tensor(image), numgrad.tensor(grid), 0, 0, False),
           torch.grid_sampler_2d(torch.tensor(image), torch.tensor(grid), 0, 0, False))
    weight, tweight = _pair(_rand((5, 3)) * 10)
    numgrad.embedding_renorm_(weight, numgrad.tensor([1, 2]), 1.0, 2.0)
    torch.embedding_renorm_(tweight, torch.tensor([1, 2]), 1.0, 2.0)
    _close(weight, tweight)
    y, ty = _pair(_rand((3,)))
    m, v = _rand((3, 2), seed=4), _rand((2,), seed=5)
    _close(aliases.addmv_(y, numgrad.tensor(m), numgrad.tensor(v), alpha=2),
           torch.addmv_(ty, torch.tensor(m), torch.tensor(v), alpha=2))
    _close(y.map2_(y * 2, numgrad.tensor([1.0]), lambda a, b, c: a + b * c),
           ty.map2_(ty * 2, torch.tensor([1.0], dtype=torch.float64), lambda a, b, c: a + b * c))
    z = numgrad.zeros(2, 3, 4).permute(2, 0, 1)
    assert z.dim_order() == torch.zeros(2, 3, 4).permute(2, 0, 1).dim_order()
    y, ty = _pair(np.array([1.5, 2.0]))
    _close(numgrad.arccosh_(y), torch.arccosh_(ty))
