"""The functions of numgrad.nn.functional that PyTorch also exposes at the top of its namespace
(``torch.conv2d``, ``torch.dropout``, ...), with the top-level signatures: positional ``train``
flags, integer reductions and modes, ``weight`` before ``indices`` in ``embedding``."""
from __future__ import annotations

import warnings

from . import common as _common, conv as _conv, conv_transpose as _conv_transpose, ctc as _ctc
from . import distance as _distance, loss as _loss, normalization as _norm, padding as _padding
from . import pooling as _pooling, ranking_loss as _ranking, sampling as _sampling
from ... import dtypes
from ...autograd.grad_mode import no_grad as _no_grad
from ...creation import zeros as _zeros
from ...ops import pooling as _ops_pooling
from ...autograd.profiler import op_event

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "layer_norm", "group_norm", "batch_norm",
           "instance_norm", "rms_norm", "embedding", "embedding_bag", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "native_channel_shuffle", "cosine_similarity", "pairwise_distance", "pdist",
           "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss", "triplet_margin_loss",
           "kl_div", "poisson_nll_loss", "binary_cross_entropy_with_logits", "ctc_loss", "bilinear",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "constant_pad_nd", "affine_grid_generator",
           "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "convolution", "embedding_renorm_"]

# The signatures of these already match PyTorch's top-level ones.
conv1d, conv2d, conv3d = _conv.conv1d, _conv.conv2d, _conv.conv3d
conv_transpose1d = _conv_transpose.conv_transpose1d
conv_transpose2d = _conv_transpose.conv_transpose2d
conv_transpose3d = _conv_transpose.conv_transpose3d
pixel_shuffle, pixel_unshuffle = _sampling.pixel_shuffle, _sampling.pixel_unshuffle
channel_shuffle = native_channel_shuffle = _sampling.channel_shuffle
cosine_similarity, pairwise_distance, pdist = _distance.cosine_similarity, _distance.pairwise_distance, _distance.pdist
bilinear, rms_norm, avg_pool1d = _common.bilinear, _norm.rms_norm, _conv.avg_pool1d
adaptive_avg_pool1d = _ops_pooling.adaptive_avg_pool1d

# ATen's integer codes for reductions, interpolation and padding modes. An omitted reduction is
# 0 (none): PyTorch's top-level bindings leave it so, unlike nn.functional's 'mean'.
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}
_INTERPOLATIONS = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


def _reduction(code) -> str:
    if code not in _REDUCTIONS:
        raise ValueError(f"{code} is not a valid value for reduction")
    return _REDUCTIONS[code]


def dropout(input, p: float, train: bool):
    """dropout(input, p, train) -> Tensor: :func:`numgrad.nn.functional.dropout`."""
    return _common._dropout(input, p, train, False)


def dropout_(input, p: float, train: bool):
    """dropout_(input, p, train) -> Tensor: in-place :func:`dropout`."""
    return _common._dropout(input, p, train, True)


def alpha_dropout(input, p: float, train: bool):
    """alpha_dropout(input, p, train) -> Tensor: :func:`numgrad.nn.functional.alpha_dropout`."""
    return _common._dropout(input, p, train, False, alpha=True)


def alpha_dropout_(input, p: float, train: bool):
    """alpha_dropout_(input, p, train) -> Tensor: in-place :func:`alpha_dropout`."""
    return _common._dropout(input, p, train, True, alpha=True)


def feature_dropout(input, p: float, train: bool):
    """feature_dropout(input, p, train) -> Tensor: zeroes whole channels (dim 1) of each sample."""
    return _common._dropout(input, p, train, False, feature=True)


def feature_dropout_(input, p: float, train: bool):
    """feature_dropout_(input, p, train) -> Tensor: in-place :func:`feature_dropout`."""
    return _common._dropout(input, p, train, True, feature=True)


def feature_alpha_dropout(input, p: float, train: bool):
    """feature_alpha_dropout(input, p, train) -> Tensor: alpha dropout of whole channels."""
    return _common._dropout(input, p, train, False, feature=True, alpha=True)


def feature_alpha_dropout_(input, p: float, train: bool):
    """feature_alpha_dropout_(input, p, train) -> Tensor: in-place :func:`feature_alpha_dropout`."""
    return _common._dropout(input, p, train, True, feature=True, alpha=True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-05, cudnn_enable: bool = True):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True) -> Tensor"""
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05, cudnn_enabled: bool = True):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True) -> Tensor"""
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool):
    """batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled) -> Tensor"""
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats: bool, momentum: float,
                  eps: float, cudnn_enabled: bool):
    """instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled) -> Tensor"""
    return _norm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False):
    """embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) -> Tensor

    Rows of ``weight`` picked by ``indices``; a negative ``padding_idx`` means no padding row."""
    return _common.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                             scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False, padding_idx=None):
    """embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None) -> (Tensor, Tensor, Tensor, Tensor)

    The bags of :func:`numgrad.nn.functional.embedding_bag` (``mode`` 0 sum, 1 mean, 2 max),
    then PyTorch's auxiliary results: the bag of each index, the size of each bag and, in max
    mode, the row each maximum came from."""
    if mode not in _BAG_MODES:
        raise RuntimeError(f"embedding_bag: unknown mode {mode}")
    out = _common.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                                mode=_BAG_MODES[mode], sparse=sparse, per_sample_weights=per_sample_weights,
                                include_last_offset=include_last_offset, padding_idx=padding_idx)
    return (out,) + _bag_layout(weight, indices, offsets, mode, include_last_offset, out.shape[0])


def _bag_layout(weight, indices, offsets, mode, include_last_offset, num_bags):
    """PyTorch's auxiliary results: in sum mode zero sizes, and the bag of each index only for
    float64 weights (its fast path for narrower floats leaves it empty); in mean mode the bags and
    the sizes twice; in max mode the bags, the sizes and the arg-max rows."""
    with _no_grad():
        sizes = _zeros(num_bags, dtype=indices.dtype)
        if mode == 0 and weight.dtype is not dtypes.float64:
            return indices.new_empty(0), sizes, sizes.clone()
        n = indices.shape[0]
        starts = [int(o) for o in offsets.tolist()][:num_bags]
        ends = starts[1:] + [int(offsets[-1]) if include_last_offset else n]
        offset2bag = _zeros(n, dtype=indices.dtype)
        max_indices = _zeros((num_bags, weight.shape[1]), dtype=indices.dtype) if mode == 2 else None
        for bag, (start, end) in enumerate(zip(starts, ends)):
            offset2bag[start:end] = bag
            if mode == 0:
                continue
            sizes[bag] = end - start
            if mode == 2 and end > start:
                rows = weight.detach()[indices[start:end]]
                max_indices[bag] = indices[start:end][rows.argmax(0)]
    return offset2bag, sizes, sizes.clone() if max_indices is None else max_indices


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: int = 0):
    """cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor"""
    return _ranking.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction: int = 0):
    """margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor"""
    return _ranking.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction: int = 0):
    """hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor"""
    return _ranking.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-06,
                        swap: bool = False, reduction: int = 0):
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0) -> Tensor"""
    return _ranking.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                        reduction=_reduction(reduction))


def kl_div(input, target, reduction: int = 0, *, log_target: bool = False):
    """kl_div(input, target, reduction=0, *, log_target=False) -> Tensor"""
    with warnings.catch_warnings():
        # nn.functional's advice to prefer 'batchmean' over 'mean' has no counterpart here.
        warnings.simplefilter("ignore", UserWarning)
        return _loss.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def poisson_nll_loss(input, target, log_input: bool, full: bool, eps: float, reduction: int):
    """poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor"""
    return _loss.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction: int = 0):
    """binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0) -> Tensor"""
    return _loss.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                                  pos_weight=pos_weight)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0, reduction: int = 0,
             zero_infinity: bool = False):
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False) -> Tensor"""
    return _ctc.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                         zero_infinity)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False):
    """max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor"""
    return _conv.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False):
    """max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> (Tensor, Tensor)"""
    return _conv.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False):
    """max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor"""
    return _conv.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False):
    """max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor"""
    return _pooling.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """adaptive_max_pool1d(input, output_size) -> (Tensor, Tensor): the maxima and their positions."""
    return _pooling.adaptive_max_pool1d(input, output_size, return_indices=True)


@op_event("aten::constant_pad_nd")
def constant_pad_nd(input, pad, value=0):
    """constant_pad_nd(input, pad, value=0) -> Tensor: pads (or, with negative amounts, crops) the last dims."""
    return _padding.pad(input, pad, "constant", value)


def affine_grid_generator(theta, size, align_corners: bool):
    """affine_grid_generator(theta, size, align_corners) -> Tensor: :func:`numgrad.nn.functional.affine_grid`."""
    return _sampling.affine_grid(theta, size, align_corners=align_corners)


def grid_sampler(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor

    :func:`numgrad.nn.functional.grid_sample` with ATen's integer modes (interpolation 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    return _sampling.grid_sample(input, grid, _INTERPOLATIONS[interpolation_mode], _PADDINGS[padding_mode],
                                 align_corners)


grid_sampler_2d = grid_sampler_3d = grid_sampler


def convolution(input, weight, bias, stride, padding, dilation, transposed: bool, output_padding, groups: int):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups) -> Tensor

    The 1-, 2- or 3-d convolution (``transposed``: its transpose) that ``input``'s rank implies."""
    spatial = input.ndim - 2
    if spatial not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv, but got input of size: "
                           f"{list(input.shape)}")
    if transposed:
        fn = (conv_transpose1d, conv_transpose2d, conv_transpose3d)[spatial - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (conv1d, conv2d, conv3d)[spatial - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def embedding_renorm_(input, indices, max_norm: float, norm_type: float):
    """embedding_renorm_(input, indices, max_norm, norm_type) -> Tensor

    Rescales in place the rows of ``input`` picked by ``indices`` whose ``norm_type``-norm exceeds
    ``max_norm`` to norm ``max_norm``."""
    _common._renorm_rows(input, indices, max_norm, norm_type)
    return input
