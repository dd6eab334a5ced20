"""The table's rows for the convolution and pooling functions of numgrad.nn.functional beyond
2-D: conv3d, the transposed convolutions, 3-D, adaptive max and Lp pooling, max unpooling.

The NumPy references walk kernel taps (convolutions) or output cells (pooling) one at a time:
slow, plain and independent of the windows the library builds."""
import itertools

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _unbatched_too(ref):
    """``ref`` of batched inputs, also taking an input without its batch dim."""
    def wrapped(x, w, *args, **kwargs):
        if x.ndim == w.ndim - 1:
            return ref(x[None], w, *args, **kwargs)[0]
        return ref(x, w, *args, **kwargs)
    return wrapped


@_unbatched_too
def _np_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    n = w.ndim - 2
    s, p, d = _tuple(stride, n), _tuple(padding, n), _tuple(dilation, n)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    out_size = [(xp.shape[2 + i] - d[i] * (w.shape[2 + i] - 1) - 1) // s[i] + 1 for i in range(n)]
    O, Cg = w.shape[:2]
    Og = O // groups
    out = np.zeros((x.shape[0], O) + tuple(out_size))
    for k in range(groups):
        xs, ws = xp[:, k * Cg:(k + 1) * Cg], w[k * Og:(k + 1) * Og]
        for tap in itertools.product(*(range(m) for m in w.shape[2:])):
            window = xs[(slice(None), slice(None)) + tuple(
                slice(t * d[i], t * d[i] + s[i] * (out_size[i] - 1) + 1, s[i]) for i, t in enumerate(tap))]
            out[:, k * Og:(k + 1) * Og] += np.einsum("nc...,oc->no...", window, ws[(Ellipsis,) + tap])
    return out if b is None else out + b.reshape((1, -1) + (1,) * n)


@_unbatched_too
def _np_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    n = w.ndim - 2
    s, p, op, d = (_tuple(v, n) for v in (stride, padding, output_padding, dilation))
    grid = x.shape[2:]
    full = [(grid[i] - 1) * s[i] + d[i] * (w.shape[2 + i] - 1) + 1 + op[i] for i in range(n)]
    Cg, Og = w.shape[0] // groups, w.shape[1]
    out = np.zeros((x.shape[0], Og * groups) + tuple(full))
    for k in range(groups):
        xs, ws = x[:, k * Cg:(k + 1) * Cg], w[k * Cg:(k + 1) * Cg]
        for tap in itertools.product(*(range(m) for m in w.shape[2:])):
            index = (slice(None), slice(k * Og, (k + 1) * Og)) + tuple(
                slice(t * d[i], t * d[i] + s[i] * (grid[i] - 1) + 1, s[i]) for i, t in enumerate(tap))
            out[index] += np.einsum("nc...,co->no...", xs, ws[(Ellipsis,) + tap])
    out = out[(slice(None), slice(None)) + tuple(slice(p[i], full[i] - p[i]) for i in range(n))]
    return out if b is None else out + b.reshape((1, -1) + (1,) * n)


def _cells(x, n, bounds):
    """out[..., cell] = f over the input box ``bounds(cell)`` of each output cell."""
    def run(size, reduce):
        out = np.empty(x.shape[:-n] + tuple(size))
        for cell in itertools.product(*(range(m) for m in size)):
            out[(Ellipsis,) + cell] = reduce(bounds(cell))
        return out
    return run


def _np_pool3d(x, kernel_size, stride=None, padding=0, reduce="max", count_include_pad=True):
    k = _tuple(kernel_size, 3)
    s = k if stride is None else _tuple(stride, 3)
    p = _tuple(padding, 3)
    size = [(x.shape[-3 + i] + 2 * p[i] - k[i]) // s[i] + 1 for i in range(3)]

    def box(cell):
        lo = [c * s[i] - p[i] for i, c in enumerate(cell)]
        return lo, [lo[i] + k[i] for i in range(3)]

    def pooled(b):
        lo, hi = b
        clip = tuple(slice(max(a, 0), min(e, x.shape[-3 + i])) for i, (a, e) in enumerate(zip(lo, hi)))
        window = x[(Ellipsis,) + clip]
        if reduce == "max":
            return window.max(axis=(-3, -2, -1))
        extents = [e - a for a, e in zip(lo, hi)] if count_include_pad else \
            [min(e, x.shape[-3 + i]) - max(a, 0) for i, (a, e) in enumerate(zip(lo, hi))]
        taps = np.prod(extents)
        return window.sum(axis=(-3, -2, -1)) / taps
    return _cells(x, 3, box)(size, pooled)


def _np_max_pool3d(x, kernel_size, stride=None, padding=0):
    return _np_pool3d(x, kernel_size, stride, padding, "max")


def _np_avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _np_pool3d(x, kernel_size, stride, padding, "avg", count_include_pad)


def _np_adaptive(x, output_size, n, reduce):
    size = _tuple(output_size, n)
    size = [x.shape[-n + i] if m is None else m for i, m in enumerate(size)]

    def box(cell):
        shape = x.shape[-n:]
        return tuple(slice(c * shape[i] // size[i], -(-(c + 1) * shape[i] // size[i])) for i, c in enumerate(cell))
    axes = tuple(range(-n, 0))
    return _cells(x, n, box)(size, lambda b: reduce(x[(Ellipsis,) + b], axis=axes))


def _np_adaptive_max(n):
    return lambda x, output_size: _np_adaptive(x, output_size, n, np.max)


def _np_adaptive_avg_pool3d(x, output_size):
    return _np_adaptive(x, output_size, 3, np.mean)


def _np_lp_pool(n):
    def ref(x, norm_type, kernel_size, stride=None):
        k = _tuple(kernel_size, n)
        s = k if stride is None else _tuple(stride, n)
        size = [(x.shape[-n + i] - k[i]) // s[i] + 1 for i in range(n)]

        def box(cell):
            return tuple(slice(c * s[i], c * s[i] + k[i]) for i, c in enumerate(cell))
        axes = tuple(range(-n, 0))
        return _cells(x, n, box)(size, lambda b: (x[(Ellipsis,) + b] ** norm_type).sum(axis=axes) ** (1 / norm_type))
    return ref


def _np_max_unpool(n):
    def ref(x, indices, kernel_size, stride=None, padding=0):
        k = _tuple(kernel_size, n)
        s = k if stride is None else _tuple(stride, n)
        size = tuple((x.shape[-n + i] - 1) * s[i] - 2 * _tuple(padding, n)[i] + k[i] for i in range(n))
        lead = x.shape[:-n]
        planes = x.reshape(-1, int(np.prod(x.shape[-n:])))
        out = np.zeros((planes.shape[0], int(np.prod(size))), dtype=x.dtype)
        for r, (vals, idx) in enumerate(zip(planes, indices.astype(np.int64).reshape(planes.shape[0], -1))):
            out[r, idx] = vals
        return out.reshape(lead + size)
    return ref


def _sample_conv3d(dtype, rng):
    for xs, ws, kw in (((2, 4, 3, 4, 3), (2, 2, 2, 1, 2), dict(stride=(1, 2, 1), padding=1, groups=2)),
                       ((2, 3, 3, 3), (2, 2, 2, 2, 2), dict(dilation=(1, 2, 1), padding=(0, 1, 1))),
                       ((0, 2, 3, 3, 3), (2, 2, 2, 2, 2), {})):
        yield SampleInput((_arg(xs, dtype, rng, (None, None)), _arg(ws, dtype, rng, (None, None)),
                           _arg(ws[:1], dtype, rng, (None, None))), kw)


def _sample_conv_transpose(n):
    cases = {1: (((2, 4, 3), (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
                 ((3, 4), (3, 2, 2), dict(dilation=2))),
             2: (((2, 4, 3, 2), (4, 2, 3, 2), dict(stride=(2, 1), padding=1, output_padding=(1, 0), groups=2)),
                 ((3, 3, 2), (3, 2, 2, 2), dict(stride=2, dilation=2, output_padding=1)),
                 ((0, 2, 3, 3), (2, 1, 2, 2), {})),
             3: (((1, 2, 2, 3, 2), (2, 2, 2, 1, 2), dict(stride=(1, 2, 2), padding=(0, 1, 0))),
                 ((2, 2, 2, 2), (2, 1, 2, 2, 2), dict(stride=2, output_padding=1)))}[n]

    def sample(dtype, rng):
        for xs, ws, kw in cases:
            bias = _arg((ws[1] * kw.get("groups", 1),), dtype, rng, (None, None))
            yield SampleInput((_arg(xs, dtype, rng, (None, None)), _arg(ws, dtype, rng, (None, None)), bias), kw)
    return sample


def _sample_pool3d(with_pad):
    def sample(dtype, rng):
        for shape, args, kw in (((2, 2, 4, 5, 4), (2,), {}), ((2, 3, 4, 4), (3, 2, 1), {}),
                                ((1, 2, 4, 4, 5), ((2, 3, 2), (1, 2, 2)), {})):
            if with_pad and len(args) == 3:
                kw = dict(count_include_pad=False) if with_pad == "avg" else kw
            yield SampleInput((_arg(shape, dtype, rng, (None, None)),) + args, kw)
    return sample


def _sample_adaptive(n):
    def sample(dtype, rng):
        shapes = {1: ((2, 3, 7), (3, 5)), 2: ((2, 3, 7, 5), (3, 4, 4)), 3: ((2, 2, 4, 5, 3), (2, 3, 3, 4))}[n]
        sizes = {1: (3, 2), 2: ((3, None), 3), 3: ((2, 3, None), 2)}[n]
        for shape, size in zip(shapes, sizes):
            yield SampleInput((_arg(shape, dtype, rng, (None, None)), size))
    return sample


def _sample_lp(n):
    def sample(dtype, rng):
        shapes = {1: (2, 3, 6), 2: (2, 3, 4, 5), 3: (2, 2, 4, 4, 3)}[n]
        yield SampleInput((_arg(shapes, dtype, rng, (0.5, 2.0)), 2.0, 2))
        yield SampleInput((_arg(shapes[1:], dtype, rng, (0.5, 2.0)), 3.0, 2, 1))
    return sample


def _sample_unpool(n):
    def sample(dtype, rng):
        for grid in ((2, 3, 2)[:n], (1, 2, 2)[:n]):
            x = _arg((2, 2) + grid, dtype, rng, (None, None))
            volume = int(np.prod([2 * g for g in grid]))
            indices = np.stack([rng.permutation(volume)[:int(np.prod(grid))] for _ in range(4)])
            yield SampleInput((x, indices.reshape(x.shape).astype(np.int64), 2))
    return sample


_F = numgrad.nn.functional
_ROW = dict(method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction",
            tolerances={"float16": (1e-2, 1e-2)})
ROWS = [
    OpInfo("conv3d", _F.conv3d, _np_conv, _sample_conv3d, FLOAT_DTYPES, **_ROW),
    OpInfo("conv_transpose1d", _F.conv_transpose1d, _np_conv_transpose, _sample_conv_transpose(1), FLOAT_DTYPES,
           **_ROW),
    OpInfo("conv_transpose2d", _F.conv_transpose2d, _np_conv_transpose, _sample_conv_transpose(2), FLOAT_DTYPES,
           **_ROW),
    OpInfo("conv_transpose3d", _F.conv_transpose3d, _np_conv_transpose, _sample_conv_transpose(3), FLOAT_DTYPES,
           **_ROW),
    OpInfo("max_pool3d", _F.max_pool3d, _np_max_pool3d, _sample_pool3d(False), FLOAT_DTYPES, **_ROW),
    OpInfo("avg_pool3d", _F.avg_pool3d, _np_avg_pool3d, _sample_pool3d("avg"), FLOAT_DTYPES, **_ROW),
    OpInfo("adaptive_avg_pool3d", _F.adaptive_avg_pool3d, _np_adaptive_avg_pool3d, _sample_adaptive(3),
           FLOAT_DTYPES, **_ROW),
    OpInfo("adaptive_max_pool1d", _F.adaptive_max_pool1d, _np_adaptive_max(1), _sample_adaptive(1), FLOAT_DTYPES,
           **_ROW),
    OpInfo("adaptive_max_pool2d", _F.adaptive_max_pool2d, _np_adaptive_max(2), _sample_adaptive(2), FLOAT_DTYPES,
           **_ROW),
    OpInfo("adaptive_max_pool3d", _F.adaptive_max_pool3d, _np_adaptive_max(3), _sample_adaptive(3), FLOAT_DTYPES,
           **_ROW),
    OpInfo("lp_pool1d", _F.lp_pool1d, _np_lp_pool(1), _sample_lp(1), FLOAT_DTYPES, **_ROW),
    OpInfo("lp_pool2d", _F.lp_pool2d, _np_lp_pool(2), _sample_lp(2), FLOAT_DTYPES, **_ROW),
    OpInfo("lp_pool3d", _F.lp_pool3d, _np_lp_pool(3), _sample_lp(3), FLOAT_DTYPES, **_ROW),
    OpInfo("max_unpool1d", _F.max_unpool1d, _np_max_unpool(1), _sample_unpool(1), FLOAT_DTYPES, **_ROW),
    OpInfo("max_unpool2d", _F.max_unpool2d, _np_max_unpool(2), _sample_unpool(2), FLOAT_DTYPES, **_ROW),
    OpInfo("max_unpool3d", _F.max_unpool3d, _np_max_unpool(3), _sample_unpool(3), FLOAT_DTYPES, **_ROW),
]
