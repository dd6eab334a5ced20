"""nn.RNN, nn.LSTM, nn.GRU and their cells against PyTorch: parameters and initialisation,
outputs, final states and every gradient, over padded, batch-first, packed and unbatched input."""
import numpy as np
import pytest

import numgrad
import numgrad.autograd.forward_ad as fwAD
from numgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tfwAD = torch.autograd.forward_ad

TOL = {numgrad.float32: dict(rtol=1e-4, atol=1e-5), numgrad.float64: dict(rtol=1e-9, atol=1e-10)}


def _pair(name, *args, dtype=numgrad.float64, **kwargs):
    """The same layer in numgrad and PyTorch, built after the same seed."""
    numgrad.manual_seed(0)
    ours = getattr(numgrad.nn, name)(*args, **kwargs).to(dtype)
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kwargs).to(getattr(torch, str(dtype).split(".")[-1]))
    return ours, theirs


def _inputs(shape, dtype, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    ours = numgrad.tensor(data, dtype=dtype, requires_grad=True)
    theirs = torch.tensor(data, dtype=getattr(torch, str(dtype).split(".")[-1]), requires_grad=True)
    return ours, theirs


def _close(a, b, dtype=numgrad.float64):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL[dtype])


def _flat_states(h):
    return list(h) if isinstance(h, tuple) else [h]


def _loss(output, states):
    """A loss reading the output and every final state with different weights."""
    data = output.data if hasattr(output, "batch_sizes") else output
    total = (data * data).sum()
    for k, s in enumerate(_flat_states(states)):
        total = total + (s.sum(-1) * (k + 2)).sum()
    return total


def _check_layer(ours, theirs, x_shape, dtype=numgrad.float64, hx_shapes=None, seed=0):
    x, tx = _inputs(x_shape, dtype, seed)
    hx = thx = None
    if hx_shapes:
        pairs = [_inputs(s, dtype, seed + 1 + k) for k, s in enumerate(hx_shapes)]
        hx, thx = [p[0] for p in pairs], [p[1] for p in pairs]
        if len(pairs) == 1:
            hx, thx = hx[0], thx[0]
        else:
            hx, thx = tuple(hx), tuple(thx)
    out, states = ours(x, hx)
    tout, tstates = theirs(tx, thx)
    _close(out, tout, dtype)
    for s, ts in zip(_flat_states(states), _flat_states(tstates)):
        _close(s, ts, dtype)
    _loss(out, states).backward()
    _loss(tout, tstates).backward()
    _close(x.grad, tx.grad, dtype)
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname
        _close(p.grad, tp.grad, dtype)
    if hx_shapes:
        for h, th in zip(_flat_states(hx), _flat_states(thx)):
            _close(h.grad, th.grad, dtype)


@pytest.mark.parametrize("name, kwargs", [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "bias": False}), ("LSTM", {}),
    ("LSTM", {"proj_size": 2}), ("GRU", {}),
])
def test_parameters_init_and_repr_match_pytorch(name, kwargs):
    ours, theirs = _pair(name, 4, 3, num_layers=2, bidirectional=True, dtype=numgrad.float32, **kwargs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours._flat_weights_names == theirs._flat_weights_names
    for p, tp in zip(ours._flat_weights, theirs._flat_weights):
        assert p.shape == tp.shape
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
    assert [[w.shape for w in ws] for ws in ours.all_weights] == [[w.shape for w in ws] for ws in theirs.all_weights]
    assert str(ours) == str(theirs)
    ours.flatten_parameters()


@pytest.mark.parametrize("dtype", [numgrad.float32, numgrad.float64])
@pytest.mark.parametrize("name, kwargs", [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("LSTM", {"proj_size": 2}), ("GRU", {}),
])
def test_two_layers_bidirectional(name, kwargs, dtype):
    ours, theirs = _pair(name, 4, 3, num_layers=2, bidirectional=True, dtype=dtype, **kwargs)
    _check_layer(ours, theirs, (5, 2, 4), dtype)


@pytest.mark.parametrize("name, kwargs", [("RNN", {}), ("LSTM", {}), ("LSTM", {"proj_size": 2}), ("GRU", {})])
def test_batch_first_with_initial_states(name, kwargs):
    ours, theirs = _pair(name, 4, 3, batch_first=True, **kwargs)
    size = kwargs.get("proj_size") or 3
    hx_shapes = [(1, 2, size), (1, 2, 3)] if name == "LSTM" else [(1, 2, 3)]
    _check_layer(ours, theirs, (2, 5, 4), hx_shapes=hx_shapes)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_bias_free_and_unbatched(name):
    ours, theirs = _pair(name, 4, 3, num_layers=2, bias=False)
    _check_layer(ours, theirs, (5, 4))
    hx_shapes = [(2, 3), (2, 3)] if name == "LSTM" else [(2, 3)]
    _check_layer(ours, theirs, (5, 4), hx_shapes=hx_shapes, seed=3)


def test_noncontiguous_input():
    ours, theirs = _pair("LSTM", 4, 3)
    data = np.random.default_rng(0).standard_normal((4, 5, 2))
    x = numgrad.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    out, (h, c) = ours(x.permute(1, 2, 0))
    tout, (th, tc) = theirs(tx.permute(1, 2, 0))
    _close(out, tout)
    (out.sum() + c.sum()).backward()
    (tout.sum() + tc.sum()).backward()
    _close(x.grad, tx.grad)


@pytest.mark.parametrize("name, kwargs", [("RNN", {}), ("LSTM", {}), ("LSTM", {"proj_size": 2}), ("GRU", {})])
def test_packed_unsorted_input(name, kwargs):
    ours, theirs = _pair(name, 4, 3, num_layers=2, bidirectional=True, **kwargs)
    x, tx = _inputs((5, 3, 4), numgrad.float64)
    lengths = [2, 5, 3]
    packed = numgrad.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)
    tpacked = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=False)
    size = kwargs.get("proj_size") or 3
    hx_shapes = [(4, 3, size), (4, 3, 3)] if name == "LSTM" else [(4, 3, 3)]
    pairs = [_inputs(s, numgrad.float64, 7 + k) for k, s in enumerate(hx_shapes)]
    hx = tuple(p[0] for p in pairs) if name == "LSTM" else pairs[0][0]
    thx = tuple(p[1] for p in pairs) if name == "LSTM" else pairs[0][1]
    out, states = ours(packed, hx)
    tout, tstates = theirs(tpacked, thx)
    assert isinstance(out, numgrad.nn.utils.rnn.PackedSequence)
    _close(out.data, tout.data)
    assert out.batch_sizes.tolist() == tout.batch_sizes.tolist()
    assert out.sorted_indices.tolist() == tout.sorted_indices.tolist()
    assert out.unsorted_indices.tolist() == tout.unsorted_indices.tolist()
    for s, ts in zip(_flat_states(states), _flat_states(tstates)):
        _close(s, ts)
    _loss(out, states).backward()
    _loss(tout, tstates).backward()
    _close(x.grad, tx.grad)
    for h, th in zip(_flat_states(hx), _flat_states(thx)):
        _close(h.grad, th.grad)
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        _close(p.grad, tp.grad)
    padded, lengths_out = numgrad.nn.utils.rnn.pad_packed_sequence(out)
    tpadded, tlengths = torch.nn.utils.rnn.pad_packed_sequence(tout)
    _close(padded, tpadded)
    assert lengths_out.tolist() == tlengths.tolist()


def test_dropout_between_layers():
    ours, theirs = _pair("LSTM", 4, 3, num_layers=2, dropout=0.5)
    assert str(ours) == str(theirs)
    x, _ = _inputs((5, 2, 4), numgrad.float64)
    ours.eval()
    first, _ = ours(x)
    again, _ = ours(x)
    np.testing.assert_array_equal(first.detach().numpy(), again.detach().numpy())
    ours.train()
    numgrad.manual_seed(1)
    a, _ = ours(x)
    numgrad.manual_seed(2)
    b, _ = ours(x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    # The same seed draws the same dropout masks as PyTorch's.
    x, tx = _inputs((5, 2, 4), numgrad.float64)
    numgrad.manual_seed(3)
    torch.manual_seed(3)
    out, _ = ours(x)
    tout, _ = theirs(tx)
    _close(out, tout)
    out.sum().backward()
    tout.sum().backward()
    _close(x.grad, tx.grad)
    with pytest.warns(UserWarning, match="dropout option adds dropout"):
        numgrad.nn.GRU(4, 3, dropout=0.5)


def test_empty_batch():
    ours, theirs = _pair("LSTM", 4, 3, num_layers=2)
    out, (h, c) = ours(numgrad.zeros(5, 0, 4, dtype=numgrad.float64))
    tout, (th, tc) = theirs(torch.zeros(5, 0, 4, dtype=torch.float64))
    assert out.shape == tuple(tout.shape) and h.shape == tuple(th.shape) and c.shape == tuple(tc.shape)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_gradcheck_float64(name):
    numgrad.manual_seed(0)
    layer = getattr(numgrad.nn, name)(2, 3, num_layers=2, bidirectional=True).double()
    x = numgrad.randn(3, 2, 2, dtype=numgrad.float64, requires_grad=True)
    h0 = numgrad.randn(4, 2, 3, dtype=numgrad.float64, requires_grad=True)
    if name == "LSTM":
        c0 = numgrad.randn(4, 2, 3, dtype=numgrad.float64, requires_grad=True)

        def fn(x, h0, c0):
            out, (h, c) = layer(x, (h0, c0))
            return out, h, c
        inputs = (x, h0, c0)
    else:
        def fn(x, h0):
            out, h = layer(x, h0)
            return out, h
        inputs = (x, h0)
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_gradgradcheck(name):
    numgrad.manual_seed(0)
    layer = getattr(numgrad.nn, name)(2, 2, bidirectional=True).double()
    x = numgrad.randn(2, 1, 2, dtype=numgrad.float64, requires_grad=True)
    s0 = numgrad.randn(2, 1, 2, dtype=numgrad.float64, requires_grad=True)

    def fn(x, s0):
        if name != "LSTM":
            return layer(x, s0)
        out, (_, c) = layer(x, (numgrad.zeros(2, 1, 2, dtype=numgrad.float64), s0))
        return out, c
    assert gradgradcheck(fn, (x, s0))


def test_gradgradcheck_packed():
    numgrad.manual_seed(0)
    layer = numgrad.nn.LSTM(2, 2, bidirectional=True).double()
    x = numgrad.randn(3, 2, 2, dtype=numgrad.float64, requires_grad=True)

    def fn(x):
        packed = numgrad.nn.utils.rnn.pack_padded_sequence(x, [1, 3], enforce_sorted=False)
        out, (h, c) = layer(packed)
        return out.data, h, c
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_forward_mode_matches_pytorch():
    ours, theirs = _pair("GRU", 3, 2, bidirectional=True)
    x, tx = _inputs((4, 2, 3), numgrad.float64)
    t, tt = _inputs((4, 2, 3), numgrad.float64, seed=1)
    with fwAD.dual_level():
        out, _ = ours(fwAD.make_dual(x.detach(), t.detach()))
        tangent = fwAD.unpack_dual(out).tangent
    with tfwAD.dual_level():
        tout, _ = theirs(tfwAD.make_dual(tx.detach(), tt.detach()))
        ttangent = tfwAD.unpack_dual(tout).tangent
    _close(tangent, ttangent)


def test_double_backward_matches_pytorch():
    ours, theirs = _pair("LSTM", 3, 2)
    x, tx = _inputs((4, 2, 3), numgrad.float64)
    out, _ = ours(x)
    tout, _ = theirs(tx)
    (g,) = numgrad.autograd.grad(out.sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(tout.sum(), tx, create_graph=True)
    _close(g, tg)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    _close(x.grad, tx.grad)
    _close(ours.weight_hh_l0.grad, theirs.weight_hh_l0.grad)


def test_errors():
    lstm = numgrad.nn.LSTM(4, 3)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 4, got 5"):
        lstm(numgrad.randn(2, 3, 5))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        lstm(numgrad.randn(2, 3, 4, 1))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 3\), got \[1, 2, 3\]"):
        lstm(numgrad.randn(2, 3, 4), (numgrad.zeros(1, 2, 3), numgrad.zeros(1, 3, 3)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 3, 3\), got \[1, 3, 2\]"):
        lstm(numgrad.randn(2, 3, 4), (numgrad.zeros(1, 3, 3), numgrad.zeros(1, 3, 2)))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx and cx should also be 3-D"):
        lstm(numgrad.randn(2, 3, 4), (numgrad.zeros(3, 3), numgrad.zeros(3, 3)))
    gru = numgrad.nn.GRU(4, 3)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 3, 3\), got \[2, 3, 3\]"):
        gru(numgrad.randn(2, 3, 4), numgrad.zeros(2, 3, 3))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"):
        gru(numgrad.randn(2, 4), numgrad.zeros(1, 1, 3))
    with pytest.raises(ValueError, match="RNN input dtype"):
        gru(numgrad.randn(2, 3, 4, dtype=numgrad.float64))
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        numgrad.nn.GRU(4, 3, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        numgrad.nn.LSTM(4, 3, proj_size=3)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        numgrad.nn.RNN(4, 3, nonlinearity="sigmoid")
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        numgrad.nn.RNN(4, 3.0)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        numgrad.nn.LSTM(4, 3, dropout=1.5)


# -- cells ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numgrad.float32, numgrad.float64])
@pytest.mark.parametrize("name, kwargs", [
    ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", {"bias": False}),
])
def test_cells(name, kwargs, dtype):
    ours, theirs = _pair(name, 4, 3, dtype=dtype, **kwargs)
    assert str(ours) == str(theirs)
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
    lstm = name == "LSTMCell"
    for batch in ((2,), ()):
        x, tx = _inputs(batch + (4,), dtype)
        for with_state in (False, True):
            hx = thx = None
            if with_state:
                pairs = [_inputs(batch + (3,), dtype, 5 + k) for k in range(2 if lstm else 1)]
                hx = tuple(p[0] for p in pairs) if lstm else pairs[0][0]
                thx = tuple(p[1] for p in pairs) if lstm else pairs[0][1]
            out, tout = ours(x, hx), theirs(tx, thx)
            for o, to in zip(_flat_states(out), _flat_states(tout)):
                _close(o, to, dtype)
            sum(((o * (k + 1)) ** 2).sum() for k, o in enumerate(_flat_states(out))).backward()
            sum(((o * (k + 1)) ** 2).sum() for k, o in enumerate(_flat_states(tout))).backward()
            _close(x.grad, tx.grad, dtype)
            if with_state:
                for h, th in zip(_flat_states(hx), _flat_states(thx)):
                    _close(h.grad, th.grad, dtype)
            for p, tp in zip(ours.parameters(), theirs.parameters()):
                _close(p.grad, tp.grad, dtype)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradcheck(name):
    numgrad.manual_seed(0)
    cell = getattr(numgrad.nn, name)(2, 3).double()
    x = numgrad.randn(2, 2, dtype=numgrad.float64, requires_grad=True)
    h = numgrad.randn(2, 3, dtype=numgrad.float64, requires_grad=True)
    if name == "LSTMCell":
        c = numgrad.randn(2, 3, dtype=numgrad.float64, requires_grad=True)
        assert gradcheck(lambda x, h, c: cell(x, (h, c)), (x, h, c))
    else:
        assert gradcheck(lambda x, h: cell(x, h), (x, h))


def test_cell_errors():
    cell = numgrad.nn.LSTMCell(4, 3)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 4"):
        cell(numgrad.randn(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(numgrad.randn(2, 4), (numgrad.zeros(3, 3), numgrad.zeros(3, 3)))
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 2, expected 3"):
        cell(numgrad.randn(2, 4), (numgrad.zeros(2, 2), numgrad.zeros(2, 3)))
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D, got 3D instead"):
        cell(numgrad.randn(1, 2, 4))
    with pytest.raises(ValueError, match="GRUCell: Expected hidden to be 1D or 2D, got 3D instead"):
        numgrad.nn.GRUCell(4, 3)(numgrad.randn(2, 4), numgrad.zeros(1, 2, 3))
