"""Margin and ranking losses: hinge, cosine and triplet embeddings, composed from numgrad ops so
that their derivatives follow from their parts, and the multi-class and multi-label margins, one
node each with their rules next to them."""
from __future__ import annotations

from ... import dtypes
from ...creation import arange
from ...ops import functional_elementwise as _E
from ...ops.registry import require_floating
from ...dtypes import torch_type_name
from ...ops.records import primitive
from .distance import pairwise_distance
from .loss import _check_reduction, _check_weights_constant, _legacy_reduction, _reduce, _run_loss
from ...autograd.profiler import op_event

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "multi_margin_loss", "multilabel_margin_loss"]

# Added to the squared norms so that a zero vector gives cosine 0 rather than NaN.
_NORM_EPSILON = 1e-12


@op_event("aten::margin_ranking_loss", autocast="float32")
def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """margin_ranking_loss(input1, input2, target, margin=0, reduction='mean') -> Tensor

    max(0, -target * (input1 - input2) + margin), reduced; ``target`` holds 1 or -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@op_event("aten::hinge_embedding_loss", autocast="float32")
def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """hinge_embedding_loss(input, target, margin=1.0, reduction='mean') -> Tensor

    ``input`` where target is 1, max(0, margin - input) where target is -1, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    gap = margin - input
    # PyTorch keeps an integral input's dtype, so that a mean of it fails as a mean of integers does.
    gap = gap if input.dtype.is_floating_point else gap.to(input.dtype)
    below_margin = _E.where(target != 1, gap.clamp_min(0), 0)
    return _reduce(below_margin + _E.where(target != -1, input, 0), reduction)


@op_event("aten::cosine_embedding_loss", autocast="float32")
def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                          reduction: str = "mean"):
    """cosine_embedding_loss(input1, input2, target, margin=0, reduction='mean') -> Tensor

    1 - cos(input1, input2) where target is 1, max(0, cos - margin) where target is -1,
    with the cosine taken over the last dim of (N, D) or (D,) inputs."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = target.ndim
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    dot = (input1 * input2).sum(dim)
    squares = ((input1 * input1).sum(dim) + _NORM_EPSILON) * ((input2 * input2).sum(dim) + _NORM_EPSILON)
    cos = dot / squares.sqrt()
    loss = _E.where(target == 1, 1 - cos, 0) + _E.where(target == -1, (cos - margin).clamp_min(0), 0)
    return _reduce(loss, reduction)


def _check_triplet(anchor, positive, negative, margin):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    to_negative = distance(anchor, negative)
    if swap:
        to_negative = to_negative.minimum(distance(positive, negative))
    return _reduce((margin + distance(anchor, positive) - to_negative).clamp_min(0), reduction)


@op_event("aten::triplet_margin_loss", autocast="float32")
def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None, reduction: str = "mean"):
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction='mean')

    max(0, margin + d(anchor, positive) - d(anchor, negative)) with the pairwise ``p``-distance
    d; ``swap`` uses d(positive, negative) where it is smaller."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_triplet(anchor, positive, negative, margin)
    return _triplet(anchor, positive, negative, lambda x, y: pairwise_distance(x, y, p, eps), margin, swap,
                    reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean"):
    """triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
    swap=False, reduction='mean') -> Tensor

    triplet_margin_loss with any ``distance_function`` (pairwise_distance by default)."""
    _check_reduction(reduction)
    _check_triplet(anchor, positive, negative, margin)
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction)


def _check_class_targets(target):
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {torch_type_name(target.dtype)}")


def _check_matrix(input):
    shape = list(input.shape)
    if not (input.ndim == 2 and shape[1] or input.ndim == 1 and shape[0] or input.ndim == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {shape}")


def _per_sample(g, n_samples: int, reduction: str):
    """The cotangent of each sample's loss, as an (N, 1) column or a scalar."""
    if reduction == "none":
        return g.reshape(n_samples, 1)
    return g / n_samples if reduction == "mean" else g


def _class_margins(x, target, margin):
    """(margin - x[y] + x[i] as (N, C), the mask of each sample's own class y, the (N, 1) labels)."""
    n_classes = x.shape[-1] if x.ndim else 1
    scores, labels = x.reshape(-1, n_classes), target.reshape(-1, 1)
    return margin - scores.gather(1, labels) + scores, labels == arange(n_classes, device=x.device), labels


def _multi_margin_values(x, target, w, p, margin):
    h, own, labels = _class_margins(x, target, margin)
    terms = h.clamp_min(0)
    terms = terms * terms if p == 2 else terms
    terms = terms if w.__class__ is float else terms * w[labels]
    return (_E.where(own, 0, terms).sum(1) / h.shape[1]).reshape(target.shape)


def _multi_margin_slopes(x, target, w, p, margin):
    """The derivatives (N, C) of each sample's loss in its scores."""
    h, own, labels = _class_margins(x, target, margin)
    active = ((h > 0) & ~own).to(h.dtype)
    d = active * (2 * h) if p == 2 else active
    d = (d if w.__class__ is float else d * w[labels]) / h.shape[1]
    return d - own.to(h.dtype) * d.sum(1, keepdim=True)


def _multi_margin_vjp(g, ans, x, target, w, p, margin, reduction):
    d = _multi_margin_slopes(x, target, w, p, margin)
    return (d * _per_sample(g, d.shape[0], reduction)).reshape(x.shape)


def _multi_margin_jvp(t, ans, x, target, w, p, margin, reduction):
    d = _multi_margin_slopes(x, target, w, p, margin)
    return _reduce((d * t.reshape(d.shape)).sum(1).reshape(target.shape), reduction)


_multi_margin_loss = primitive("multi_margin_loss", 3, backward_name="MultiMarginLossBackward0",
                               vjp=(_multi_margin_vjp, None, None), jvp=(_multi_margin_jvp, None, None))


@op_event("aten::multi_margin_loss", autocast="float32")
def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None, size_average=None,
                      reduce=None, reduction: str = "mean"):
    """multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction='mean') -> Tensor

    sum over classes i != y of max(0, margin - input[y] + input[i])**p * weight[y] / C, for
    (N, C) or (C,) ``input`` and class indices ``target``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_matrix(input)
    n_samples = input.shape[0] if input.ndim == 2 else 1
    if target.ndim > 1 or target.numel() != n_samples:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n_samples}], but got "
                           f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    _check_class_targets(target)
    require_floating("multi_margin_loss_cpu_kernel", input.dtype, bfloat16=False)
    _check_weights_constant("multi_margin_loss", ("weight", weight))
    n_classes = input.shape[-1] if input.ndim else 1
    if target.numel() and ((target < 0) | (target >= n_classes)).any().item():
        raise RuntimeError("target out of range")
    inputs = (input, target, 1.0 if weight is None else weight)
    return _run_loss(_multi_margin_loss, inputs, _multi_margin_values, reduction, p=p, margin=margin)


def _label_pairs(x, target):
    """(1 - x[j] + x[i] as (N, j, i), and the weight of each pair: how often j is listed as a
    target times whether i is not listed); entries count up to the first -1, as in PyTorch."""
    n_classes = x.shape[-1] if x.ndim else 1
    labels = target.reshape(-1, n_classes)
    listed = (labels != -1).to(dtypes.int64).cumprod(1).bool()
    hits = (labels.unsqueeze(2) == arange(n_classes, device=x.device)) & listed.unsqueeze(2)
    counts = hits.to(x.dtype).sum(1)
    scores = x.reshape(-1, n_classes)
    pairs = counts.unsqueeze(2) * (counts == 0).to(x.dtype).unsqueeze(1)
    return 1 - scores.unsqueeze(2) + scores.unsqueeze(1), pairs


def _multilabel_margin_values(x, target):
    h, pairs = _label_pairs(x, target)
    return ((h.clamp_min(0) * pairs).sum((1, 2)) / h.shape[1]).reshape(x.shape[:-1])


def _multilabel_margin_slopes(x, target):
    h, pairs = _label_pairs(x, target)
    active = (h > 0).to(h.dtype) * pairs
    return (active.sum(1) - active.sum(2)) / h.shape[1]


def _multilabel_margin_vjp(g, ans, x, target, reduction):
    d = _multilabel_margin_slopes(x, target)
    return (d * _per_sample(g, d.shape[0], reduction)).reshape(x.shape)


def _multilabel_margin_jvp(t, ans, x, target, reduction):
    d = _multilabel_margin_slopes(x, target)
    return _reduce((d * t.reshape(d.shape)).sum(1).reshape(x.shape[:-1]), reduction)


_multilabel_margin_loss = primitive("multilabel_margin_loss", 2, backward_name="MultilabelMarginLossBackward0",
                                    vjp=(_multilabel_margin_vjp, None), jvp=(_multilabel_margin_jvp, None))


@op_event("aten::multilabel_margin_loss", autocast="float32")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """multilabel_margin_loss(input, target, reduction='mean') -> Tensor

    sum over target classes j and non-target classes i of max(0, 1 - (input[j] - input[i])) / C;
    each row of ``target`` lists class indices, ended by the first -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_matrix(input)
    if list(target.shape) != list(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    _check_class_targets(target)
    require_floating("multilabel_margin_loss_forward_out_frame", input.dtype, bfloat16=False)
    n_classes = input.shape[-1] if input.ndim else 1
    if target.numel() and ((target < -1) | (target >= n_classes)).any().item():
        raise RuntimeError("argument #2 'target' is out of range")
    return _run_loss(_multilabel_margin_loss, (input, target), _multilabel_margin_values, reduction)
