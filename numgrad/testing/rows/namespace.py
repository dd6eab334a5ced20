"""The table's rows for the functions of the top-level namespace that no other family holds:
the out-of-place scatters through views, the copying views, constant_pad_nd, convolution and
grid_sampler with ATen's signatures, gcd, lcm and the incomplete gamma functions."""
import math

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES, INT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg
from .builders import _binary
from .conv import _np_conv, _np_conv_transpose
from .sampling import _np_grid_sample

def _np_slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    out = np.array(x, copy=True)
    out[(slice(None),) * (dim % x.ndim) + (slice(start, end, step),)] = src
    return out


def _np_select_scatter(x, src, dim, index):
    out = np.array(x, copy=True)
    out[(slice(None),) * (dim % x.ndim) + (index,)] = src
    return out


def _np_diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    out = np.array(x, copy=True)
    view = np.moveaxis(out, (dim1 % x.ndim, dim2 % x.ndim), (-2, -1))
    rows = np.arange(src.shape[-1]) + max(-offset, 0)
    view[..., rows, rows + offset] = src
    return out


def _np_as_strided_scatter(x, src, size, stride, storage_offset=0):
    out = np.array(x, copy=True).reshape(-1)
    positions = storage_offset + sum(np.arange(n).reshape((-1,) + (1,) * (len(size) - i - 1)) * s
                                     for i, (n, s) in enumerate(zip(size, stride)))
    out[positions] = src
    return out.reshape(x.shape)


def _sample_slice_scatter(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((4, 5)), arg((4, 2)), 1, 1, 5, 2))
    yield SampleInput((arg((4, 5)), arg((2, 5))), {"start": 2})
    yield SampleInput((arg((3, 2, 4)), arg((3, 2, 0)), -1, 2, 2))
    yield SampleInput((arg((0, 3)), arg((0, 3)), 0))


def _sample_select_scatter(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((4, 5)), arg((4,)), 1, 3))
    yield SampleInput((arg((3, 2, 4)), arg((2, 4)), 0, -1))


def _sample_diagonal_scatter(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((4, 5)), arg((4,))))
    yield SampleInput((arg((4, 5)), arg((3,)), -1))
    yield SampleInput((arg((2, 3, 4)), arg((4, 2)), 1, 0, 1))


def _sample_as_strided_scatter(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((3, 4)), arg((2, 2)), (2, 2), (1, 4), 1))
    yield SampleInput((arg((6,)), arg((3,)), (3,), (2,)))


def _np_constant_pad_nd(x, pad, value=0):
    widths = [(0, 0)] * (x.ndim - len(pad) // 2) + [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)][::-1]
    return np.pad(x, widths, constant_values=value)


def _np_diagonal_copy(x, offset=0, dim1=0, dim2=1):
    return np.diagonal(x, offset, dim1, dim2).copy()


def _sample_constant_pad_nd(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)), [1, 2]))
    yield SampleInput((arg((2, 3, 4)), [0, 1, 2, 0], 1))
    yield SampleInput((arg((0, 3)), [1, 1]))


def _sample_diagonal_copy(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((4, 5)),))
    yield SampleInput((arg((4, 5)), -1))
    yield SampleInput((arg((2, 3, 4)), 1, 2, 0))
    yield SampleInput((arg((0, 3)),))


def _np_convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        return _np_conv_transpose(x, w, b, stride, padding, output_padding, groups, dilation)
    return _np_conv(x, w, b, stride, padding, dilation, groups)


def _sample_convolution(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 4, 7)), arg((4, 2, 3)), arg((4,)), [2], [1], [1], False, [0], 2))
    if dtype in FLOAT_DTYPES:
        # Transposed convolutions have floating kernels only, as in PyTorch.
        yield SampleInput((arg((1, 2, 4, 3)), arg((2, 3, 2, 2)), None, [2, 1], [1, 0], [1, 1], True, [1, 0], 1))


def _np_grid_sampler(x, grid, interpolation_mode, padding_mode, align_corners):
    return _np_grid_sample(x, grid, ("bilinear", "nearest")[interpolation_mode], ("zeros", "border")[padding_mode],
                           align_corners)


def _sample_grid_sampler(spatial):
    def sample(dtype, rng):
        for modes in ((0, 0, False), (0, 1, True), (1, 0, False)):
            x = _arg((2, 2) + (3,) * spatial, dtype, rng, (None, None))
            grid = _arg((2,) + (2,) * spatial + (spatial,), dtype, rng, (-1.2, 1.2))
            yield SampleInput((x, grid) + modes)
    return sample


_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _np_igamma(a, x):
    """P(a, x) from its power series x**a e**-x / Gamma(a) * sum_n x**n / (a (a + 1) ... (a + n)),
    summed far enough for the sampled x <= 5."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    term = 1.0 / a
    total = term.copy()
    for n in range(1, 120):
        term = term * x / (a + n)
        total = total + term
    with np.errstate(divide="ignore"):
        return total * np.exp(a * np.log(x) - x - _lgamma(a))


def _np_igammac(a, x):
    return 1.0 - _np_igamma(a, x)


def _scatter_row(name, ref, sampler, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, sampler, inplace=None, kind="movement", **kw)


ROWS = [
    _scatter_row("slice_scatter", _np_slice_scatter, _sample_slice_scatter),
    _scatter_row("select_scatter", _np_select_scatter, _sample_select_scatter),
    _scatter_row("diagonal_scatter", _np_diagonal_scatter, _sample_diagonal_scatter),
    _scatter_row("as_strided_scatter", _np_as_strided_scatter, _sample_as_strided_scatter,
                 xfails={"noncontiguous": "the positions written are in the memory of a copy laid out as the "
                                          "input is, so they depend on the input's strides (as in PyTorch)"}),
    OpInfo("constant_pad_nd", numgrad.constant_pad_nd, _np_constant_pad_nd, _sample_constant_pad_nd, method=None,
           inplace=None, supports_out=False, kind="movement"),
    OpInfo("diagonal_copy", numgrad.diagonal_copy, _np_diagonal_copy, _sample_diagonal_copy, method=None,
           inplace=None, kind="movement"),
    OpInfo("convolution", numgrad.convolution, _np_convolution, _sample_convolution, INT_DTYPES + FLOAT_DTYPES,
           method=None,
           inplace=None, supports_out=False, torch_name=None, kind="reduction", tolerances={"float16": (1e-2, 1e-2)}),
    # Second derivatives that reach the grid through the grid's cotangent are not implemented.
    OpInfo("grid_sampler_2d", numgrad.grid_sampler_2d, _np_grid_sampler, _sample_grid_sampler(2), FLOAT_DTYPES,
           method=None, inplace=None, supports_out=False, supports_gradgrad=False, torch_name=None, kind="reduction",
           tolerances={"float16": (1e-2, 1e-2)}),
    OpInfo("grid_sampler_3d", numgrad.grid_sampler_3d, _np_grid_sampler, _sample_grid_sampler(3), FLOAT_DTYPES,
           method=None, inplace=None, supports_out=False, supports_gradgrad=False, torch_name=None, kind="reduction",
           tolerances={"float16": (1e-2, 1e-2)}),
    _binary("igamma", _np_igamma, dtypes=FLOAT_DTYPES, domains=((0.5, 5), (0.1, 5)), grad=False,
            sample_kw={"other_dtype_rhs": False, "scalar_rhs": False}, tolerances={"float16": (1e-2, 1e-3)}),
    _binary("igammac", _np_igammac, dtypes=FLOAT_DTYPES, domains=((0.5, 5), (0.1, 5)), grad=False,
            sample_kw={"other_dtype_rhs": False, "scalar_rhs": False}, tolerances={"float16": (1e-2, 1e-3)}),
    _binary("gcd", np.gcd, dtypes=INT_DTYPES, grad=False, sample_kw={"other_dtype_rhs": False, "scalar_rhs": False}),
    _binary("lcm", np.lcm, dtypes=INT_DTYPES, grad=False, sample_kw={"other_dtype_rhs": False, "scalar_rhs": False}),
]
