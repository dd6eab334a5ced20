"""Which batching rule each function uses. A function missing here runs once per sample."""
from __future__ import annotations

from .. import special
from ..ops import functional_elementwise
from ..ops.records import OPS
from . import nn_rules, products, randomness
from .dispatch import RANDOM, TENSOR_ARGUMENT_METHODS, call
from .rules import (along_dims, assigning, at_level, bind, broadcasting, expanded, expanding, first_parameter,
                    indexing, joining, kwargs_except, like, over_everything, padded, register, repeating, reshaping,
                    wrap)
from .tensor import front, logical_dim

_OPERATORS = ["__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__",
              "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__", "__ifloordiv__",
              "__mod__", "__rmod__", "__imod__", "__pow__", "__rpow__", "__ipow__", "__neg__", "__pos__", "__abs__",
              "__invert__", "__and__", "__rand__", "__iand__", "__or__", "__ror__", "__ior__", "__xor__", "__rxor__",
              "__ixor__", "__lshift__", "__rlshift__", "__ilshift__", "__rshift__", "__rrshift__", "__irshift__",
              "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]

_CONVERSIONS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool", "to", "type", "type_as",
                "cpu", "cuda", "contiguous", "clone", "detach", "requires_grad_", "zero_", "copy_", "zeros_like", "ones_like", "empty_like", "full_like", "abs_", "neg_",
                "clamp_", "clamp_min_", "clamp_max_", "square_", "sqrt_", "exp_", "log_", "sigmoid_", "tanh_",
                "relu_", "add_", "sub_", "mul_", "div_", "pow_", "lerp_", "addcmul_", "addcdiv_", "tril", "triu",
                "tril_", "triu_", "nan_to_num_", "constant_pad_nd"]

_ACTIVATIONS = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "gelu", "sigmoid", "tanh", "softplus", "silu",
                "elu", "elu_", "hardtanh", "hardtanh_", "logsigmoid", "selu", "selu_", "celu", "celu_", "mish",
                "hardswish", "hardsigmoid", "softsign", "softshrink", "hardshrink", "tanhshrink", "threshold",
                "threshold_", "pairwise_distance", "scaled_dot_product_attention", "pixel_shuffle", "pixel_unshuffle"]

_MATRIX = ["inverse", "det", "logdet", "slogdet", "cholesky", "pinverse", "matrix_exp"]
_LINALG = ["inv", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "solve",
           "matrix_power", "matrix_rank"]

_REDUCTIONS = ["sum", "nansum", "mean", "nanmean", "amax", "amin", "std", "var", "std_mean", "var_mean", "prod",
               "argmax", "argmin", "all", "any", "count_nonzero", "median", "nanmedian", "aminmax"]

_ALONG = ["logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "sort",
          "argsort", "topk", "kthvalue", "mode", "flip", "roll", "unsqueeze", "unsqueeze_", "transpose", "swapaxes",
          "swapdims", "movedim", "moveaxis", "narrow", "select", "split", "chunk", "unbind", "tensor_split",
          "flatten", "unflatten", "diagonal", "diff", "permute", "norm",
          "cumulative_trapezoid", "diag_embed", "squeeze_", "unfold", "trapezoid", "cross", "rot90"]


def _squeeze(key, level, args, kwargs):
    x = args[0]
    dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
    if dim is None:
        dims = tuple(i for i, s in enumerate(x.shape) if s == 1)
        return wrap(call(key, front(x), tuple(d + 1 for d in dims)) if dims else front(x), level)
    return along_dims(key, level, args, kwargs)


def _gather(key, level, args, kwargs):
    x, dim, index = (list(args) + [kwargs.get("dim"), kwargs.get("index")])[:3] if len(args) < 3 else args[:3]
    if kwargs.get("out") is not None or x is None or index is None or x.ndim == 0:
        return NotImplemented
    d = dim % x.ndim + 1
    return wrap(call(key, expanded(x, level), d, expanded(index, level)), level)


def _scattering(key, level, args, kwargs):
    """scatter, scatter_add, scatter_reduce; index_add, index_copy, index_fill, index_reduce with a
    shared index: every tensor batched, the dim shifted past the batch dim."""
    bound = bind(key, args, kwargs)
    if bound is None or bound.arguments.get("out") is not None:
        return NotImplemented
    first = first_parameter(bound)
    x = bound.arguments[first]
    name = key.rpartition(".")[2]
    vector_index = name.startswith("index_")
    if x.ndim == 0:
        return NotImplemented
    if vector_index and at_level(bound.arguments["index"], level):
        return _index_as_scatter(name, bound, x) if name in _AS_SCATTER else NotImplemented
    bound.arguments["dim"] = bound.arguments["dim"] % x.ndim + 1
    for name in (first, "index", "src", "source", "value"):
        a = bound.arguments.get(name)
        if hasattr(a, "ndim") and not (vector_index and name == "index") and not (name == "value" and a.ndim == 0
                                                                                and not at_level(a, level)):
            bound.arguments[name] = expanded(a, level)
    return wrap(call(key, *bound.args, **bound.kwargs), level)


_AS_SCATTER = {"index_add": "torch.scatter_add", "index_copy": "torch.scatter", "index_fill": "torch.scatter",
               "index_reduce": "torch.scatter_reduce"}


def _spread(index, shape, dim):
    """A vector ``index`` laid along ``dim`` of ``shape``: the index scatter takes for it."""
    view = [1] * len(shape)
    view[dim] = index.shape[0]
    return index.reshape(view).expand(tuple(shape))


def _index_as_scatter(name, bound, x):
    """index_add, index_copy, index_fill with per-sample indices: the scatter each one is, whose
    rule takes a batched index (written per sample, so the batch's samples never mix)."""
    a = bound.arguments
    dim = a["dim"] % x.ndim
    index = a["index"].reshape(-1)
    if name == "index_fill":
        shape = list(x.shape)
        shape[dim] = index.shape[0]
        value = a["value"]
        if hasattr(value, "ndim"):  # a 0-d tensor: written as a source of the index's shape
            return call(_AS_SCATTER[name], x, dim, _spread(index, shape, dim), value.expand(tuple(shape)))
        return call(_AS_SCATTER[name], x, dim, _spread(index, shape, dim), value=value)
    source = a["source"]
    if source.ndim == 0:
        source = source.reshape(1)
    if name == "index_reduce":
        return call(_AS_SCATTER[name], x, dim, _spread(index, source.shape, dim), source, a["reduce"],
                    include_self=a.get("include_self", True))
    alpha = a.get("alpha", 1)
    src = source if alpha == 1 else call("torch.mul", source, alpha)
    return call(_AS_SCATTER[name], x, dim, _spread(index, source.shape, dim), src)


def _cdist(key, level, args, kwargs):
    """cdist batches natively: each side's samples as a leading batch dim."""
    bound = bind(key, args, kwargs)
    if bound is None:
        return NotImplemented
    a = bound.arguments
    a["x1"], a["x2"] = expanded(a["x1"], level), expanded(a["x2"], level)
    return wrap(call(key, *bound.args, **bound.kwargs), level)


def _dist(key, level, args, kwargs):
    """dist(x, y, p): the p-norm of the broadcast difference."""
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None:
        return NotImplemented
    a = bound.arguments
    return call("linalg.vector_norm", call("torch.sub", a["input"], a["other"]), a["p"])


def _put(key, level, args, kwargs):
    """put as a scatter over the flattened tensor (negative indices counted from the end)."""
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None:
        return NotImplemented
    a = bound.arguments
    x = a[first_parameter(bound)]
    index = a["index"].reshape(-1)
    index = call("torch.where", call("torch.lt", index, 0), call("torch.add", index, x.numel()), index)
    flat = call("torch.scatter_add" if a["accumulate"] else "torch.scatter", x.reshape(-1), 0, index,
                a["source"].reshape(-1))
    return flat.reshape(tuple(x.shape))


def _index_select(key, level, args, kwargs):
    """index_select with a batched index: a gather along the dim, the index spread over the
    sample's other dims."""
    x, dim, index = (list(args) + [kwargs.get("dim"), kwargs.get("index")])[:3] if len(args) < 3 else args[:3]
    if kwargs.get("out") is not None or not at_level(index, level) or x.ndim == 0:
        return along_dims(key, level, args, kwargs)
    d = dim % x.ndim
    v = expanded(x, level)
    i = front(index)
    shape = [1] * v.ndim
    shape[0], shape[d + 1] = i.shape[0], i.shape[1]
    sizes = list(v.shape)
    sizes[d + 1] = i.shape[1]
    return wrap(call("torch.gather", v, d + 1, i.reshape(tuple(shape)).expand(tuple(sizes))), level)


def _scatter_into(key, level, args, kwargs):
    """slice_scatter, select_scatter, diagonal_scatter: both tensors batched, dims shifted."""
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None or bound.arguments.get("out") is not None:
        return NotImplemented
    first = first_parameter(bound)
    rank = bound.arguments[first].ndim
    for name in ("dim", "dim1", "dim2"):
        if name in bound.arguments:
            bound.arguments[name] = bound.arguments[name] % rank + 1
    bound.arguments[first] = expanded(bound.arguments[first], level)
    bound.arguments["src"] = expanded(bound.arguments["src"], level)
    return wrap(call(key, *bound.args, **bound.kwargs), level)


def _msort(key, level, args, kwargs):
    return call("torch.sort", args[0], 0)[0]


def _take(key, level, args, kwargs):
    x, index = args
    v, i = expanded(x, level), expanded(index, level)
    # take counts negative indices from the end; gather refuses any still out of range
    i = call("torch.where", call("torch.lt", i, 0), call("torch.add", i, x.numel()), i)
    flat = call("torch.gather", v.reshape(v.shape[0], -1), 1, i.reshape(i.shape[0], -1))
    return wrap(flat.reshape(tuple(i.shape)), level)


def _split_along(dim):
    def rule(key, level, args, kwargs):
        x = args[0]
        d = 0 if dim == 1 and x.ndim == 1 else dim
        return call("torch.tensor_split", x, *args[1:], dim=d, **kwargs)
    return rule


def _take_along_dim(key, level, args, kwargs):
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None or bound.arguments.get("out") is not None:
        return NotImplemented
    names = list(bound.arguments)
    x, index, dim = bound.arguments[names[0]], bound.arguments[names[1]], bound.arguments.get("dim")
    if dim is None or x.ndim == 0:
        return NotImplemented
    rank = max(x.ndim, index.ndim)
    bound.arguments[names[0]] = padded(expanded(x, level), rank)
    bound.arguments[names[1]] = padded(expanded(index, level), rank)
    bound.arguments["dim"] = dim % rank + 1
    return wrap(call(key, *bound.args, **bound.kwargs), level)


def _masked_fill(key, level, args, kwargs):
    """masked_fill with a batched value: a where over the batch."""
    bound = bind(key, args, kwargs)
    if bound is None:
        return NotImplemented
    names = list(bound.arguments)
    x, mask, value = (bound.arguments[n] for n in names[:3])
    if not at_level(value, level):
        return broadcasting(key, level, args, kwargs)
    filled = call("torch.where", mask, call("Tensor.to", value, x.dtype), x)
    if key.endswith("_"):
        return call("Tensor.copy_", x, filled)
    return filled


def _fill(key, level, args, kwargs):
    """fill_ with a batched value: each sample filled with its own."""
    x, value = args[0], args[1] if len(args) > 1 else kwargs.get("value")
    if not at_level(value, level):
        return broadcasting(key, level, args, kwargs)
    return call("Tensor.copy_", x, call("Tensor.expand", value, tuple(x.shape)))


def _dynamic_shape(key, level, args, kwargs):
    raise RuntimeError(f"vmap: We do not support batching operators that can output dynamic shape. Attempted to "
                       f"vmap over {key}: each sample's result may have a different size.")


def _grid_sampling(key, level, args, kwargs):
    """grid_sample over (N, C, *spatial) inputs, vmap's batch folded into N for input and grid."""
    x = args[0] if args else kwargs.get("input")
    return nn_rules.folding(x.ndim - 2, ("input", "grid"))(key, level, args, kwargs)


def _quantile(key, level, args, kwargs):
    """quantile and nanquantile: each sample flattened when dim is None; a vector of q puts its
    dim first, ahead of the batch dim, which goes back in front."""
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None or bound.arguments.get("out") is not None:
        return NotImplemented
    x, q, dim = bound.arguments["input"], bound.arguments["q"], bound.arguments["dim"]
    if not at_level(x, level) or at_level(q, level) or dim is not None and x.ndim == 0:
        return NotImplemented
    v = front(x)
    keepdim = bound.arguments["keepdim"]
    if dim is None:
        v, bound.arguments["dim"], bound.arguments["keepdim"] = v.reshape(v.shape[0], -1), 1, False
    else:
        bound.arguments["dim"] = logical_dim(dim, x.ndim) + 1
    bound.arguments["input"] = v
    r = call(key, *bound.args, **bound.kwargs)
    vector_q = getattr(q, "ndim", 0) == 1
    if vector_q:
        r = r.movedim(1, 0)
    if dim is None and keepdim:
        r = r.reshape(tuple(r.shape[:1 + vector_q]) + (1,) * x.ndim)
    return wrap(r, level)


def _kron(key, level, args, kwargs):
    """kron from a broadcast product: each dim of ``a`` interleaved with the same dim of ``b``."""
    a, b = args
    if kwargs:
        return NotImplemented
    rank = max(a.ndim, b.ndim)
    sa = (1,) * (rank - a.ndim) + tuple(a.shape)
    sb = (1,) * (rank - b.ndim) + tuple(b.shape)
    a2 = call("Tensor.reshape", a, tuple(n for s in sa for n in (s, 1)))
    b2 = call("Tensor.reshape", b, tuple(n for s in sb for n in (1, s)))
    return call("Tensor.reshape", call("torch.mul", a2, b2), tuple(x * y for x, y in zip(sa, sb)))


def _repeat_interleave(key, level, args, kwargs):
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None:
        return NotImplemented
    first = first_parameter(bound)
    x, repeats = bound.arguments[first], bound.arguments.get("repeats")
    if not at_level(x, level) or at_level(repeats, level) or repeats is None:
        return NotImplemented
    if bound.arguments.get("dim") is not None:
        return along_dims(key, level, args, kwargs)
    v = front(x)
    bound.arguments[first], bound.arguments["dim"] = v.reshape(v.shape[0], -1), 1
    return wrap(call(key, *bound.args, **bound.kwargs), level)


def _transpose_2d(key, level, args, kwargs):
    x = args[0]
    return call("Tensor.transpose", x, 0, 1) if x.ndim == 2 else x


def _unbatched_result(key, level, args, kwargs):
    """new_zeros and its kin: a tensor of the given size, the same for every sample."""
    return call(key, front(args[0]), *args[1:], **kwargs)


def _property(make):
    def rule(key, level, args, kwargs):
        return make(args[0])
    return rule


def _max_like(key, level, args, kwargs):
    """max and min: over dims by their rule, or elementwise with a second tensor."""
    second = kwargs.get("other", args[1] if len(args) > 1 else None)
    if hasattr(second, "ndim"):
        return broadcasting(key, level, args, kwargs)
    return _full_reduction(key, level, args, kwargs)


_full_reduction = over_everything(kwargs_except("out"))


def _constant_pad(key, level, args, kwargs):
    mode = kwargs.get("mode", args[2] if len(args) > 2 else "constant")
    return broadcasting(key, level, args, kwargs) if mode == "constant" else NotImplemented


def _one_hot(key, level, args, kwargs):
    classes = kwargs.get("num_classes", args[1] if len(args) > 1 else -1)
    return NotImplemented if classes == -1 else broadcasting(key, level, args, kwargs)


def _batch_norm(key, level, args, kwargs):
    training = kwargs.get("training", args[5] if len(args) > 5 else False)
    return NotImplemented if training else nn_rules.fold_all(key, level, args, kwargs)


_RANDOM = ["torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.normal", "torch.bernoulli",
           "torch.multinomial", "torch.poisson", "torch.rand_like", "torch.randn_like", "torch.randint_like",
           "Tensor.uniform_", "Tensor.normal_", "Tensor.bernoulli_", "Tensor.bernoulli", "Tensor.random_",
           "Tensor.exponential_", "Tensor.geometric_", "Tensor.cauchy_", "Tensor.log_normal_", "Tensor.multinomial",
           "F.dropout", "F.dropout1d", "F.dropout2d", "F.dropout3d", "F.alpha_dropout", "F.feature_alpha_dropout",
           "F.rrelu", "F.gumbel_softmax"]


# Methods whose other arguments may be tensors (besides the operators).
_WITH_TENSOR_ARGUMENTS = [
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "float_power", "atan2",
    "hypot", "maximum", "minimum", "fmax", "fmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "matmul", "mm", "bmm", "mv", "dot", "inner", "outer",
    "ger", "addmm", "addmv", "baddbmm", "addcmul", "addcdiv", "lerp", "where", "masked_fill", "masked_scatter",
    "masked_select", "index_add", "index_copy", "index_fill", "index_put", "index_select", "gather", "scatter",
    "scatter_add", "scatter_reduce", "take", "take_along_dim", "copy_", "expand_as", "view_as", "reshape_as",
    "type_as", "cross", "dist", "xlogy", "copysign", "heaviside", "nextafter", "ldexp", "logaddexp", "logaddexp2",
    "clamp", "clip", "kron", "fill_", "put_", "index_reduce"]


def install() -> None:
    """Fill the rule table."""
    TENSOR_ARGUMENT_METHODS.update(_OPERATORS, ["__getitem__", "__setitem__"], _WITH_TENSOR_ARGUMENTS,
                                   [n + "_" for n in _WITH_TENSOR_ARGUMENTS if not n.endswith("_")])
    elementwise = set(functional_elementwise.__all__) | {n for n, op in OPS.items() if op.kind == "elementwise"}
    register(broadcasting, *sorted(elementwise), *[n + "_" for n in sorted(elementwise)], *_OPERATORS,
             *_CONVERSIONS, *_MATRIX)
    register(broadcasting, *[f"F.{n}" for n in _ACTIVATIONS], *[f"special.{n}" for n in _special_elementwise()],
             *[f"linalg.{n}" for n in _LINALG])
    for name in _REDUCTIONS:
        register(_full_reduction, name)
    register(_max_like, "max", "min")
    register(along_dims, *_ALONG, "F.softmax", "F.log_softmax", "F.softmin", "F.normalize", "F.glu",
             "F.cosine_similarity", "special.logsumexp", "special.softmax", "special.log_softmax", "linalg.cross",
             "linalg.vecdot", "linalg.matrix_norm")
    register(over_everything(kwargs_except("out")), "linalg.vector_norm")
    register(_squeeze, "squeeze")
    register(_gather, "gather")
    register(_index_select, "index_select")
    register(_take_along_dim, "take_along_dim")
    register(_quantile, "quantile", "nanquantile")
    register(_kron, "kron")
    register(_repeat_interleave, "repeat_interleave")
    # A recurrent cell's step is elementwise over its gates' rows.
    register(broadcasting, "recurrent.rnn_update", "recurrent.lstm_update", "recurrent.gru_update")
    register(_dynamic_shape, "nonzero", "masked_select", "unique", "unique_consecutive", "argwhere")
    register(_masked_fill, "masked_fill", "masked_fill_")
    register(_fill, "Tensor.fill_")
    register(_scattering, "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
             "index_reduce")
    register(reshaping, "reshape", "view")
    register(expanding, "expand", "broadcast_to")
    register(repeating, "repeat")
    register(like("view"), "view_as")
    register(like("expand"), "expand_as")
    register(like("reshape"), "reshape_as")
    register(joining, "torch.cat", "torch.concat", "torch.concatenate", "torch.stack")
    register(indexing, "Tensor.__getitem__")
    register(assigning, "Tensor.__setitem__")
    register(_transpose_2d, "t")
    register(_unbatched_result, "Tensor.new_zeros", "Tensor.new_ones", "Tensor.new_full", "Tensor.new_empty",
             "Tensor.new_tensor")
    register(_property(lambda x: call("Tensor.permute", x, tuple(range(x.ndim - 1, -1, -1)))), "Tensor._vmap_T")
    register(_property(lambda x: call("Tensor.transpose", x, -2, -1)), "Tensor._vmap_mT", "Tensor._vmap_mH")
    register(_property(lambda x: call("Tensor.permute", x, tuple(range(x.ndim - 1, -1, -1)))), "Tensor._vmap_H")
    register(_property(lambda x: x), "Tensor._vmap_real")
    register(products.matmul, "matmul", "mm", "bmm", "mv", "dot", "inner", "Tensor.__matmul__",
             "Tensor.__rmatmul__", "linalg.matmul")
    register(products.outer, "outer", "ger")
    register(products.addmm, "addmm", "addmv", "addr", "baddbmm", "addbmm")
    register(products.trace, "trace")
    register(products.einsum, "torch.einsum")
    register(products.linear, "F.linear")
    register(nn_rules.embedding, "F.embedding")
    register(nn_rules.elementwise_loss, *[f"F.{n}" for n in sorted(nn_rules.ELEMENTWISE_LOSSES)])
    register(nn_rules.class_loss, "F.cross_entropy", "F.nll_loss")
    register(nn_rules.row_loss, *[f"F.{n}" for n in nn_rules.ROW_LOSSES])
    register(nn_rules.affine_norm, "F.layer_norm", "F.rms_norm", "F.group_norm", "F.instance_norm")
    register(_constant_pad, "F.pad")
    register(_one_hot, "F.one_hot")
    register(_batch_norm, "F.batch_norm")
    register(nn_rules.fold_all, "F.local_response_norm", "F.interpolate", "F.channel_shuffle",
             "F.upsample", "F.upsample_nearest", "F.upsample_bilinear")
    register(_grid_sampling, "F.grid_sample", "torch.grid_sampler_2d", "torch.grid_sampler_3d")
    register(_scatter_into, "slice_scatter", "select_scatter", "diagonal_scatter")
    register(_msort, "msort")
    register(lambda key, level, args, kwargs: call("torch.clone", call("torch.diagonal", *args, **kwargs)),
             "diagonal_copy")
    register(_take, "take")
    register(_put, "put")
    register(_cdist, "cdist")
    register(_dist, "dist")
    register(_split_along(1), "hsplit")
    register(_split_along(0), "vsplit")
    register(_split_along(2), "dsplit")
    register(nn_rules.generic_convolution, "convolution")
    for n in (1, 2, 3):
        register(nn_rules.convolution(n), f"F.conv{n}d", f"F.conv_transpose{n}d")
        register(nn_rules.folding(n, ("input", "indices")), f"F.max_unpool{n}d")
        register(nn_rules.folding(n), f"F.max_pool{n}d", f"F.avg_pool{n}d",
                 f"F.adaptive_avg_pool{n}d", f"F.adaptive_max_pool{n}d", f"F.lp_pool{n}d")
    for key in _RANDOM:
        RANDOM[key] = randomness.random


def _special_elementwise():
    return [n for n in getattr(special, "__all__", ()) if n not in ("logsumexp", "softmax", "log_softmax")]
