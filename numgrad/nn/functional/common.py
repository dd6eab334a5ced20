"""Linear maps, embeddings and tensor utilities: linear, embedding, embedding_bag, one_hot, the dropout
family."""
from __future__ import annotations

import math
import warnings

from ... import dtypes
from ...autograd import tape
from ...creation import arange, arange as _arange, empty, zeros
from ...ops import functional_elementwise as _E
from ...ops.embedding_bag import embedding_bag_op as _embedding_bag_op
from ...ops.linalg import addmm as _addmm, check_addmm_dtypes as _check_addmm_dtypes
from ...ops.records import primitive
from ...ops.gather import index_add, index_select
from ...ops.sorting import bincount
from ...autograd.grad_mode import no_grad
from ...random import bernoulli_
from ...random.factories import empty_in_memory_order
from ...autograd.profiler import op_event

__all__ = ["linear", "bilinear", "embedding", "embedding_bag", "one_hot", "dropout", "alpha_dropout",
           "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "normalize"]


@op_event("aten::linear", autocast="lower")
def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight.T + bias, with ``weight`` of
    shape (out_features, in_features)."""
    if input.ndim == 2 and weight.ndim == 2 and bias is not None:
        return _addmm(bias, input, weight.t())
    if bias is not None and weight.ndim == 2:
        # PyTorch folds any input into an addmm with the bias, and checks its dtypes first.
        _check_addmm_dtypes(bias, input, weight)
    out = input.matmul(weight.t()) if weight.ndim == 2 else input.matmul(weight)
    return out + bias if bias is not None else out


def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor: x1^T A_k x2 + b_k for each output k."""
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + ([("bias", bias)] if bias is not None else [])
    if any(t.dtype is not input1.dtype for _, t in named):
        raise RuntimeError("All tensors must have the same dtype, got "
                           + ", ".join(f"{n}: {dtypes.C_NAMES[t.dtype]}" for n, t in named))
    # (..., i) x (k, i, j) -> (..., k, j), then contract j with input2.
    t = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight).squeeze(-2)
    out = (t * input2.unsqueeze(-2)).sum(-1)
    return out + bias if bias is not None else out


def _embedding_backward(g, shape, indices, padding_idx, scale_grad_by_freq):
    """The rows of ``g`` summed into the rows that ``indices`` picked of a zero tensor of the
    weight's ``shape``; the ``padding_idx`` row gets nothing, and each row is divided by how
    often it was picked when ``scale_grad_by_freq``."""
    idx = indices.reshape(-1)
    rows = g.reshape(idx.shape[0], shape[1])
    if padding_idx is not None:
        rows = rows * (idx != padding_idx).unsqueeze(1)
    if scale_grad_by_freq:
        rows = rows / bincount(idx, minlength=shape[0]).index_select(0, idx).unsqueeze(1)
    return index_add(zeros(shape, dtype=g.dtype, device=g.device), 0, idx, rows)


# The indices are a parameter, not an input: the node's only edge is the weight's, as PyTorch's.
# Forward mode picks the tangent's rows, the padding row's too (PyTorch's is linear in it).
_embedding = primitive(
    "embedding", 1, backward_name="EmbeddingBackward0",
    vjp=(lambda g, ans, w, indices, padding_idx, scale_grad_by_freq: _embedding_backward(
        g, w.shape, indices, padding_idx, scale_grad_by_freq),),
    jvp=(lambda t, ans, w, indices, padding_idx, scale_grad_by_freq: _rows(t, indices),))


def _rows(weight, indices):
    return index_select(weight, 0, indices.reshape(-1)).reshape(tuple(indices.shape) + (weight.shape[1],))


@op_event("aten::embedding")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False)

    The rows of ``weight`` picked by the integer tensor ``input``; the row ``padding_idx``
    receives no gradient, and ``scale_grad_by_freq`` divides each row's gradient by how often
    it was picked."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_index_dtype(input, 1, "indices", "embedding")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if padding_idx is not None:
        if not -weight.shape[0] <= padding_idx < weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += weight.shape[0]
    out = _rows(tape.plain(weight), input)
    return tape.record_result(_embedding, (weight,), out, {"indices": input, "padding_idx": padding_idx,
                                                          "scale_grad_by_freq": scale_grad_by_freq})


def _check_index_dtype(t, position: int, name: str, op: str):
    """PyTorch's error for an index tensor that is neither int64 nor int32."""
    if t.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #{position} '{name}' to have one of the following scalar "
                           f"types: Long, Int; but got {t.type()} instead (while checking arguments for {op})")


def _renorm_rows(weight, input, max_norm, norm_type):
    with no_grad():
        idx = input.reshape(-1)
        rows = index_select(weight, 0, idx)
        norms = (rows.abs() ** norm_type).sum(-1, keepdim=True) ** (1.0 / norm_type)
        scale = _E.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_copy_(0, idx, rows * scale)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2, scale_grad_by_freq: bool = False,
                  mode: str = "mean", sparse: bool = False, per_sample_weights=None, include_last_offset: bool = False,
                  padding_idx=None):
    """embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None)

    Sums, averages or takes the maximum of bags of rows of ``weight``, without building the
    intermediate embeddings: a 2-D ``input`` holds one bag per row, a 1-D one is cut into bags
    starting at ``offsets``. ``per_sample_weights`` scales each row in ``mode='sum'``, and
    entries equal to ``padding_idx`` are left out of their bag."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({_size(per_sample_weights)}) is not None, then it "
                         f"must have the same shape as the input ({_size(input)})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        if input.shape[1] == 0:
            raise RuntimeError("step must be nonzero")
        offsets = _arange(0, input.numel(), input.shape[1], dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    _check_index_dtype(input, 1, "indices", "embedding_bag")
    _check_index_dtype(offsets, 2, "offsets", "embedding_bag")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if padding_idx is not None:
        n = weight.shape[0]
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but "
                               f"got {padding_idx}")
        padding_idx %= n
    return _embedding_bag_op(weight, input, offsets, per_sample_weights, mode, padding_idx, scale_grad_by_freq,
                             include_last_offset)


def _size(t):
    return f"torch.Size({list(t.shape)})"


@op_event("aten::one_hot")
def one_hot(tensor, num_classes: int = -1):
    """one_hot(tensor, num_classes=-1) -> LongTensor: a trailing dim of size ``num_classes`` with
    a 1 at each value's position (``num_classes`` defaults to max + 1)."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel():
        if (tensor < 0).any().item():
            raise RuntimeError("Class values must be non-negative.")
        top = int(tensor.amax().item())
        if num_classes == -1:
            num_classes = top + 1
        elif top >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes == -1:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    return (tensor.unsqueeze(-1) == arange(num_classes, device=tensor.device)).long()


# SELU's -scale * alpha: where alpha dropout sends a dropped unit, so that SELU's
# self-normalising mean and variance survive.
_ALPHA_DROPOUT_VALUE = 1.7580993408473766


def _dropout(input, p: float, training: bool, inplace: bool, feature: bool = False, alpha: bool = False):
    """Dropout of elements (or of whole channels when ``feature``), noise drawn and applied as
    PyTorch does, so that a seed drops the same units."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        out = input * 0.0
        return input.copy_(out) if inplace else out
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = empty(tuple(input.shape[:2]) + (1,) * (input.ndim - 2), dtype=input.dtype, device=input.device)
    else:
        noise = empty_in_memory_order(input, None, None)
    # Kept with probability 1 - p.
    bernoulli_(noise, 1.0 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA_DROPOUT_VALUE * _ALPHA_DROPOUT_VALUE * p + 1) * (1 - p))
        shift = (noise - 1) * (_ALPHA_DROPOUT_VALUE * a) + _ALPHA_DROPOUT_VALUE * a * p
        out = input * (noise * a) + shift
    else:
        out = input * (noise / (1.0 - p))
    return input.copy_(out) if inplace else out


@op_event("aten::dropout")
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes each element with probability ``p`` and scales the rest by 1 / (1 - p) in training."""
    return _dropout(input, p, training, inplace)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    Dropout for SELU networks: dropped elements take SELU's negative saturation value and an
    affine map keeps the mean and variance."""
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """feature_alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor

    :func:`alpha_dropout` of whole channels (dim 1) of each sample."""
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


def _channel_dropout(input, p, training, inplace, batched: bool):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if batched:
        return _dropout(input, p, training, inplace, feature=True)
    out = _dropout(input.unsqueeze_(0) if inplace else input.unsqueeze(0), p, training, inplace, feature=True)
    return out.squeeze_(0) if inplace else out.squeeze(0)


def _warn_unusual_rank(name: str, spatial: int, ndim: int):
    # PyTorch's deprecation warning for inputs that are neither batched nor unbatched channels.
    if ndim not in (spatial + 1, spatial + 2):
        warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with "
                      f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      f"{spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """dropout1d(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes whole channels of (N, C, L) or (C, L) inputs with probability ``p``, scaling the rest
    by 1 / (1 - p)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, input.ndim == 3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """dropout2d(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes whole channels (dim 1) with probability ``p``, scaling the rest by 1 / (1 - p); a 3-D
    input is read as (N, C, L), as PyTorch reads it."""
    _warn_unusual_rank("dropout2d", 2, input.ndim)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, True)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """dropout3d(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability ``p``,
    scaling the rest by 1 / (1 - p)."""
    _warn_unusual_rank("dropout3d", 3, input.ndim)
    return _channel_dropout(input, p, training, inplace, input.ndim == 5)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """normalize(input, p=2.0, dim=1, eps=1e-12) -> Tensor: x / max(||x||_p, eps) along ``dim``."""
    norm = (input.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return input / _E.clamp_min(norm, eps)
