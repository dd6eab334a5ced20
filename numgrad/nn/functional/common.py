"""Linear maps, embeddings and tensor utilities: linear, embedding, one_hot, pad, dropout."""
from __future__ import annotations

from ... import dtypes
from ...ops import functional_elementwise as _E
from ...ops.nn import constant_pad

__all__ = ["linear", "bilinear", "embedding", "one_hot", "pad", "dropout", "normalize"]


def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight.T + bias, with ``weight`` of
    shape (out_features, in_features)."""
    out = input.matmul(weight.t()) if weight.ndim == 2 else input.matmul(weight)
    return out + bias if bias is not None else out


def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor: x1^T A_k x2 + b_k for each output k."""
    # (..., i) x (k, i, j) -> (..., k, j), then contract j with input2.
    t = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight).squeeze(-2)
    out = (t * input2.unsqueeze(-2)).sum(-1)
    return out + bias if bias is not None else out


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """embedding(input, weight, padding_idx=None) -> Tensor: the rows of ``weight`` picked by the
    integer tensor ``input``; the row ``padding_idx`` receives no gradient."""
    from ...ops.gather import index_select
    if input.dtype.is_floating_point or input.dtype is dtypes.bool:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {input.type()} instead (while checking arguments for "
                           "embedding)")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    rows = index_select(weight, 0, input.reshape(-1))
    out = rows.reshape(tuple(input.shape) + (weight.shape[1],))
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        keep = (input != padding_idx).unsqueeze(-1)
        # Same values, but the padding rows' contribution is detached from the graph.
        out = _E.where(keep, out, out.detach())
    return out


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


def pad(input, pad, mode: str = "constant", value=None):
    """pad(input, pad, mode='constant', value=None) -> Tensor

    ``pad`` lists (left, right) amounts for the last dim, then the one before it, and so on;
    negative amounts crop. Modes: 'constant', 'reflect', 'replicate', 'circular'."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.ndim}")
    pairs = [(int(pad[2 * k]), int(pad[2 * k + 1])) for k in range(len(pad) // 2)]
    if mode == "constant":
        x = input
        for k, (lo, hi) in enumerate(pairs):
            dim = input.ndim - 1 - k
            x = x.narrow(dim, max(-lo, 0), x.shape[dim] - max(-lo, 0) - max(-hi, 0))
        return constant_pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs], 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value not in (None, 0):
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    from ...creation import tensor as _tensor
    from ...ops.gather import index_select
    x = input
    for k, (lo, hi) in enumerate(pairs):
        dim = input.ndim - 1 - k
        n = x.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                               f"{list(input.shape)}")
        idx = [_source_index(i, n, mode) for i in range(-lo, n + hi)]
        x = index_select(x, dim, _tensor(idx, dtype=dtypes.int64, device=x.device))
    return x


def _source_index(i: int, n: int, mode: str) -> int:
    if mode == "replicate":
        return min(max(i, 0), n - 1)
    if mode == "circular":
        return i % n
    period = 2 * (n - 1)
    i = abs(i) % period if period else 0
    return period - i if i >= n else i


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor

    Zeroes each element with probability ``p`` and scales the rest by 1 / (1 - p) in training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from ...random import rand_like
    if p == 1.0:
        out = input * 0.0
    else:
        out = input * ((rand_like(input) >= p) * (1.0 / (1.0 - p)))
    return input.copy_(out) if inplace else out


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """normalize(input, p=2.0, dim=1, eps=1e-12) -> Tensor: x / max(||x||_p, eps) along ``dim``."""
    norm = (input.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return input / _E.clamp_min(norm, eps)
