"""The table's rows for the functions of ``numgrad.nn.functional`` beyond the activations and
losses: softmax and its log, glu, embedding, pooling (more layers' functions join here)."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg


def _np_adaptive_avg_pool2d(x, output_size):
    h, w = x.shape[-2:]
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    oh, ow = h if oh is None else oh, w if ow is None else ow
    out = np.empty(x.shape[:-2] + (oh, ow), dtype=np.float64)
    for i in range(oh):
        h0, h1 = i * h // oh, -(-(i + 1) * h // oh)
        for j in range(ow):
            w0, w1 = j * w // ow, -(-(j + 1) * w // ow)
            out[..., i, j] = x[..., h0:h1, w0:w1].astype(np.float64).mean(axis=(-1, -2))
    return out.astype(x.dtype)


def _np_adaptive_avg_pool1d(x, output_size):
    size = output_size[0] if isinstance(output_size, tuple) else output_size
    return _np_adaptive_avg_pool2d(x[..., None, :], (1, size))[..., 0, :]


def _sample_adaptive_avg_pool2d(dtype, rng):
    for shape, size in (((2, 3, 7, 5), (3, 2)), ((3, 6, 6), 4), ((1, 2, 3, 3), (5, 7)),
                        ((2, 3, 7, 5), (None, 2)), ((2, 1, 4, 4), 1), ((0, 3, 4, 5), (2, 2))):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), size))


def _sample_adaptive_avg_pool1d(dtype, rng):
    for shape, size in (((2, 3, 10), 4), ((3, 7), (3,)), ((2, 3, 4), 7), ((0, 3, 4), 2)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), size))


def _np_softmax(x, dim, log=False):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return np.zeros(()) if log else np.ones(())
    shifted = x - x.max(dim, keepdims=True) if x.size else x
    total = np.exp(shifted).sum(dim, keepdims=True)
    return shifted - np.log(total) if log else np.exp(shifted) / total


def _sample_softmax(dtype, rng):
    for shape, dim in (((3, 4), 1), ((2, 3, 4), 0), ((5,), -1), ((), 0), ((2, 1, 3), -2), ((0, 3), 1)):
        yield SampleInput((_arg(shape, dtype, rng, (-4, 4)), dim))


def _np_glu(x, dim=-1):
    a, b = np.split(x, 2, axis=dim)
    return a / (1 + np.exp(-b))


def _sample_glu(dtype, rng):
    for shape, args in (((3, 4), ()), ((2, 6, 3), (1,)), ((4,), (0,)), ((0, 2), ())):
        yield SampleInput((_arg(shape, dtype, rng, (-4, 4)),) + args)


def _np_embedding(weight, indices, padding_idx=None):
    return weight[indices.astype(np.int64)]


def _sample_embedding(dtype, rng):
    # The weight comes first: the table's tensor of the row's dtype is the first argument.
    weight = _arg((5, 3), dtype, rng, (None, None))
    yield SampleInput((weight, rng.integers(0, 5, (4,))))
    yield SampleInput((weight, rng.integers(0, 5, (2, 3))), {"padding_idx": 1})
    yield SampleInput((weight, np.array(3)))
    yield SampleInput((weight, np.zeros((0, 2), dtype=np.int64)))


def _embedding(weight, indices, **kwargs):
    return _F.embedding(indices, weight, **kwargs)


def _windows(x, k, s, p, d, ceil_mode, pad_value):
    """``(i, j, window, (oh, ow))`` for each output position: its window of (..., H, W) ``x``
    padded with ``pad_value``, and the output's size."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    h, w = x.shape[-2:]

    def size(n, k, s, p, d):
        span = n + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        return out - 1 if ceil_mode and (out - 1) * s >= n + p else out
    oh, ow = size(h, kh, sh, ph, dh), size(w, kw, sw, pw, dw)
    # Enough padding on the far side for ceil_mode windows.
    padded = np.pad(x.astype(np.float64), [(0, 0)] * (x.ndim - 2) + [(ph, ph + sh * kh), (pw, pw + sw * kw)],
                    constant_values=pad_value)
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * sh, i * sh + dh * (kh - 1) + 1, dh)
            cols = slice(j * sw, j * sw + dw * (kw - 1) + 1, dw)
            yield i, j, padded[..., rows, cols], (oh, ow)


def _pool_args(kernel_size, stride, padding, dilation=1):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)
    k = pair(kernel_size)
    return k, pair(stride) if stride else k, pair(padding), pair(dilation)


def _np_max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k, s, p, d = _pool_args(kernel_size, stride, padding, dilation)
    out = None
    for i, j, window, (oh, ow) in _windows(x, k, s, p, d, ceil_mode, -np.inf):
        if out is None:
            out = np.empty(x.shape[:-2] + (oh, ow))
        out[..., i, j] = window.max((-1, -2))
    return out


def _np_avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                   divisor_override=None):
    k, s, p, _ = _pool_args(kernel_size, stride, padding)
    (kh, kw), (sh, sw), (ph, pw) = k, s, p
    h, w = x.shape[-2:]
    out = None
    for i, j, window, (oh, ow) in _windows(x, k, s, p, (1, 1), ceil_mode, 0.0):
        if out is None:
            out = np.empty(x.shape[:-2] + (oh, ow))
        # PyTorch's divisor: the window clipped to the padded input, or to the input itself.
        h0, w0 = i * sh - ph, j * sw - pw
        h1, w1 = min(h0 + kh, h + ph), min(w0 + kw, w + pw)
        if count_include_pad:
            n = (h1 - h0) * (w1 - w0)
        else:
            n = (min(h1, h) - max(h0, 0)) * (min(w1, w) - max(w0, 0))
        total = window.sum((-1, -2))
        div = divisor_override or n
        out[..., i, j] = np.trunc(total / div) if x.dtype.kind in "iu" else total / div
    return out


def _sample_pool(dtype, rng, *, max_pool):
    cases = [((2, 3, 6, 5), (2,), {}), ((3, 7, 6), ((3, 2), (2, 1), 1), {}), ((1, 2, 5, 5), (3, 2, 1), {"ceil_mode": True}),
             ((0, 2, 4, 4), (2,), {})]
    if max_pool:
        cases.append(((2, 2, 7, 7), (3, 2, 1, 2), {}))
    else:
        cases += [((1, 2, 5, 5), (3, 2, 1), {"count_include_pad": False, "ceil_mode": True}),
                  ((2, 4, 4), (2, 1), {"divisor_override": 3})]
    for shape, args, kw in cases:
        yield SampleInput((_arg(shape, dtype, rng, (-4, 4)),) + args, kw)


_F = numgrad.nn.functional
_POOL = dict(method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction",
             tolerances={"float16": (1e-2, 1e-3)})
_NN = dict(method=None, inplace=None, supports_out=False, torch_name=None)
ROWS = [
    OpInfo("softmax", numgrad.softmax, _np_softmax, _sample_softmax, FLOAT_DTYPES, inplace=None, supports_out=False,
           kind="reduction", tolerances={"float16": (1e-2, 1e-3)}),
    OpInfo("log_softmax", numgrad.log_softmax, lambda x, dim: _np_softmax(x, dim, log=True), _sample_softmax,
           FLOAT_DTYPES, inplace=None, supports_out=False, kind="reduction", tolerances={"float16": (1e-2, 1e-2)}),
    OpInfo("glu", _F.glu, _np_glu, _sample_glu, FLOAT_DTYPES, tolerances={"float16": (1e-2, 1e-3)}, kind="composite",
           **_NN),
    OpInfo("embedding", _embedding, _np_embedding, _sample_embedding, ALL_DTYPES, kind="movement", **_NN),
    OpInfo("max_pool2d", _F.max_pool2d, _np_max_pool2d, partial(_sample_pool, max_pool=True),
           INT_DTYPES + FLOAT_DTYPES, **_POOL),
    OpInfo("avg_pool2d", _F.avg_pool2d, _np_avg_pool2d, partial(_sample_pool, max_pool=False),
           ("int64",) + FLOAT_DTYPES, **_POOL),
    OpInfo("adaptive_avg_pool2d", _F.adaptive_avg_pool2d, _np_adaptive_avg_pool2d, _sample_adaptive_avg_pool2d,
           FLOAT_DTYPES, **_POOL),
    OpInfo("adaptive_avg_pool1d", _F.adaptive_avg_pool1d, _np_adaptive_avg_pool1d, _sample_adaptive_avg_pool1d,
           FLOAT_DTYPES, **_POOL),
]
