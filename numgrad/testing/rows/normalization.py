"""The table's rows for the normalization functions of numgrad.nn.functional, and for
embedding_bag."""
import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..references import _ints
from ..samplers import _arg


def _np_normalized(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def _channel_shaped(p, ndim):
    return p.reshape((1, -1) + (1,) * (ndim - 2))


def _np_group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    grouped = x.reshape(x.shape[0], num_groups, -1) if x.size else x
    out = _np_normalized(grouped, 2, eps).reshape(x.shape) if x.size else x
    if weight is not None:
        out = out * _channel_shaped(weight, x.ndim)
    return out + _channel_shaped(bias, x.ndim) if bias is not None else out


def _np_instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, eps=1e-5):
    out = _np_normalized(x, tuple(range(2, x.ndim)), eps)
    if weight is not None:
        out = out * _channel_shaped(weight, x.ndim)
    return out + _channel_shaped(bias, x.ndim) if bias is not None else out


def _np_rms_norm(x, normalized_shape, weight=None, eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    out = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return out * weight if weight is not None else out


def _np_local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    C = x.shape[1]
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    window = sum(sq[:, j:j + C] for j in range(size))
    return x / (k + alpha * window / size) ** beta


def _np_embedding_bag(weight, input, offsets=None, per_sample_weights=None, mode="mean", padding_idx=None):
    (idx,) = _ints(input)
    if idx.ndim == 2:
        bags = list(idx)
        psw = list(per_sample_weights) if per_sample_weights is not None else None
    else:
        (offs,) = _ints(offsets)
        ends = list(offs[1:]) + [idx.shape[0]]
        bags = [idx[s:e] for s, e in zip(offs, ends)]
        psw = [per_sample_weights[s:e] for s, e in zip(offs, ends)] if per_sample_weights is not None else None
    out = np.zeros((len(bags), weight.shape[1]))
    for b, bag in enumerate(bags):
        keep = bag != padding_idx if padding_idx is not None else np.ones(bag.shape, bool)
        rows = weight[bag[keep]]
        if psw is not None:
            rows = rows * psw[b][keep][:, None]
        if rows.shape[0]:
            out[b] = rows.max(0) if mode == "max" else rows.sum(0) / (rows.shape[0] if mode == "mean" else 1)
    return out


def _sample_group_norm(dtype, rng):
    a = lambda shape: _arg(shape, dtype, rng, (None, None))  # noqa: E731
    yield SampleInput((a((2, 4, 3)), 2, a((4,)), a((4,))))
    yield SampleInput((a((3, 6)), 3), {"eps": 1e-3})
    yield SampleInput((a((2, 2, 3, 2, 2)), 1, a((2,))))
    yield SampleInput((a((0, 4, 3)), 2))


def _sample_instance_norm(dtype, rng):
    a = lambda shape: _arg(shape, dtype, rng, (None, None))  # noqa: E731
    yield SampleInput((a((2, 3, 4)),), {"eps": 1e-3})
    yield SampleInput((a((2, 2, 3, 2)), None, None, a((2,)), a((2,))))
    yield SampleInput((a((1, 2, 2, 2, 3)),))


def _sample_rms_norm(dtype, rng):
    a = lambda shape: _arg(shape, dtype, rng, (None, None))  # noqa: E731
    yield SampleInput((a((2, 3, 4)), (4,), a((4,))), {"eps": 1e-5})
    yield SampleInput((a((2, 3, 4)), (3, 4)), {"eps": 1e-3})
    yield SampleInput((a((3, 5)), [5], a((5,))), {"eps": 0.1})
    yield SampleInput((a((0, 4)), (4,)), {"eps": 1e-5})


def _sample_local_response_norm(dtype, rng):
    a = lambda shape: _arg(shape, dtype, rng, (None, None))  # noqa: E731
    yield SampleInput((a((2, 5, 3)), 3))
    yield SampleInput((a((2, 4, 3, 2)), 2), {"alpha": 0.1, "beta": 0.5, "k": 2.0})
    yield SampleInput((a((1, 3, 2, 2, 2)), 4), {"alpha": 0.2})


def _sample_embedding_bag(dtype, rng):
    a = lambda shape: _arg(shape, dtype, rng, (None, None))  # noqa: E731
    idx = np.array([1, 4, 4, 0, 2, 4, 3])
    offsets = np.array([0, 3, 3, 5])
    yield SampleInput((a((5, 3)), idx, offsets), {"mode": "mean"})
    yield SampleInput((a((5, 3)), idx, offsets, a((7,))), {"mode": "sum"})
    yield SampleInput((a((5, 2)), idx, offsets), {"mode": "max", "padding_idx": 2})
    yield SampleInput((a((6, 3)), np.array([[0, 5, 2], [3, 3, 1]])), {"mode": "sum", "padding_idx": 3})


def _embedding_bag(weight, input, offsets=None, per_sample_weights=None, **kwargs):
    # The table's first argument is the floating one; PyTorch's takes the indices first.
    return numgrad.nn.functional.embedding_bag(input, weight, offsets, per_sample_weights=per_sample_weights,
                                               **kwargs)


_F = numgrad.nn.functional
_NORM = dict(method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction",
             tolerances={"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-5)})
ROWS = [
    OpInfo("group_norm", _F.group_norm, _np_group_norm, _sample_group_norm, FLOAT_DTYPES, **_NORM),
    OpInfo("instance_norm", _F.instance_norm, _np_instance_norm, _sample_instance_norm, FLOAT_DTYPES, **_NORM),
    OpInfo("rms_norm", _F.rms_norm, _np_rms_norm, _sample_rms_norm, FLOAT_DTYPES, **_NORM),
    OpInfo("local_response_norm", _F.local_response_norm, _np_local_response_norm, _sample_local_response_norm,
           FLOAT_DTYPES, **_NORM),
    OpInfo("embedding_bag", _embedding_bag, _np_embedding_bag, _sample_embedding_bag, FLOAT_DTYPES, **_NORM),
]
