"""Resizing and resampling: interpolate (and its deprecated upsample aliases), grid_sample,
affine_grid, and the pixel and channel shuffles."""
from __future__ import annotations

import numbers
import warnings

from ... import dtypes
from ...autograd.tape import plain, record_result
from ...creation import linspace, ones, zeros
from ...ops.grids import meshgrid
from ...ops.movement import stack
from ...ops.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from ...dtypes import torch_type_name
from ...ops.records import primitive
from ...ops.resampling import (antialias_taps, area_taps, cubic_taps, grid_sampler, linear_taps, nearest_taps,
                               resample)
from ...autograd.profiler import op_event

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample", "affine_grid",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
# The input rank each interpolating mode needs.
_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_LETTERS = {1: "W", 2: "HW", 3: "DHW"}


def _is_integer(v) -> bool:
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return True
    # A tensor holding an integer counts, as in PyTorch.
    return hasattr(v, "dtype") and hasattr(v, "ndim") and not getattr(v.dtype, "is_floating_point", True)


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    """interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None, antialias=False) -> Tensor

    Resizes the spatial dims of a (N, C, W), (N, C, H, W) or (N, C, D, H, W) input to ``size``
    or by ``scale_factor``. Modes: 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' and
    'bicubic' (4-D), 'trilinear' (5-D) and 'area' (adaptive average pooling); ``antialias=True``
    widens the bilinear and bicubic filters when shrinking.
    ``align_corners=True`` maps the corner pixels' centres onto each other. A given
    ``scale_factor`` sets the source positions itself unless ``recompute_scale_factor=True``,
    which derives them from the rounded output size."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scale_factors = None
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please provide "
                    "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(s) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}")
            output_size = [int(s) for s in size]
        elif not _is_integer(size):
            raise TypeError(f"upsample(): argument 'output_size' must be tuple of ints, not {type(size).__name__}")
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input "
                    f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                    f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                         "a 4-D tensor as input")
    if antialias and mode == "lanczos":
        raise NotImplementedError("interpolate(): mode='lanczos' is not supported")
    if input.ndim in (3, 4, 5) and (mode in ("nearest", "nearest-exact", "area") or _RANK.get(mode) == input.ndim):
        return _resize(input, mode, output_size, scale_factors, align_corners, antialias)
    if input.ndim in (3, 4, 5) and mode in _RANK:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_RANK[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                              f"the modes: {_MODES} (got {mode})")


def _resize(input, mode, output_size, scale_factors, align_corners, antialias=False):
    dim = input.ndim - 2
    if mode == "area" and dim < 3:
        pool = adaptive_avg_pool1d if dim == 1 else adaptive_avg_pool2d
        return pool(input, output_size[0] if dim == 1 else output_size)
    in_size = list(input.shape[2:])
    if output_size is None:
        output_size = [int(n * s) for n, s in zip(in_size, scale_factors)]
    scales = scale_factors or [None] * dim
    _check_sizes(input, in_size, output_size)
    _check_dtype(input, mode, dim)
    if mode in ("nearest", "nearest-exact"):
        exact = mode == "nearest-exact"
        taps = [nearest_taps(n, m, s, exact) for n, m, s in zip(in_size, output_size, scales)]
        name = f"UpsampleNearest{'Exact' if exact else ''}{dim}DBackward0"
    elif mode == "area":
        taps = [area_taps(n, m, input.dtype) for n, m in zip(in_size, output_size)]
        name = "AdaptiveAvgPool3DBackward0"
    elif antialias:
        taps = [antialias_taps(n, m, s, align_corners, input.dtype, mode == "bicubic")
                for n, m, s in zip(in_size, output_size, scales)]
        name = {"bilinear": "UpsampleBilinear2DAa", "bicubic": "UpsampleBicubic2DAa"}[mode] + "Backward0"
    else:
        make = cubic_taps if mode == "bicubic" else linear_taps
        taps = [make(n, m, s, align_corners, input.dtype) for n, m, s in zip(in_size, output_size, scales)]
        name = {"linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D", "bicubic": "UpsampleBicubic2D",
                "trilinear": "UpsampleTrilinear3D"}[mode] + "Backward0"
    # The last dim first: PyTorch's kernels weight each row's interpolation, then combine the rows.
    passes = [(2 + d, index, weight) for d, (index, weight) in reversed(list(enumerate(taps)))]
    return resample(input, passes, name)


def _check_sizes(input, in_size, output_size):
    letters = _LETTERS[len(in_size)]
    if min(in_size) <= 0 or min(output_size) <= 0:
        shown_in = ", ".join(f"{c}: {n}" for c, n in zip(letters, in_size))
        shown_out = ", ".join(f"{c}: {n}" for c, n in zip(letters, output_size))
        joint = " and " if len(in_size) == 1 else " "
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown_in}){joint}"
                           f"output ({shown_out})")
    if input.shape[1] == 0:
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")


def _check_dtype(input, mode, dim):
    if input.dtype.is_floating_point or (mode.startswith("nearest") and input.dtype is dtypes.uint8):
        return
    kernel = {"bicubic": "compute_indices_weights_cubic", "area": "adaptive_avg_pool3d"}.get(
        mode, "compute_indices_weights_linear")
    if mode.startswith("nearest"):
        kernel = f"upsample_{mode.replace('-', '_')}{dim}d"
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{torch_type_name(input.dtype)}'")


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):
    """upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None) -> Tensor

    Deprecated alias of :func:`interpolate`."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """upsample_nearest(input, size=None, scale_factor=None) -> Tensor

    Deprecated: ``interpolate(..., mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """upsample_bilinear(input, size=None, scale_factor=None) -> Tensor

    Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _check_grid_sample(input, grid, mode):
    n = input.ndim - 2
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != n:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {n} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    for d in range(2, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {d} being empty")
    if mode == "bicubic" and n != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"grid_sampler_{n}d_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {torch_type_name(input.dtype)} but found "
                           f"{torch_type_name(grid.dtype)}")


@op_event("aten::grid_sampler", autocast="float32")
def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros", align_corners=None):
    """grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None) -> Tensor

    Samples a (N, C, H, W) input at the normalised (x, y) positions of grid (N, H_out, W_out, 2)
    (or a (N, C, D, H, W) input at (x, y, z) positions of a (N, D_out, H_out, W_out, 3) grid).
    ``mode`` is 'bilinear', 'nearest' or 'bicubic' (4-D only); positions outside the input read
    zeros, the border values or the input reflected at its borders (``padding_mode``)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                      "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                      "documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    _check_grid_sample(input, grid, mode)
    return grid_sampler(input, grid, mode, padding_mode, align_corners)


def _base_grid(size, align_corners, dtype, device):
    """(prod(spatial), k + 1) rows (x, y[, z], 1) of every output position's normalised coordinates."""
    axes = []
    for steps in size[2:]:
        if steps <= 1:
            axes.append(zeros(max(steps, 1), dtype=dtype, device=device))
        else:
            axis = linspace(-1, 1, steps, dtype=dtype, device=device)
            axes.append(axis if align_corners else axis * (steps - 1) / steps)
    grids = meshgrid(*axes, indexing="ij")
    columns = [g.reshape(-1) for g in reversed(grids)]
    return stack(columns + [ones(columns[0].shape[0], dtype=dtype, device=device)], 1)


def _affine_grid_backward(g, theta, size, align_corners):
    base = _base_grid(size, align_corners, g.dtype, g.device)
    rows = g.reshape(size[0], -1, g.shape[-1])
    return rows.transpose(1, 2).matmul(base)


_affine_grid = primitive(
    "affine_grid", 1, backward_name="AffineGridGeneratorBackward0",
    vjp=(lambda g, ans, theta, size, align_corners: _affine_grid_backward(g, theta, size, align_corners),),
    jvp=(lambda t, ans, theta, size, align_corners: _affine_grid_of(t, size, align_corners),))


def _affine_grid_of(theta, size, align_corners):
    base = _base_grid(size, align_corners, theta.dtype, theta.device)
    grid = base.matmul(theta.transpose(1, 2))
    return grid.reshape(tuple(size[:1]) + tuple(size[2:]) + (len(size) - 2,))


@op_event("aten::affine_grid_generator")
def affine_grid(theta, size, align_corners=None):
    """affine_grid(theta, size, align_corners=None) -> Tensor

    The sampling grid of the affine maps ``theta`` (N, 2, 3) for an output of ``size``
    (N, C, H, W), shaped (N, H, W, 2), or of ``theta`` (N, 3, 4) for (N, C, D, H, W), shaped
    (N, D, H, W, 3): the input to :func:`grid_sample`."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                      "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                      "documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) in (4, 5):
        k = len(size) - 2
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (k, k + 1):
            raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}].")
    params = {"size": size, "align_corners": bool(align_corners)}
    return record_result(_affine_grid, (theta,), _affine_grid_of(plain(theta), size, bool(align_corners)), params)


def _check_factor(value, name: str, what: str):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not {type(value).__name__}")
    return int(value)


def _check_scale(input, value, name: str, what: str) -> int:
    """The pixel (un)shuffle factor ``value`` as an int, after PyTorch's checks of it and of ``input``."""
    r = _check_factor(value, name, what)
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {r}")
    return r


def _fresh(result, source):
    """``result``, copied if it is still a view of ``source``: the shuffles return new tensors."""
    return result.clone() if result._storage is source._storage else result


def _shuffle_pixels(x, r: int):
    lead, (c, h, w) = tuple(x.shape[:-3]), x.shape[-3:]
    k = len(lead)
    y = x.reshape(lead + (c // (r * r), r, r, h, w))
    y = y.permute(list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2])
    return _fresh(y.reshape(lead + (c // (r * r), h * r, w * r)), x)


def _unshuffle_pixels(x, r: int):
    lead, (c, h, w) = tuple(x.shape[:-3]), x.shape[-3:]
    k = len(lead)
    y = x.reshape(lead + (c, h // r, r, w // r, r))
    y = y.permute(list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3])
    return _fresh(y.reshape(lead + (c * r * r, h // r, w // r)), x)


def _shuffle_channels(x, groups: int):
    n, c = x.shape[:2]
    rest = tuple(x.shape[2:])
    y = x.reshape((n, groups, c // groups) + rest).transpose(1, 2)
    return _fresh(y.reshape(tuple(x.shape)), x)


_pixel_shuffle = primitive(
    "pixel_shuffle", 1, backward_name="PixelShuffleBackward0",
    vjp=(lambda g, ans, x, upscale_factor: pixel_unshuffle(g, upscale_factor),),
    jvp=(lambda t, ans, x, upscale_factor: pixel_shuffle(t, upscale_factor),))
_pixel_unshuffle = primitive(
    "pixel_unshuffle", 1, backward_name="PixelUnshuffleBackward0",
    vjp=(lambda g, ans, x, downscale_factor: pixel_shuffle(g, downscale_factor),),
    jvp=(lambda t, ans, x, downscale_factor: pixel_unshuffle(t, downscale_factor),))
_channel_shuffle = primitive(
    "channel_shuffle", 1, backward_name="ChannelShuffleBackward0",
    vjp=(lambda g, ans, x, groups: channel_shuffle(g, x.shape[1] // groups),),
    jvp=(lambda t, ans, x, groups: channel_shuffle(t, groups),))


@op_event("aten::pixel_shuffle")
def pixel_shuffle(input, upscale_factor: int):
    """pixel_shuffle(input, upscale_factor) -> Tensor

    Rearranges (*, C * r^2, H, W) into (*, C, H * r, W * r), ``r`` = ``upscale_factor``: each
    group of r^2 channels becomes an r x r block of pixels."""
    r = _check_scale(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    if input.shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return record_result(_pixel_shuffle, (input,), _shuffle_pixels(plain(input), r), {"upscale_factor": r})


@op_event("aten::pixel_unshuffle")
def pixel_unshuffle(input, downscale_factor: int):
    """pixel_unshuffle(input, downscale_factor) -> Tensor

    The inverse of :func:`pixel_shuffle`: (*, C, H * r, W * r) into (*, C * r^2, H, W)."""
    r = _check_scale(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    for side, d in (("height", -2), ("width", -1)):
        if input.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {side} to be divisible by downscale_factor, but "
                               f"input.size({d})={input.shape[d]} is not divisible by {r}")
    return record_result(_pixel_unshuffle, (input,), _unshuffle_pixels(plain(input), r), {"downscale_factor": r})


@op_event("aten::channel_shuffle")
def channel_shuffle(input, groups: int):
    """channel_shuffle(input, groups) -> Tensor

    Splits the C channels of (N, C, *) into ``groups`` groups and interleaves them: channel
    ``g * (C // groups) + j`` moves to ``j * groups + g``."""
    groups = _check_factor(groups, "channel_shuffle", "groups")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    return record_result(_channel_shuffle, (input,), _shuffle_channels(plain(input), groups), {"groups": groups})
