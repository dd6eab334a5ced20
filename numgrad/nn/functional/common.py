"""Linear maps, embeddings and tensor utilities: linear, embedding, one_hot, dropout."""
from __future__ import annotations

from ... import dtypes
from ...autograd import tape
from ...ops import functional_elementwise as _E
from ...ops.linalg import addmm as _addmm
from ...ops.registry import primitive

__all__ = ["linear", "bilinear", "embedding", "one_hot", "dropout", "normalize"]


def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight.T + bias, with ``weight`` of
    shape (out_features, in_features)."""
    if input.ndim == 2 and weight.ndim == 2 and bias is not None:
        return _addmm(bias, input, weight.t())
    out = input.matmul(weight.t()) if weight.ndim == 2 else input.matmul(weight)
    return out + bias if bias is not None else out


def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor: x1^T A_k x2 + b_k for each output k."""
    # (..., i) x (k, i, j) -> (..., k, j), then contract j with input2.
    t = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight).squeeze(-2)
    out = (t * input2.unsqueeze(-2)).sum(-1)
    return out + bias if bias is not None else out


def _embedding_backward(g, shape, indices, padding_idx, scale_grad_by_freq):
    """The rows of ``g`` summed into the rows that ``indices`` picked of a zero tensor of the
    weight's ``shape``; the ``padding_idx`` row gets nothing, and each row is divided by how
    often it was picked when ``scale_grad_by_freq``."""
    from ...creation import zeros
    from ...ops.gather import index_add
    from ...ops.sorting import bincount
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
    from ...ops.gather import index_select
    return index_select(weight, 0, indices.reshape(-1)).reshape(tuple(indices.shape) + (weight.shape[1],))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False)

    The rows of ``weight`` picked by the integer tensor ``input``; the row ``padding_idx``
    receives no gradient, and ``scale_grad_by_freq`` divides each row's gradient by how often
    it was picked."""
    if input.dtype.is_floating_point or input.dtype is dtypes.bool:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {input.type()} instead (while checking arguments for "
                           "embedding)")
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


def _renorm_rows(weight, input, max_norm, norm_type):
    from ...autograd.grad_mode import no_grad
    from ...ops.gather import index_select
    with no_grad():
        idx = input.reshape(-1)
        rows = index_select(weight, 0, idx)
        norms = (rows.abs() ** norm_type).sum(-1, keepdim=True) ** (1.0 / norm_type)
        scale = _E.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_copy_(0, idx, rows * scale)


def one_hot(tensor, num_classes: int = -1):
    """one_hot(tensor, num_classes=-1) -> LongTensor: a trailing dim of size ``num_classes`` with
    a 1 at each value's position (``num_classes`` defaults to max + 1)."""
    from ...creation import arange
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


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes each element with probability ``p`` and scales the rest by 1 / (1 - p) in training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        # Kept with probability 1 - p, drawn and scaled as PyTorch does it (same seed, same mask).
        from ...random import bernoulli_
        from ...creation import empty
        noise = bernoulli_(empty(input.shape, dtype=input.dtype, device=input.device), 1.0 - p)
        out = input * (noise / (1.0 - p))
    return input.copy_(out) if inplace else out


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """normalize(input, p=2.0, dim=1, eps=1e-12) -> Tensor: x / max(||x||_p, eps) along ``dim``."""
    norm = (input.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return input / _E.clamp_min(norm, eps)
