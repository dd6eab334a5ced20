"""CPU kernels of fused scaled dot product attention, on arrays.

Each (batch, head) pair ``n`` is independent. The forward walks blocks of ``_BQ`` query rows; for
each it walks blocks of ``_BK`` keys, so only a ``_BQ x _BK`` tile of the score matrix exists at
once. Per row it keeps a running max ``m``, a running sum ``l`` of ``exp(score - m)`` and the
unnormalised output, rescaling both by ``exp(m_old - m_new)`` when the max grows (online softmax);
the row's log-sum-exp ``m + log(l)`` is saved for the backward pass.

The backward recomputes each tile's probabilities ``P = exp(score - lse)`` from ``q``, ``k`` and
the saved log-sum-exp, then with ``D = rowsum(dO * O)``: ``dV += P^T dO``, ``dP = dO V^T``,
``dS = P * (dP - D)``, ``dQ += scale dS K`` and ``dK += scale dS^T Q``.

A row whose every score is -inf (fully masked) gets output 0 and log-sum-exp -inf, and passes
no gradient. Tiles go through BLAS gemm; the ``_par`` forms split the pairs over threads.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from . import blas
from .parallel import parallel_njit, use_parallel

_BQ, _BK = 64, 128
PARALLEL_THRESHOLD = 1 << 18

_LOG2E, _LN2 = 1.4426950408889634, 0.6931471805599453
# Adding 1.5 * 2**52 to a float64 of magnitude below 2**51 rounds it to an integer held in the
# low mantissa bits: the bits of 2**k follow by integer arithmetic, with no float-to-int
# conversion (which keeps the loops vectorizable).
_ROUND = 6755399441055744.0
_ROUND_BITS = 0x4338000000000000


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _sum(row):
    """The sum of ``row`` in float64; reassociation lets the loop keep several partial sums."""
    total = 0.0
    for i in range(row.size):
        total += row[i]
    return total


# Contraction only (fused multiply-adds): reassociation would cancel the rounding constant.
@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _exp_shifted(row, shift, buf):
    """``row[:] = exp(row - shift)``, returning the sum, for ``row <= shift`` (-inf gives 0).

    Libm's exp is a scalar call and dominated the kernels: here exp(x) = 2**k * exp(y) with
    k = round(x / ln 2) and |y| <= ln(2) / 2, exp(y) by its Taylor polynomial of degree 12
    (relative error below 4e-15), in float64 for both dtypes, in loops LLVM vectorizes.
    ``buf`` is float64 scratch at least as long as ``row``."""
    n = row.size
    for i in range(n):
        t = (row[i] - shift) * _LOG2E
        tc = -1022.0 if t < -1022.0 else t
        r = tc + _ROUND
        y = (tc - (r - _ROUND)) * _LN2
        p = 1.0 + y * (1.0 + y * (1 / 2 + y * (1 / 6 + y * (1 / 24 + y * (1 / 120 + y * (1 / 720 + y * (
            1 / 5040 + y * (1 / 40320 + y * (1 / 362880 + y * (1 / 3628800 + y * (1 / 39916800 + y * (
                1 / 479001600))))))))))))
        buf[i] = r
        row[i] = 0.0 if t < -1022.0 else p
    bits = buf[:n].view(np.int64)
    for i in range(n):
        bits[i] = (bits[i] - (_ROUND_BITS - 1023)) << 52
    for i in range(n):
        row[i] *= buf[i]
    return _sum(row)


@njit(cache=True, nogil=True)
def _mm(ta, tb, m, n, k, alpha, beta, a, lda, b, ldb, c, ldc, ik):
    """Row-major ``c[:m, :n] = alpha op(a) op(b) + beta c``, ``op`` transposing where ``ta``/``tb``;
    ``a``, ``b``, ``c`` start at their first element, rows ``lda``, ``ldb``, ``ldc`` apart."""
    # Row-major C is column-major C^T = op(b)^T op(a)^T, so gemm takes b first.
    plan = blas.gemm_plan(blas.T if tb else blas.N, blas.T if ta else blas.N, n, m, k, ldb, lda, ldc, c, ik)
    plan[2][0] = alpha
    plan[2][1] = beta
    blas.gemm(plan, b, a, c)


@njit(cache=True, nogil=True, error_model="numpy")
def _add_mask(s, r, bk, mask, mb, mh, i, j0):
    """Adds the mask's row ``i``, columns ``j0:j0+bk``, to tile row ``r`` (size-1 dims broadcast)."""
    mrow = mask[mb, mh, i if mask.shape[2] > 1 else 0]
    if mask.shape[3] > 1:
        for c in range(bk):
            s[r, c] += mrow[j0 + c]
    else:
        for c in range(bk):
            s[r, c] += mrow[0]


@njit(cache=True, nogil=True, error_model="numpy")
def _scores(q, k, mask, n, i0, bq, j0, bk, scale, causal, has_mask, heads, s, ik):
    """Tile ``s[:bq, :bk]`` of the scaled, masked scores of pair ``n``."""
    E = q.shape[2]
    _mm(False, True, bq, bk, E, scale, 0.0, q[n, i0:], E, k[n, j0:], E, s, s.shape[1], ik)
    mb = n // heads if mask.shape[0] > 1 else 0
    mh = n % heads if mask.shape[1] > 1 else 0
    for r in range(bq):
        i = i0 + r
        if has_mask:
            _add_mask(s, r, bk, mask, mb, mh, i, j0)
        if causal:
            # Top-left aligned: query i sees keys 0..i.
            for c in range(max(i + 1 - j0, 0), bk):
                s[r, c] = -np.inf


@njit(cache=True, nogil=True, error_model="numpy")
def _forward_pair(q, k, v, mask, o, lse, n, scale, causal, has_mask, heads, ik):
    L, S, Ev = q.shape[1], k.shape[1], v.shape[2]
    s = np.empty((_BQ, _BK), q.dtype)
    acc = np.empty((_BQ, Ev), q.dtype)
    buf = np.empty(_BK, np.float64)
    m = np.empty(_BQ, q.dtype)
    l = np.empty(_BQ, q.dtype)
    for i0 in range(0, L, _BQ):
        bq = min(_BQ, L - i0)
        acc[:bq] = 0
        m[:bq] = -np.inf
        l[:bq] = 0
        end = min(S, i0 + bq) if causal else S
        for j0 in range(0, end, _BK):
            bk = min(_BK, end - j0)
            _scores(q, k, mask, n, i0, bq, j0, bk, scale, causal, has_mask, heads, s, ik)
            for r in range(bq):
                top = m[r]
                for c in range(bk):
                    top = max(top, s[r, c])
                if top == -np.inf:
                    s[r, :bk] = 0
                    continue
                alpha = math.exp(m[r] - top)
                total = _exp_shifted(s[r, :bk], top, buf)
                l[r] = l[r] * alpha + total
                m[r] = top
                if alpha != 1.0:
                    acc[r] *= alpha
            _mm(False, False, bq, Ev, bk, 1.0, 1.0, s, _BK, v[n, j0:], Ev, acc, Ev, ik)
        for r in range(bq):
            if l[r] > 0:
                o[n, i0 + r] = acc[r] / l[r]
                lse[n, i0 + r] = m[r] + math.log(l[r])
            else:
                o[n, i0 + r] = 0
                lse[n, i0 + r] = -np.inf


@njit(cache=True, nogil=True)
def _forward(q, k, v, mask, o, lse, scale, causal, has_mask, heads, ik):
    for n in range(q.shape[0]):
        _forward_pair(q, k, v, mask, o, lse, n, scale, causal, has_mask, heads, ik)


@parallel_njit(cache=True, nogil=True)
def _forward_par(q, k, v, mask, o, lse, scale, causal, has_mask, heads, ik):
    for n in prange(q.shape[0]):
        _forward_pair(q, k, v, mask, o, lse, n, scale, causal, has_mask, heads, ik)


@njit(cache=True, nogil=True, error_model="numpy")
def _backward_pair(q, k, v, mask, o, lse, do, dq, dk, dv, n, scale, causal, has_mask, heads, ik):
    L, S, E, Ev = q.shape[1], k.shape[1], q.shape[2], v.shape[2]
    s = np.empty((_BQ, _BK), q.dtype)
    dp = np.empty((_BQ, _BK), q.dtype)
    buf = np.empty(_BK, np.float64)
    d = np.empty(L, q.dtype)
    for i in range(L):
        total = 0.0
        for e in range(Ev):
            total += do[n, i, e] * o[n, i, e]
        d[i] = total
    dq[n] = 0
    dk[n] = 0
    dv[n] = 0
    for i0 in range(0, L, _BQ):
        bq = min(_BQ, L - i0)
        end = min(S, i0 + bq) if causal else S
        for j0 in range(0, end, _BK):
            bk = min(_BK, end - j0)
            _scores(q, k, mask, n, i0, bq, j0, bk, scale, causal, has_mask, heads, s, ik)
            for r in range(bq):
                row_lse = lse[n, i0 + r]
                if row_lse == -np.inf:
                    s[r, :bk] = 0
                else:
                    _exp_shifted(s[r, :bk], row_lse, buf)
            _mm(True, False, bk, Ev, bq, 1.0, 1.0, s, _BK, do[n, i0:], Ev, dv[n, j0:], Ev, ik)
            _mm(False, True, bq, bk, Ev, 1.0, 0.0, do[n, i0:], Ev, v[n, j0:], Ev, dp, _BK, ik)
            for r in range(bq):
                dr = d[i0 + r]
                for c in range(bk):
                    dp[r, c] = s[r, c] * (dp[r, c] - dr)
            _mm(False, False, bq, E, bk, scale, 1.0, dp, _BK, k[n, j0:], E, dq[n, i0:], E, ik)
            _mm(True, False, bk, E, bq, scale, 1.0, dp, _BK, q[n, i0:], E, dk[n, j0:], E, ik)


@njit(cache=True, nogil=True)
def _backward(q, k, v, mask, o, lse, do, dq, dk, dv, scale, causal, has_mask, heads, ik):
    for n in range(q.shape[0]):
        _backward_pair(q, k, v, mask, o, lse, do, dq, dk, dv, n, scale, causal, has_mask, heads, ik)


@parallel_njit(cache=True, nogil=True)
def _backward_par(q, k, v, mask, o, lse, do, dq, dk, dv, scale, causal, has_mask, heads, ik):
    for n in prange(q.shape[0]):
        _backward_pair(q, k, v, mask, o, lse, do, dq, dk, dv, n, scale, causal, has_mask, heads, ik)


def _pick(serial, parallel, pairs, work):
    return parallel if pairs > 1 and use_parallel(work, PARALLEL_THRESHOLD) else serial


def flash_attention(o, lse, q, k, v, mask, scale, causal, has_mask, heads):
    """``o`` (N, L, Ev) and ``lse`` (N, L) = attention output and row log-sum-exp of ``q`` (N, L, E)
    over ``k`` (N, S, E) and ``v`` (N, S, Ev), ``mask`` (M1, M2, Lm, Sm) an additive mask broadcast
    over pairs n = (n // heads, n % heads)."""
    L, S = q.shape[1], k.shape[1]
    run = _pick(_forward, _forward_par, q.shape[0], q.shape[0] * L * S)
    run(q, k, v, mask, o, lse, scale, causal, has_mask, heads, blas.int_witness())


def flash_attention_backward(dq, dk, dv, do, o, lse, q, k, v, mask, scale, causal, has_mask, heads):
    """``dq``, ``dk``, ``dv`` = the gradients of :func:`flash_attention`'s q, k and v, given the
    gradient ``do`` of its output ``o`` and its log-sum-exp ``lse``."""
    L, S = q.shape[1], k.shape[1]
    run = _pick(_backward, _backward_par, q.shape[0], q.shape[0] * L * S)
    run(q, k, v, mask, o, lse, do, dq, dk, dv, scale, causal, has_mask, heads, blas.int_witness())
