"""The table's rows for the functions of ``numgrad.nn.functional`` beyond the activations:
pooling (more layers' functions join here)."""
import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES
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


_F = numgrad.nn.functional
_POOL = dict(method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction",
             tolerances={"float16": (1e-2, 1e-3)})
ROWS = [
    OpInfo("adaptive_avg_pool2d", _F.adaptive_avg_pool2d, _np_adaptive_avg_pool2d, _sample_adaptive_avg_pool2d,
           FLOAT_DTYPES, **_POOL),
    OpInfo("adaptive_avg_pool1d", _F.adaptive_avg_pool1d, _np_adaptive_avg_pool1d, _sample_adaptive_avg_pool1d,
           FLOAT_DTYPES, **_POOL),
]
