"""CPU kernels of the connectionist temporal classification (CTC) loss, on arrays.

Sample ``n`` aligns its target ``l`` (length L) with its first ``T_n`` frames through the
extended label ``l'`` = blank, l[0], blank, ..., l[L-1], blank (length 2L+1). The forward
variables ``alpha[t, s]`` (log-probability of the prefixes of l' up to s emitted by frames 0..t)
and the backward variables ``beta[t, s]`` (of the suffixes from s emitted by frames t..T_n-1,
frame t included) follow the recursions of Graves et al. (2006) in log space:

    alpha[t, s] = lse(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if l'[s] is no blank
                      and differs from l'[s-2]) + log_probs[t, l'[s]]

and mirrored for beta. The loss is -lse(alpha[T_n-1, 2L], alpha[T_n-1, 2L-1]); the gradient
with respect to ``log_probs[t, c]`` is PyTorch's: exp(log_probs[t, c]) minus the posterior of
class c at frame t, the sum over states s with l'[s] = c of exp(alpha[t, s] + beta[t, s] + nll -
log_probs[t, c]) (summed as probabilities, each at most 1); it is zero past ``T_n``. Samples are
independent, so the ``_par`` forms split them over threads.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 14
_NEG_INF = -np.inf


@njit(cache=True, error_model="numpy", nogil=True)
def _lse2(a, b):
    m, d = max(a, b), min(a, b)
    if d == _NEG_INF:
        return m
    return m + math.log1p(math.exp(d - m))


@njit(cache=True, error_model="numpy", nogil=True)
def _lse3(a, b, c):
    if c == _NEG_INF:
        return _lse2(a, b)
    # c is finite, so the maximum is: shifted out, it leaves exp(0) = 1 and two exponentials.
    if a >= b and a >= c:
        return a + math.log(1.0 + math.exp(b - a) + math.exp(c - a))
    if b >= c:
        return b + math.log(1.0 + math.exp(a - b) + math.exp(c - b))
    return c + math.log(1.0 + math.exp(a - c) + math.exp(b - c))


@njit(cache=True, error_model="numpy", nogil=True)
def _label(targets, start, s, blank):
    return blank if s % 2 == 0 else targets[start + s // 2]


@njit(cache=True, error_model="numpy", nogil=True)
def _skips(targets, start, s, blank):
    """Whether state ``s`` may be reached from ``s - 2`` (a label differing from the previous one)."""
    return s % 2 == 1 and s >= 3 and targets[start + s // 2] != targets[start + s // 2 - 1]


@njit(cache=True, error_model="numpy", nogil=True)
def _alpha(lp, n, targets, start, length, frames, blank, alpha):
    states = 2 * length + 1
    alpha[0, :states] = _NEG_INF
    alpha[0, 0] = lp[0, n, blank]
    if length > 0:
        alpha[0, 1] = lp[0, n, targets[start]]
    for t in range(1, frames):
        for s in range(states):
            a = alpha[t - 1, s]
            b = alpha[t - 1, s - 1] if s > 0 else _NEG_INF
            c = alpha[t - 1, s - 2] if _skips(targets, start, s, blank) else _NEG_INF
            alpha[t, s] = _lse3(a, b, c) + lp[t, n, _label(targets, start, s, blank)]
    last = alpha[frames - 1, states - 1]
    before = alpha[frames - 1, states - 2] if length > 0 else _NEG_INF
    return -_lse2(last, before)


@njit(cache=True, error_model="numpy", nogil=True)
def _nll(lp, n, targets, offsets, input_lengths, blank):
    start, length, frames = offsets[n], offsets[n + 1] - offsets[n], input_lengths[n]
    if frames == 0:
        return 0.0 if length == 0 else np.inf
    alpha = np.empty((frames, 2 * length + 1), dtype=np.float64)
    return _alpha(lp, n, targets, start, length, frames, blank, alpha)


@njit(cache=True, error_model="numpy", nogil=True)
def _forward_samples(out, lp, targets, offsets, input_lengths, blank):
    for n in range(out.shape[0]):
        out[n] = _nll(lp, n, targets, offsets, input_lengths, blank)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _forward_samples_par(out, lp, targets, offsets, input_lengths, blank):
    for n in prange(out.shape[0]):
        out[n] = _nll(lp, n, targets, offsets, input_lengths, blank)


@njit(cache=True, error_model="numpy", nogil=True)
def _grad_sample(out, g, lp, nll, n, targets, offsets, input_lengths, blank, zero_infinity):
    start, length, frames = offsets[n], offsets[n + 1] - offsets[n], input_lengths[n]
    classes = lp.shape[2]
    out[:, n, :] = 0.0
    if frames == 0 or zero_infinity and nll[n] == np.inf:
        return
    if nll[n] == np.inf:
        # PyTorch's formula gives exp(-inf + inf): NaN at every class of every frame used.
        out[:frames, n, :] = np.nan
        return
    states = 2 * length + 1
    alpha = np.empty((frames, states), dtype=np.float64)
    _alpha(lp, n, targets, start, length, frames, blank, alpha)
    beta = np.full((frames, states), _NEG_INF, dtype=np.float64)
    beta[frames - 1, states - 1] = lp[frames - 1, n, blank]
    if length > 0:
        beta[frames - 1, states - 2] = lp[frames - 1, n, targets[start + length - 1]]
    for t in range(frames - 2, -1, -1):
        for s in range(states):
            a = beta[t + 1, s]
            b = beta[t + 1, s + 1] if s + 1 < states else _NEG_INF
            c = beta[t + 1, s + 2] if s + 2 < states and _skips(targets, start, s + 2, blank) else _NEG_INF
            beta[t, s] = _lse3(a, b, c) + lp[t, n, _label(targets, start, s, blank)]
    # Summed as probabilities: each term is a posterior, at most 1, so nothing overflows.
    posterior = np.empty(classes, dtype=np.float64)
    for t in range(frames):
        posterior[:] = 0.0
        for s in range(states):
            c = _label(targets, start, s, blank)
            posterior[c] += math.exp(alpha[t, s] + beta[t, s] + nll[n] - lp[t, n, c])
        for c in range(classes):
            out[t, n, c] = (math.exp(lp[t, n, c]) - posterior[c]) * g[n]


@njit(cache=True, error_model="numpy", nogil=True)
def _grad_samples(out, g, lp, nll, targets, offsets, input_lengths, blank, zero_infinity):
    for n in range(lp.shape[1]):
        _grad_sample(out, g, lp, nll, n, targets, offsets, input_lengths, blank, zero_infinity)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _grad_samples_par(out, g, lp, nll, targets, offsets, input_lengths, blank, zero_infinity):
    for n in prange(lp.shape[1]):
        _grad_sample(out, g, lp, nll, n, targets, offsets, input_lengths, blank, zero_infinity)


def _flat(targets, input_lengths):
    """The targets concatenated, their start offsets (one past the end last) and the input lengths,
    as int64 arrays: the kernels compile once per dtype, never per batch or target length."""
    offsets = np.zeros(len(targets) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in targets], out=offsets[1:])
    flat = np.fromiter((c for t in targets for c in t), dtype=np.int64, count=int(offsets[-1]))
    return flat, offsets, np.asarray(input_lengths, dtype=np.int64)


def ctc_loss(out, log_probs, targets, input_lengths, blank, zero_infinity):
    """``out`` (N,) = each sample's negative log-likelihood under ``log_probs`` (T, N, C)."""
    flat, offsets, lengths = _flat(targets, input_lengths)
    big = out.shape[0] > 1 and use_parallel(log_probs.size, PARALLEL_THRESHOLD)
    (_forward_samples_par if big else _forward_samples)(out, log_probs, flat, offsets, lengths, blank)


def ctc_loss_backward(out, g, log_probs, nll, targets, input_lengths, blank, zero_infinity):
    """``out`` (T, N, C) = the gradient of the losses ``nll`` (N,), scaled by ``g`` (N,), in ``log_probs``."""
    flat, offsets, lengths = _flat(targets, input_lengths)
    big = log_probs.shape[1] > 1 and use_parallel(log_probs.size, PARALLEL_THRESHOLD)
    (_grad_samples_par if big else _grad_samples)(out, g, log_probs, nll, flat, offsets, lengths, blank,
                                                  zero_infinity)
