"""Views share memory and write through; basic indexing; chains of views against NumPy and PyTorch."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import numgrad

try:
    import torch
except ImportError:
    torch = None


def _shares(a, b) -> bool:
    return a._storage is b._storage


def test_views_share_memory_and_write_through():
    x = numgrad.arange(12.0).view(3, 4)
    views = [x.view(4, 3), x.reshape(2, 6), x.flatten(), x.t(), x.transpose(0, 1), x.permute(1, 0),
             x.unsqueeze(0), x.unsqueeze(0).squeeze(0), x[:, None].expand(3, 5, 4), x.movedim(0, 1),
             x.narrow(1, 1, 2), x.select(0, 2), x.unbind(1)[3], x.split(2)[1], x.chunk(2, 1)[0],
             x.diagonal(), x.as_strided((2, 2), (4, 1), 1), x[1:, ::2], x[..., -1], x.view_as(x), x.T]
    for v in views:
        assert _shares(v, x), v
    x.t()[3, 0] = -1
    assert x[0, 3].item() == -1
    x.diagonal().fill_(7)
    assert x[2, 2].item() == 7 and x[1, 1].item() == 7
    x[0:2, :] = 12
    assert x[:2].tolist() == [[12.0] * 4] * 2
    y = numgrad.arange(6.0).view(2, 3)
    y[:] = y + numgrad.ones(2, 3)
    assert y.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    y[1, ::2] = numgrad.tensor([-1.0, -2.0])
    y[..., 1] = 0
    assert y.tolist() == [[1.0, 0.0, 3.0], [-1.0, 0.0, -2.0]]
    y[0] = numgrad.tensor([9.0])
    assert y[0].tolist() == [9.0, 9.0, 9.0]


def test_reshape_copies_only_when_it_must():
    x = numgrad.arange(6).view(2, 3)
    assert _shares(x.reshape(3, 2), x)
    r = x.t().reshape(6)
    assert not _shares(r, x) and r.tolist() == [0, 3, 1, 4, 2, 5]
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride.*"
                                           "Use .reshape\\(...\\) instead"):
        x.t().view(6)
    assert x[:, :2].t().reshape(2, 2, 1).stride() == (1, 3, 3)   # as PyTorch computes it


def test_expand_allocates_nothing():
    base = numgrad.ones(3, 2)
    y = base.unsqueeze(0).expand(10 ** 13, 3, 2)
    assert y.shape == (10 ** 13, 3, 2) and y.stride() == (0, 2, 1) and _shares(y, base)
    assert y.numel() == 6 * 10 ** 13 and y[123456789].tolist() == [[1.0, 1.0]] * 3
    assert y.transpose(0, 2).shape == (2, 3, 10 ** 13) and not y.is_contiguous()
    assert "..." in repr(y)
    assert numgrad.arange(3).expand(2, 3).tolist() == [[0, 1, 2]] * 2
    assert numgrad.arange(3).view(3, 1).expand(-1, 2).stride() == (1, 0)


def test_inplace_metadata_views():
    x = numgrad.zeros(2, 1, 3)
    assert x.squeeze_() is x and x.shape == (2, 3)
    assert x.unsqueeze_(0).shape == (1, 2, 3) and x.stride() == (6, 3, 1)
    x.squeeze_(0)
    assert x.t_().stride() == (1, 3) and x.transpose_(0, 1).stride() == (3, 1)
    leaf = numgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.unsqueeze_(0)
    y = leaf * 2
    y.unsqueeze_(0)
    assert y.shape == (1, 2) and y.grad_fn is not None
    y.sum().backward()
    assert leaf.grad.tolist() == [2.0, 2.0]


def test_resize_():
    x = numgrad.arange(6)
    assert x.resize_(2, 2).tolist() == [[0, 1], [2, 3]]
    z = numgrad.arange(3)
    z.resize_(5)
    assert z.shape == (5,) and z[:3].tolist() == [0, 1, 2]


def test_view_op_details():
    x = numgrad.arange(24).view(2, 3, 4)
    assert x.diagonal(0, 1, 2).tolist() == [[0, 5, 10], [12, 17, 22]]
    assert x.diagonal(1, 1, 2).shape == (2, 3) and x[0].diagonal(-2).tolist() == [8]
    assert [t.shape for t in numgrad.zeros(5, 3).chunk(3)] == [(2, 3), (2, 3), (1, 3)]
    assert [t.shape for t in numgrad.zeros(6, 3).chunk(4)] == [(2, 3)] * 3
    assert [t.shape for t in numgrad.zeros(5, 3).split([2, 3])] == [(2, 3), (3, 3)]
    assert x.movedim((0, 1), (2, 0)).shape == (3, 4, 2) and x.flatten(1).shape == (2, 12)
    assert x.unflatten(2, (2, -1)).shape == (2, 3, 2, 2) and numgrad.tensor(5).flatten().shape == (1,)
    assert x.narrow(2, -1, 1).shape == (2, 3, 1) and x.select(-1, -1).tolist() == [[3, 7, 11], [15, 19, 23]]
    assert x[1, ..., None].shape == (3, 4, 1) and x[:, None, 1:, ::2].stride() == (12, 12, 4, 2)
    assert x[0, 0, 100:].shape == (0,) and x[0, 0, -100:2].tolist() == [0, 1]
    assert x[np.int64(1), 0, 0].item() == 12
    assert x.mT.shape == (2, 4, 3)


def test_indexing_errors():
    x = numgrad.zeros(2, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x[0, 3]
    with pytest.raises(IndexError, match="index -3 is out of bounds for dimension 0 with size 2"):
        x[-3]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        numgrad.tensor(1.0)[0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match="only integers, slices"):
        x[1.5]
    with pytest.raises(IndexError, match="select\\(\\): index 5 out of range"):
        x.select(1, 5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.transpose(0, 2)
    with pytest.raises(RuntimeError, match="permute\\(\\): duplicate dims are not allowed"):
        x.permute(0, 0)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        numgrad.zeros(1, 2, 3).t()
    with pytest.raises(RuntimeError, match="start \\(2\\) \\+ length \\(2\\) exceeds dimension size \\(3\\)"):
        x.narrow(1, 2, 2)
    with pytest.raises(RuntimeError, match="expanded size of the tensor \\(3\\) must match the existing size \\(4\\)"):
        x[0] = numgrad.ones(4)
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        x.view(-2, 3)


# ------------------------------------------------------------------------- property tests
def _apply(kind, args, lib, x):
    """One view op on a numgrad/torch tensor (lib="t") or a NumPy array (lib="np")."""
    if kind == "transpose":
        return np.swapaxes(x, *args) if lib == "np" else x.transpose(*args)
    if kind == "permute":
        return np.transpose(x, args) if lib == "np" else x.permute(*args)
    if kind == "slice":
        dim, sl = args
        return x[(slice(None),) * dim + (sl,)]
    if kind == "select":
        dim, i = args
        return x[(slice(None),) * dim + (i,)]
    if kind == "unsqueeze":
        return np.expand_dims(x, args) if lib == "np" else x.unsqueeze(args)
    if kind == "expand":
        return np.broadcast_to(x, args) if lib == "np" else x.expand(args)
    if kind in ("reshape", "view"):
        if lib == "np":
            return np.reshape(x, args)
        return x.reshape(args) if kind == "reshape" else x.view(args)
    if kind == "flatten":
        s, e = args
        if lib == "np":
            shape = x.shape[:s] + (int(np.prod(x.shape[s:e + 1])),) + x.shape[e + 1:]
            return np.reshape(x, shape)
        return x.flatten(s, e)
    if kind == "squeeze":
        return np.squeeze(x) if lib == "np" else x.squeeze()
    raise AssertionError(kind)


@st.composite
def _op(draw, shape):
    nd = len(shape)
    kinds = ["unsqueeze", "reshape", "view", "squeeze", "expand"]
    if nd >= 1:
        kinds += ["slice", "select", "flatten"]
    if nd >= 2:
        kinds += ["transpose", "permute"]
    kind = draw(st.sampled_from(kinds))
    if kind == "transpose":
        return kind, (draw(st.integers(0, nd - 1)), draw(st.integers(0, nd - 1)))
    if kind == "permute":
        return kind, tuple(draw(st.permutations(range(nd))))
    if kind == "slice":
        dim = draw(st.integers(0, nd - 1))
        n = shape[dim]
        return kind, (dim, slice(draw(st.integers(-n - 1, n + 1)), draw(st.integers(-n - 1, n + 1)),
                                 draw(st.integers(1, 3))))
    if kind == "select":
        dim = draw(st.integers(0, nd - 1))
        if shape[dim] == 0:
            return "unsqueeze", 0
        return kind, (dim, draw(st.integers(-shape[dim], shape[dim] - 1)))
    if kind == "unsqueeze":
        return kind, draw(st.integers(0, nd))
    if kind == "expand":
        new = tuple(draw(st.integers(0, 3)) if s == 1 else s for s in shape)
        return kind, (draw(st.integers(1, 2)),) * draw(st.integers(0, 1)) + new
    if kind in ("reshape", "view"):
        n = int(np.prod(shape))
        divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
        a = draw(st.sampled_from(divisors))
        return kind, draw(st.sampled_from([(n,), (a, n // a) if n else (0, 1), (n // a, 1, a) if n else (1, 0)]))
    if kind == "flatten":
        s = draw(st.integers(0, nd - 1))
        return kind, (s, draw(st.integers(s, nd - 1)))
    return kind, None


def _viewable(kind, args, ref, tx) -> bool:
    """Whether PyTorch (or, without it, NumPy's no-copy reshape) can view ``ref`` as ``args``."""
    if torch is not None:
        try:
            _apply(kind, args, "t", tx)
        except RuntimeError:
            return False
        return True
    try:
        np.reshape(ref, args, copy=False)
    except ValueError:
        return False
    return True


@given(st.data())
def test_view_chains_agree_with_numpy_and_pytorch(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    n = int(np.prod(shape))
    ref = np.arange(n, dtype=np.int64).reshape(shape)
    x = numgrad.from_numpy(ref.copy())
    base = x
    tx = tb = torch.from_numpy(ref.copy()) if torch is not None else None
    for _ in range(data.draw(st.integers(1, 5))):
        kind, args = data.draw(_op(tuple(x.shape)))
        try:
            want = _apply(kind, args, "np", ref)
        except ValueError:
            want = None
        if kind == "view" and want is not None and not _viewable(kind, args, ref, tx):
            want = None   # these strides cannot be viewed without a copy: numgrad must refuse too
        if want is None:
            with pytest.raises(RuntimeError):
                _apply(kind, args, "t", x)
            continue
        ref, x = want, _apply(kind, args, "t", x)
        if torch is not None:
            tx = _apply(kind, args, "t", tx)
        np.testing.assert_array_equal(x.numpy(), ref)
        assert x.shape == ref.shape
        if torch is not None:
            shares_t = tx.untyped_storage().data_ptr() == tb.untyped_storage().data_ptr()
            assert _shares(x, base) == shares_t, (kind, args)
            if shares_t and tx.numel() > 0:
                assert x.stride() == tx.stride() and x.storage_offset() == tx.storage_offset()
    overlapping = any(st_ == 0 and s > 1 for s, st_ in zip(x.shape, x.stride()))
    if _shares(x, base) and not overlapping and x.numel():
        x[...] = -1   # writes through to every element the view covers, and only those
        assert int((base.numpy() == -1).sum()) == x.numel()
