"""The table's rows for the sampling functions of numgrad.nn.functional: interpolate, grid_sample,
affine_grid and the pixel and channel shuffles, with NumPy references written out as loops."""
import itertools
import math

import numpy as np

import numgrad

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg

_HALF = {"float16": (1e-2, 1e-2)}


def _source_matrix(n_in, n_out, mode, scale, align_corners):
    """(n_out, n_in) weights of 1-D resizing, from the definitions of the modes."""
    m = np.zeros((n_out, n_in))
    ratio = 1 / scale if scale else n_in / n_out
    for j in range(n_out):
        if mode == "nearest":
            m[j, min(int(math.floor(j * ratio)), n_in - 1)] = 1
        elif mode == "nearest-exact":
            m[j, min(int(math.floor((j + 0.5) * ratio)), n_in - 1)] = 1
        elif mode == "area":
            lo, hi = j * n_in // n_out, -(-(j + 1) * n_in // n_out)
            m[j, lo:hi] = 1 / (hi - lo)
        else:
            if align_corners:
                src = j * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            else:
                src = max((j + 0.5) * ratio - 0.5, 0.0)
            lo = min(int(math.floor(src)), n_in - 1)
            frac = min(src - lo, 1.0)
            m[j, lo] += 1 - frac
            m[j, min(lo + 1, n_in - 1)] += frac
    return m


def _np_interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None):
    k = x.ndim - 2
    scales = [scale_factor] * k if scale_factor is not None else [None] * k
    sizes = [size] * k if isinstance(size, int) else size
    out = x.astype(np.float64)
    for d in range(k):
        n_in = x.shape[2 + d]
        n_out = sizes[d] if sizes is not None else int(n_in * scales[d])
        scale = None if mode == "area" else scales[d]
        m = _source_matrix(n_in, n_out, mode, scale, align_corners)
        out = np.moveaxis(np.tensordot(m, np.moveaxis(out, 2 + d, 0), axes=1), 0, 2 + d)
    return out


def _sample_interpolate(dtype, rng):
    cases = [((2, 3, 5), dict(scale_factor=2)), ((2, 2, 4, 3), dict(size=(5, 7))),
             ((1, 2, 3, 2, 4), dict(scale_factor=1.5)), ((0, 2, 3, 3), dict(size=4)),
             ((2, 2, 5, 4), dict(size=(3, 6), mode="nearest-exact"))]
    if dtype in ("float32", "float64", "float16"):
        cases += [((2, 3, 6), dict(size=4, mode="linear")),
                  ((2, 2, 4, 3), dict(scale_factor=2, mode="bilinear", align_corners=False)),
                  ((2, 2, 4, 3), dict(size=(3, 5), mode="bilinear", align_corners=True)),
                  ((1, 2, 3, 2, 3), dict(size=(4, 3, 5), mode="trilinear")),
                  ((2, 2, 7, 5), dict(size=(3, 2), mode="area"))]
    for shape, kwargs in cases:
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), kwargs)


def _np_unnormalize(c, size, align_corners):
    return (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2


def _np_grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    k = len(sizes)
    out = np.zeros((n, c) + grid.shape[1:-1])
    for b in range(n):
        for pos in itertools.product(*(range(s) for s in grid.shape[1:-1])):
            point = [_np_unnormalize(grid[(b,) + pos + (k - 1 - d,)], sizes[d], align_corners) for d in range(k)]
            if padding_mode == "border":
                point = [min(max(p, 0.0), s - 1.0) for p, s in zip(point, sizes)]
            if mode == "nearest":
                taps = [([int(np.rint(p))], [1.0]) for p in point]
            else:
                taps = [([math.floor(p), math.floor(p) + 1], [math.floor(p) + 1 - p, p - math.floor(p)])
                        for p in point]
            for corner in itertools.product(*(range(len(t[0])) for t in taps)):
                where = [taps[d][0][i] for d, i in enumerate(corner)]
                if all(0 <= w < s for w, s in zip(where, sizes)):
                    weight = np.prod([taps[d][1][i] for d, i in enumerate(corner)])
                    out[(b, slice(None)) + pos] += weight * x[(b, slice(None)) + tuple(where)]
    return out


def _sample_grid_sample(dtype, rng):
    for shape, grid, kwargs in (((2, 3, 4, 5), (2, 3, 2, 2), dict(mode="bilinear", padding_mode="zeros")),
                                ((1, 2, 3, 4), (1, 2, 3, 2), dict(mode="bilinear", padding_mode="border",
                                                                  align_corners=True)),
                                ((2, 2, 3, 4), (2, 2, 2, 2), dict(mode="nearest", padding_mode="zeros")),
                                ((1, 2, 2, 3, 3), (1, 2, 1, 2, 3), dict(mode="bilinear", align_corners=False))):
        kwargs.setdefault("align_corners", False)
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), _arg(grid, dtype, rng, (-1.2, 1.2))), kwargs)


def _np_affine_grid(theta, size, align_corners=None):
    axes = []
    for steps in size[2:]:
        axis = np.linspace(-1, 1, steps) if steps > 1 else np.zeros(1)
        axes.append(axis if align_corners or steps <= 1 else axis * (steps - 1) / steps)
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([g for g in reversed(mesh)] + [np.ones_like(mesh[0])], -1)
    return np.einsum("...j,nij->n...i", base, theta)


def _sample_affine_grid(dtype, rng):
    for theta, size, corners in (((2, 2, 3), (2, 3, 4, 5), False), ((1, 2, 3), (1, 1, 3, 3), True),
                                 ((2, 3, 4), (2, 2, 2, 3, 4), False), ((1, 3, 4), (1, 1, 3, 2, 2), True)):
        yield SampleInput((_arg(theta, dtype, rng, (None, None)), size), dict(align_corners=corners))


def _np_pixel_shuffle(x, r):
    *lead, c, h, w = x.shape
    out = np.empty(tuple(lead) + (c // (r * r), h * r, w * r), dtype=x.dtype)
    for ch, i, j in itertools.product(range(c // (r * r)), range(r), range(r)):
        out[..., ch, i::r, j::r] = x[..., ch * r * r + i * r + j, :, :]
    return out


def _np_pixel_unshuffle(x, r):
    *lead, c, h, w = x.shape
    out = np.empty(tuple(lead) + (c * r * r, h // r, w // r), dtype=x.dtype)
    for ch, i, j in itertools.product(range(c), range(r), range(r)):
        out[..., ch * r * r + i * r + j, :, :] = x[..., ch, i::r, j::r]
    return out


def _np_channel_shuffle(x, groups):
    c = x.shape[1]
    order = [g * (c // groups) + j for j in range(c // groups) for g in range(groups)]
    return x[:, order]


def _sample_pixel_shuffle(dtype, rng):
    for shape, r in (((2, 8, 3, 2), 2), ((9, 2, 3), 3), ((2, 1, 4, 2, 2), 2), ((0, 4, 2, 2), 1)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), r))


def _sample_pixel_unshuffle(dtype, rng):
    for shape, r in (((2, 2, 4, 6), 2), ((1, 6, 3), 3), ((2, 1, 2, 4, 2), 2), ((0, 2, 2, 2), 1)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), r))


def _sample_channel_shuffle(dtype, rng):
    for shape, groups in (((2, 6, 3), 2), ((1, 6, 2, 2), 3), ((2, 4, 1, 2, 2), 4), ((0, 4, 3), 2)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), groups))


_F = numgrad.nn.functional
_NN = dict(method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction")
_MOVEMENT = dict(method=None, inplace=None, supports_out=False, kind="movement")
ROWS = [
    OpInfo("interpolate", _F.interpolate, _np_interpolate, _sample_interpolate,
           ("uint8",) + FLOAT_DTYPES, tolerances=_HALF, **_NN),
    # Second derivatives that reach the grid through the grid's cotangent are not implemented.
    OpInfo("grid_sample", _F.grid_sample, _np_grid_sample, _sample_grid_sample, FLOAT_DTYPES, tolerances=_HALF,
           supports_gradgrad=False, **_NN),
    OpInfo("affine_grid", _F.affine_grid, _np_affine_grid, _sample_affine_grid, FLOAT_DTYPES, tolerances=_HALF,
           xfails={"unsupported": "an integral theta raises ValueError, as in PyTorch"}, **_NN),
    OpInfo("pixel_shuffle", _F.pixel_shuffle, _np_pixel_shuffle, _sample_pixel_shuffle, ALL_DTYPES, **_MOVEMENT),
    OpInfo("pixel_unshuffle", _F.pixel_unshuffle, _np_pixel_unshuffle, _sample_pixel_unshuffle, ALL_DTYPES,
           **_MOVEMENT),
    OpInfo("channel_shuffle", _F.channel_shuffle, _np_channel_shuffle, _sample_channel_shuffle, ALL_DTYPES,
           **_MOVEMENT),
]
