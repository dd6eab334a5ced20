"""CPU kernels of the LSTM, GRU and Elman RNN recurrences over a whole sequence, on arrays.

A sequence is flat: rows ``offsets[t]:offsets[t] + batch_sizes[t]`` of an (N, features) array
are step ``t``, and the rows of a step are a prefix of the batch (a packed sequence sorts its
members longest first), so a step updates the first ``batch_sizes[t]`` rows of the state and
the others keep theirs. Each step is one gemm (the recurrent weight times the hidden state,
through NumPy's BLAS) and the gates' activations with the state update. The backward sweep
mirrors it: a fused kernel turns the state cotangents into gate cotangents, one gemm carries
them to the previous hidden state, and the recurrent weight's cotangent is a single gemm over
all steps at the end, rather than a sum of one small product per step.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy", nogil=True)
def _cell_state(act, c_prev, c):
    """Given ``act`` (B, 4H) holding the sigmoids of the input, forget and output gates and of
    twice the cell gate: turns the latter into tanh (tanh(x) = 2 sigmoid(2x) - 1) and writes the
    new cell state ``c`` = f*c_prev + i*g."""
    batch, hidden = c.shape
    one = c.dtype.type(1)
    for b in range(batch):
        for k in range(hidden):
            g = act[b, 2 * hidden + k] + act[b, 2 * hidden + k] - one
            act[b, 2 * hidden + k] = g
            c[b, k] = act[b, hidden + k] * c_prev[b, k] + act[b, k] * g


@njit(cache=True, error_model="numpy", nogil=True)
def _cell_backward(dh, dc, act, tc, c_prev, dgates):
    """From the cotangents ``dh`` and ``dc`` of one step's h and c (``tc`` = tanh(c)):
    ``dgates`` (B, 4H) of its gate pre-activations, and ``dc`` overwritten by the cotangent of
    ``c_prev``."""
    batch, hidden = dc.shape
    # ``one`` has the arrays' dtype: an integer literal would promote float32 to float64.
    one = dc.dtype.type(1)
    for b in range(batch):
        for k in range(hidden):
            i = act[b, k]
            f = act[b, hidden + k]
            g = act[b, 2 * hidden + k]
            o = act[b, 3 * hidden + k]
            t = tc[b, k]
            d_cell = dc[b, k] + dh[b, k] * o * (one - t * t)
            dgates[b, k] = d_cell * g * i * (one - i)
            dgates[b, hidden + k] = d_cell * c_prev[b, k] * f * (one - f)
            dgates[b, 2 * hidden + k] = d_cell * i * (one - g * g)
            dgates[b, 3 * hidden + k] = dh[b, k] * t * o * (one - o)
            dc[b, k] = d_cell * f


def _steps(batch_sizes, reverse):
    """(slice of the flat rows, rows) of each step in the order the recurrence runs them."""
    offsets = np.concatenate(([0], np.cumsum(batch_sizes)[:-1])) if len(batch_sizes) else []
    order = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    return [(slice(int(offsets[t]), int(offsets[t] + batch_sizes[t])), int(batch_sizes[t])) for t in order]


def _transposed_product(buffer, w_hh, h):
    """W_hh h^T, (G, n), in ``buffer``: OpenBLAS computes it much faster than h W_hh^T."""
    out = buffer[:w_hh.shape[0] * h.shape[0]].reshape(w_hh.shape[0], h.shape[0])
    np.matmul(w_hh, h.T, out=out)
    return out


def lstm_scan(xgates, batch_sizes, h0, c0, w_hh, reverse):
    """The LSTM over the flat ``xgates`` (N, 4H), the input projection with both biases, from
    states ``h0``, ``c0`` (B, H) with recurrent weight ``w_hh`` (4H, H); ``reverse`` runs from
    the last step. Returns the hidden states ``hs`` (N, H), the final states ``h_n``, ``c_n``
    (B, H) and what the backward sweep reads: the gate activations ``act`` (N, 4H),
    ``tc`` = tanh(c) and the states each step read, ``h_prev`` and ``c_prev`` (N, H)."""
    rows, gates = xgates.shape
    hidden = gates // 4
    hs = np.empty((rows, hidden), xgates.dtype)
    cs, tc, h_prev, c_prev = np.empty_like(hs), np.empty_like(hs), np.empty_like(hs), np.empty_like(hs)
    act = np.empty_like(xgates)
    buffer = np.empty(gates * h0.shape[0], xgates.dtype)
    h, c = h0.copy(), c0.copy()
    # The transcendental functions run as NumPy's SIMD loops, several times faster than the
    # scalar libm calls a Numba loop makes; exp overflowing to inf still gives sigmoid 0.
    with np.errstate(over="ignore"):
        for step, n in _steps(batch_sizes, reverse):
            h_prev[step] = h[:n]
            c_prev[step] = c[:n]
            z = act[step]
            np.add(_transposed_product(buffer, w_hh, h[:n]).T, xgates[step], out=z)
            z[:, 2 * hidden:3 * hidden] *= 2
            np.negative(z, out=z)
            np.exp(z, out=z)
            z += 1
            np.reciprocal(z, out=z)
            _cell_state(z, c_prev[step], cs[step])
            np.tanh(cs[step], out=tc[step])
            np.multiply(z[:, 3 * hidden:], tc[step], out=hs[step])
            h[:n] = hs[step]
            c[:n] = cs[step]
    return hs, h, c, act, tc, h_prev, c_prev


def lstm_scan_backward(g_hs, g_hn, g_cn, batch_sizes, w_hh, act, tc, h_prev, c_prev, reverse):
    """The cotangents (d_xgates, d_h0, d_c0, d_w_hh) of :func:`lstm_scan` given those of its
    outputs ``g_hs`` (N, H) and ``g_hn``, ``g_cn`` (B, H)."""
    dgates = np.empty_like(act)
    dh, dc = g_hn.copy(), g_cn.copy()
    for step, n in _steps(batch_sizes, not reverse):
        dh[:n] += g_hs[step]
        _cell_backward(dh[:n], dc[:n], act[step], tc[step], c_prev[step], dgates[step])
        np.matmul(dgates[step], w_hh, out=dh[:n])
    return dgates, dh, dc, dgates.T @ h_prev


@njit(cache=True, error_model="numpy", nogil=True)
def _gru_cell_forward(pre_t, b_hh, xgates, h_prev, act, h):
    """One GRU step: ``pre_t`` (3H, B) = W_hh h_prev^T, plus ``b_hh``, gives the hidden gates;
    ``xgates`` (B, 3H) the input ones (reset, update, new). ``act`` gets (r, z, n, W_hn h + b_hn)
    and ``h`` = n + z (h_prev - n)."""
    batch, hidden = h.shape
    one = h.dtype.type(1)
    for b in range(batch):
        for k in range(hidden):
            r = one / (one + np.exp(-(xgates[b, k] + pre_t[k, b] + b_hh[k])))
            z = one / (one + np.exp(-(xgates[b, hidden + k] + pre_t[hidden + k, b] + b_hh[hidden + k])))
            hn = pre_t[2 * hidden + k, b] + b_hh[2 * hidden + k]
            a = xgates[b, 2 * hidden + k] + r * hn
            # tanh(a) = 2 sigmoid(2a) - 1: Numba's exp is several times faster than its tanh.
            n = (one + one) / (one + np.exp(-(a + a))) - one
            act[b, k] = r
            act[b, hidden + k] = z
            act[b, 2 * hidden + k] = n
            act[b, 3 * hidden + k] = hn
            h[b, k] = n + z * (h_prev[b, k] - n)


@njit(cache=True, error_model="numpy", nogil=True)
def _gru_cell_backward(dh, act, h_prev, dxgates, dhgates):
    """From the cotangent ``dh`` of one GRU step's output: those of its input gates
    ``dxgates`` and hidden gates ``dhgates`` (B, 3H); ``dh`` is overwritten by the part of the
    cotangent of ``h_prev`` that does not pass through W_hh."""
    batch, hidden = dh.shape
    one = dh.dtype.type(1)
    for b in range(batch):
        for k in range(hidden):
            r = act[b, k]
            z = act[b, hidden + k]
            n = act[b, 2 * hidden + k]
            hn = act[b, 3 * hidden + k]
            g = dh[b, k]
            dn = g * (one - z) * (one - n * n)
            dr = dn * hn * r * (one - r)
            dz = g * (h_prev[b, k] - n) * z * (one - z)
            dxgates[b, k] = dr
            dxgates[b, hidden + k] = dz
            dxgates[b, 2 * hidden + k] = dn
            dhgates[b, k] = dr
            dhgates[b, hidden + k] = dz
            dhgates[b, 2 * hidden + k] = dn * r
            dh[b, k] = g * z


def gru_scan(xgates, batch_sizes, h0, w_hh, b_hh, reverse):
    """The GRU over the flat ``xgates`` (N, 3H) = x W_ih^T + b_ih from ``h0`` (B, H), with
    recurrent weight ``w_hh`` (3H, H) and bias ``b_hh`` (3H,); ``reverse`` runs from the last
    step. Returns the hidden states ``hs`` (N, H), the final state ``h_n`` and what the
    backward sweep reads: ``act`` (N, 4H) and the states each step read, ``h_prev`` (N, H)."""
    rows, gates = xgates.shape
    hidden = gates // 3
    hs = np.empty((rows, hidden), xgates.dtype)
    h_prev = np.empty_like(hs)
    act = np.empty((rows, 4 * hidden), xgates.dtype)
    buffer = np.empty(gates * h0.shape[0], xgates.dtype)
    h = h0.copy()
    for step, n in _steps(batch_sizes, reverse):
        h_prev[step] = h[:n]
        _gru_cell_forward(_transposed_product(buffer, w_hh, h[:n]), b_hh, xgates[step], h_prev[step], act[step],
                          hs[step])
        h[:n] = hs[step]
    return hs, h, act, h_prev


def gru_scan_backward(g_hs, g_hn, batch_sizes, w_hh, act, h_prev, reverse):
    """The cotangents (d_xgates, d_h0, d_w_hh, d_b_hh) of :func:`gru_scan` given those of its
    outputs ``g_hs`` (N, H) and ``g_hn`` (B, H)."""
    dxgates = np.empty((act.shape[0], act.shape[1] // 4 * 3), act.dtype)
    dhgates = np.empty_like(dxgates)
    dh = g_hn.copy()
    through_w = np.empty_like(dh)
    for step, n in _steps(batch_sizes, not reverse):
        dh[:n] += g_hs[step]
        _gru_cell_backward(dh[:n], act[step], h_prev[step], dxgates[step], dhgates[step])
        np.matmul(dhgates[step], w_hh, out=through_w[:n])
        dh[:n] += through_w[:n]
    return dxgates, dh, dhgates.T @ h_prev, dhgates.sum(0)


@njit(cache=True, error_model="numpy", nogil=True)
def _rnn_cell_forward(pre_t, xgates, relu, h):
    """One Elman step: ``h`` = tanh or relu of ``pre_t`` transposed (H, B) + ``xgates`` (B, H)."""
    batch, hidden = h.shape
    one = h.dtype.type(1)
    zero = h.dtype.type(0)
    for b in range(batch):
        for k in range(hidden):
            a = pre_t[k, b] + xgates[b, k]
            if relu:
                h[b, k] = a if a > zero else zero
            else:
                h[b, k] = (one + one) / (one + np.exp(-(a + a))) - one


@njit(cache=True, error_model="numpy", nogil=True)
def _rnn_cell_backward(dh, h, relu, dpre):
    """``dpre`` = the cotangent of one step's pre-activation, from that of its output ``h``."""
    batch, hidden = h.shape
    one = h.dtype.type(1)
    zero = h.dtype.type(0)
    for b in range(batch):
        for k in range(hidden):
            if relu:
                dpre[b, k] = dh[b, k] if h[b, k] > zero else zero
            else:
                dpre[b, k] = dh[b, k] * (one - h[b, k] * h[b, k])


def rnn_scan(xgates, batch_sizes, h0, w_hh, relu, reverse):
    """The Elman RNN over the flat ``xgates`` (N, H) = x W_ih^T + b_ih + b_hh from ``h0``
    (B, H) with recurrent weight ``w_hh`` (H, H), tanh or (``relu``) relu. Returns the hidden
    states ``hs`` (N, H), the final state ``h_n`` and the states each step read, ``h_prev``."""
    hs = np.empty_like(xgates)
    h_prev = np.empty_like(xgates)
    buffer = np.empty(xgates.shape[1] * h0.shape[0], xgates.dtype)
    h = h0.copy()
    for step, n in _steps(batch_sizes, reverse):
        h_prev[step] = h[:n]
        _rnn_cell_forward(_transposed_product(buffer, w_hh, h[:n]), xgates[step], relu, hs[step])
        h[:n] = hs[step]
    return hs, h, h_prev


def rnn_scan_backward(g_hs, g_hn, batch_sizes, w_hh, hs, h_prev, relu, reverse):
    """The cotangents (d_xgates, d_h0, d_w_hh) of :func:`rnn_scan` given those of its outputs
    ``g_hs`` (N, H) and ``g_hn`` (B, H)."""
    dpre = np.empty_like(hs)
    dh = g_hn.copy()
    for step, n in _steps(batch_sizes, not reverse):
        dh[:n] += g_hs[step]
        _rnn_cell_backward(dh[:n], hs[step], relu, dpre[step])
        np.matmul(dpre[step], w_hh, out=dh[:n])
    return dpre, dh, dpre.T @ h_prev
