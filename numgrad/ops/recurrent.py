"""The state updates of one time step of the recurrent cells (RNN, LSTM, GRU), given the
pre-activations the layers compute with matrix products, composed of numgrad ops; and the whole
recurrences over a sequence, and their backward sweeps, computed outside autograd by the CPU
kernels of ``backends/cpu/recurrent.py``."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..backends.cpu import recurrent as _kernels
from ..tensor import Tensor
from . import functional_elementwise as _E

__all__: list = []


def rnn_update(pre, nonlinearity: str):
    """h' = tanh(pre) or relu(pre), ``pre`` = W_ih x + b_ih + W_hh h + b_hh."""
    return _E.tanh(pre) if nonlinearity == "tanh" else _E.relu(pre)


def lstm_update(gates, c):
    """(h', c') of an LSTM cell from ``gates`` = W_ih x + b_ih + W_hh h + b_hh, (B, 4H) in the
    order input, forget, cell, output, and the cell state ``c``."""
    i, f, g, o = gates.chunk(4, -1)
    c = _E.sigmoid(f) * c + _E.sigmoid(i) * _E.tanh(g)
    return _E.sigmoid(o) * _E.tanh(c), c


def gru_update(xgates, hgates, h):
    """h' of a GRU cell from ``xgates`` = W_ih x + b_ih and ``hgates`` = W_hh h + b_hh, both
    (B, 3H) in the order reset, update, new, and the state ``h``."""
    xr, xz, xn = xgates.chunk(3, -1)
    hr, hz, hn = hgates.chunk(3, -1)
    r = _E.sigmoid(xr + hr)
    z = _E.sigmoid(xz + hz)
    n = _E.tanh(xn + r * hn)
    return n + z * (h - n)


def _array(x):
    """The elements of tensor ``x`` as a C-contiguous NumPy array (shared when possible)."""
    return x.detach().contiguous().numpy()


def scan_supported(*tensors) -> bool:
    """Whether the scans compute for these tensors: CPU, float32 or float64, non-empty."""
    return all(t.device.type == "cpu" and t.dtype in (dtypes.float32, dtypes.float64) and t.numel()
               for t in tensors)


def _tensors(arrays):
    return tuple(Tensor._from_numpy_array(a) for a in arrays)


def lstm_scan(xgates, batch_sizes, h0, c0, w_hh, reverse: bool):
    """The LSTM recurrence over the flat ``xgates`` (N, 4H), the input projection plus both
    biases, whose step ``t`` is ``batch_sizes[t]`` rows, from ``h0``, ``c0`` (B, H) with
    recurrent weight ``w_hh`` (4H, H), outside autograd: (hs, h_n, c_n) and then what
    :func:`lstm_scan_backward` reads."""
    return _tensors(_kernels.lstm_scan(_array(xgates), batch_sizes, _array(h0), _array(c0), _array(w_hh), reverse))


def lstm_scan_backward(g_hs, g_hn, g_cn, batch_sizes, w_hh, saved, reverse: bool):
    """The cotangents (xgates, h0, c0, w_hh) of :func:`lstm_scan`, given those of its outputs
    and what it ``saved``."""
    return _tensors(_kernels.lstm_scan_backward(_array(g_hs), _array(g_hn), _array(g_cn), batch_sizes,
                                                _array(w_hh), *map(_array, saved), reverse))


def gru_scan(xgates, batch_sizes, h0, w_hh, b_hh, reverse: bool):
    """The GRU recurrence over the flat ``xgates`` (N, 3H) = x W_ih^T + b_ih from ``h0`` (B, H),
    with recurrent weight ``w_hh`` and bias ``b_hh`` (None for none), outside autograd:
    (hs, h_n) and then what :func:`gru_scan_backward` reads."""
    bias = _array(b_hh) if b_hh is not None else np.zeros(w_hh.shape[0], w_hh.dtype.numpy)
    return _tensors(_kernels.gru_scan(_array(xgates), batch_sizes, _array(h0), _array(w_hh), bias, reverse))


def gru_scan_backward(g_hs, g_hn, batch_sizes, w_hh, saved, reverse: bool):
    """The cotangents (xgates, h0, w_hh, b_hh) of :func:`gru_scan`, given those of its outputs
    and what it ``saved``."""
    return _tensors(_kernels.gru_scan_backward(_array(g_hs), _array(g_hn), batch_sizes, _array(w_hh),
                                               *map(_array, saved), reverse))


def rnn_scan(xgates, batch_sizes, h0, w_hh, relu: bool, reverse: bool):
    """The Elman recurrence over the flat ``xgates`` (N, H) = x W_ih^T + b_ih + b_hh from ``h0``
    with recurrent weight ``w_hh``, tanh or (``relu``) relu, outside autograd: (hs, h_n) and
    then what :func:`rnn_scan_backward` reads."""
    return _tensors(_kernels.rnn_scan(_array(xgates), batch_sizes, _array(h0), _array(w_hh), relu, reverse))


def rnn_scan_backward(g_hs, g_hn, batch_sizes, w_hh, hs, saved, relu: bool, reverse: bool):
    """The cotangents (xgates, h0, w_hh) of :func:`rnn_scan`, given those of its outputs, its
    states ``hs`` and what it ``saved``."""
    return _tensors(_kernels.rnn_scan_backward(_array(g_hs), _array(g_hn), batch_sizes, _array(w_hh), _array(hs),
                                               *map(_array, saved), relu, reverse))
