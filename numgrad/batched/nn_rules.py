"""Batching rules of numgrad.nn.functional: layers that take a batch of their own fold vmap's
batch into it, losses reduce each sample's elements."""
from __future__ import annotations

from .. import shapes
from .dispatch import call
from .rules import at_level, bind, broadcasting, expanded, wrap
from .tensor import front, running


def folding(spatial: int, tensors=("input",)):
    """Layers over (N, C, *spatial) inputs that also take one (C, *spatial) sample: a sample
    becomes a batch of vmap's; a batch of its own is folded into vmap's and unfolded after.
    Their other tensors (weights) must be shared."""
    def rule(key, level, args, kwargs):
        bound = bind(key, args, kwargs)
        if bound is None:
            return NotImplemented
        names = list(bound.arguments)
        x = bound.arguments[names[0]]
        if not at_level(x, level) or any(at_level(bound.arguments[n], level) or isinstance(bound.arguments[n], tuple)
                                    and any(at_level(t, level) for t in bound.arguments[n])
                                    for n in names[1:] if n not in tensors):
            return NotImplemented
        v = front(x)
        size = v.shape[0]
        own_batch = x.ndim == spatial + 2
        if x.ndim not in (spatial + 1, spatial + 2):
            return NotImplemented
        for n in names:
            a = bound.arguments[n]
            if n in tensors and a is not None and hasattr(a, "ndim"):
                a = expanded(a, level)
                bound.arguments[n] = a.reshape((-1,) + tuple(a.shape[2:])) if own_batch else a
        out = call(key, *bound.args, **bound.kwargs)
        return wrap(_unfold(out, size) if own_batch else out, level)
    return rule


def _unfold(out, size):
    if isinstance(out, tuple):
        return tuple(_unfold(o, size) for o in out)
    return out.reshape((size, -1) + tuple(out.shape[1:]))


ELEMENTWISE_LOSSES = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                       "binary_cross_entropy_with_logits", "soft_margin_loss", "kl_div", "poisson_nll_loss",
                       "margin_ranking_loss", "hinge_embedding_loss", "gaussian_nll_loss"}
ROW_LOSSES = ("cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
              "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss")


def elementwise_loss(key, level, args, kwargs):
    """Losses whose unreduced value is elementwise: that value batched by broadcasting, then
    each sample reduced as the reduction asks."""
    bound = bind(key, args, kwargs)
    if bound is None or bound.arguments.get("size_average") is not None or \
            bound.arguments.get("reduce") is not None:
        return NotImplemented
    reduction = bound.arguments.get("reduction", "mean")
    bound.arguments["reduction"] = "none"
    losses = broadcasting(key, level, bound.args, bound.kwargs)
    return _reduce(losses, reduction, bound.arguments.get("input", bound.arguments.get("input1")))


def _reduce(losses, reduction, input):
    if reduction == "none":
        return losses
    if reduction == "sum":
        return call("torch.sum", losses)
    if reduction == "batchmean":
        total = call("torch.sum", losses)
        return call("torch.div", total, input.shape[0]) if input.ndim else total
    return call("torch.mean", losses)


def class_loss(key, level, args, kwargs):
    """cross_entropy and nll_loss: unreduced over the samples folded into one batch, then each
    sample's mean divided by its own total weight (the weights of its non-ignored targets)."""
    bound = bind(key, args, kwargs)
    if bound is None or bound.arguments.get("size_average") is not None or \
            bound.arguments.get("reduce") is not None:
        return NotImplemented
    x, target = bound.arguments["input"], bound.arguments["target"]
    weight = bound.arguments.get("weight")
    if at_level(weight, level) or not (at_level(x, level) or at_level(target, level)) or x.ndim == 0:
        return NotImplemented
    size = running.levels[level - 1].size
    reduction = bound.arguments.get("reduction", "mean")
    vx, vt = expanded(x, level), expanded(target, level)
    own_batch = x.ndim >= 2
    if own_batch:
        vx = vx.reshape((-1,) + tuple(vx.shape[2:]))
        vt = vt.reshape((-1,) + tuple(vt.shape[2:]))
    bound.arguments["input"], bound.arguments["target"] = vx, vt
    bound.arguments["reduction"] = "none"
    losses = call(key, *bound.args, **bound.kwargs)
    losses = losses.reshape((size,) + tuple(x.shape[:1] if own_batch else ()) + tuple(losses.shape[1:]))
    losses = wrap(losses, level)
    if reduction == "none":
        return losses
    total = call("torch.sum", losses)
    if reduction == "sum":
        return total
    if target.dtype.is_floating_point:
        return call("torch.div", total, x.numel() // x.shape[0 if x.ndim == 1 else 1])
    ignore = bound.arguments.get("ignore_index", -100)
    kept = call("torch.ne", target, ignore)
    if weight is not None:
        safe = call("torch.where", kept, target, 0)
        kept = call("torch.mul", wrap(weight[expanded(safe, level)], level), kept)
    return call("torch.div", total, call("torch.sum", kept, dtype=total.dtype))


def embedding(key, level, args, kwargs):
    bound = bind(key, args, kwargs)
    if bound is None:
        return NotImplemented
    if at_level(bound.arguments["weight"], level):
        return _per_sample_embedding(bound, level)
    if not at_level(bound.arguments["input"], level):
        return NotImplemented
    bound.arguments["input"] = front(bound.arguments["input"])
    return wrap(call(key, *bound.args, **bound.kwargs), level)


def _per_sample_embedding(bound, level):
    """Each sample's rows gathered from its own table (an ensemble's, or a gradient's)."""
    table = front(bound.arguments["weight"])
    options = ("padding_idx", "max_norm", "scale_grad_by_freq", "sparse")
    if table.ndim != 3 or any(bound.arguments.get(n) not in (None, False) for n in options):
        return NotImplemented
    rows = expanded(bound.arguments["input"], level)
    n, d = table.shape[0], table.shape[2]
    m = shapes.prod(rows.shape[1:])
    picked = call("torch.gather", table, 1, rows.reshape(n, m, 1).expand(n, m, d))
    return wrap(picked.reshape((n,) + tuple(rows.shape[1:]) + (d,)), level)


def trailing(names):
    """Ops on trailing dims whose other tensors (weights) must be shared: layer_norm, rms_norm."""
    def rule(key, level, args, kwargs):
        bound = bind(key, args, kwargs)
        if bound is None:
            return NotImplemented
        first = list(bound.arguments)[0]
        if not at_level(bound.arguments[first], level) or any(at_level(bound.arguments.get(n), level) for n in names):
            return NotImplemented
        bound.arguments[first] = front(bound.arguments[first])
        return wrap(call(key, *bound.args, **bound.kwargs), level)
    return rule


def convolution(spatial: int, transposed: bool = False):
    """conv{1,2,3}d and conv_transpose{1,2,3}d: shared weights fold vmap's batch into the
    input's; per-sample weights (as a gradient under vmap makes them) become groups of one
    grouped convolution, each sample's channels convolved with its own weights."""
    shared = folding(spatial)

    def rule(key, level, args, kwargs):
        bound = bind(key, args, kwargs)
        if bound is None:
            return NotImplemented
        x, w, bias = bound.arguments["input"], bound.arguments["weight"], bound.arguments.get("bias")
        if not at_level(w, level) and not at_level(bias, level):
            return shared(key, level, args, kwargs)
        if x.ndim not in (spatial + 1, spatial + 2):
            return NotImplemented
        size = running.levels[level - 1].size
        groups = bound.arguments.get("groups", 1)
        vx, vw = expanded(x, level), expanded(w, level)
        own_batch = x.ndim == spatial + 2
        # (B, [N,] C, *spatial) -> (N, B * C, *spatial)
        vx = vx.movedim(0, 1) if own_batch else vx.unsqueeze(0)
        vx = vx.reshape((vx.shape[0], -1) + tuple(vx.shape[3:]))
        bound.arguments["input"] = vx
        bound.arguments["weight"] = vw.reshape((-1,) + tuple(vw.shape[2:]))
        if bias is not None:
            bound.arguments["bias"] = expanded(bias, level).reshape(-1)
        bound.arguments["groups"] = groups * size
        out = call(key, *bound.args, **bound.kwargs)
        out = out.reshape((out.shape[0], size, -1) + tuple(out.shape[2:]))
        return wrap(out.movedim(1, 0) if own_batch else out.squeeze(0), level)
    return rule


def generic_convolution(key, level, args, kwargs):
    """torch.convolution: the conv or conv_transpose function of its rank, whose rule runs."""
    bound = bind(key, args, kwargs)
    if bound is None:
        return NotImplemented
    a = bound.arguments
    spatial = a["weight"].ndim - 2
    if a["transposed"]:
        return call(f"F.conv_transpose{spatial}d", a["input"], a["weight"], a["bias"], a["stride"], a["padding"],
                    a["output_padding"], a["groups"], a["dilation"])
    return call(f"F.conv{spatial}d", a["input"], a["weight"], a["bias"], a["stride"], a["padding"], a["dilation"],
                a["groups"])


def affine_norm(key, level, args, kwargs):
    """layer_norm, rms_norm, group_norm and instance_norm with per-sample weight or bias:
    normalized without them, then scaled and shifted by broadcasting."""
    bound = bind(key, args, kwargs)
    if bound is None:
        return NotImplemented
    w, b = bound.arguments.get("weight"), bound.arguments.get("bias")
    if not at_level(w, level) and not at_level(b, level):
        return _SHARED_NORM[key](key, level, args, kwargs)
    x = bound.arguments["input"]
    bound.arguments["weight"] = None
    if "bias" in bound.arguments:
        bound.arguments["bias"] = None
    out = call(key, *bound.args, **bound.kwargs)
    # layer_norm and rms_norm weigh trailing dims; group and instance norm the channel dim 1.
    trailing = key in ("F.layer_norm", "F.rms_norm")
    if not trailing and w is not None:
        w = call("Tensor.reshape", w, (-1,) + (1,) * (x.ndim - 2))
    if not trailing and b is not None:
        b = call("Tensor.reshape", b, (-1,) + (1,) * (x.ndim - 2))
    if w is not None:
        out = call("torch.mul", out, w)
    return out if b is None else call("torch.add", out, b)


def fold_all(key, level, args, kwargs):
    x = args[0] if args else kwargs.get("input")
    return folding(x.ndim - 2)(key, level, args, kwargs) if x is not None and x.ndim >= 2 else NotImplemented


_SHARED_NORM = {"F.layer_norm": trailing(("weight", "bias")), "F.rms_norm": trailing(("weight",)),
                "F.group_norm": fold_all, "F.instance_norm": fold_all}


def row_loss(key, level, args, kwargs):
    """Losses over rows of features (margin, embedding and triplet losses): unreduced over the
    samples' rows folded into one batch, then each sample reduced as the reduction asks."""
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None or bound.arguments.get("size_average") is not None or \
            bound.arguments.get("reduce") is not None or at_level(bound.arguments.get("weight"), level):
        return NotImplemented
    names = [n for n in _ROW_TENSORS if n in bound.arguments]
    first = bound.arguments[names[0]]
    own_batch = first.ndim == 2
    for name in names:
        value = expanded(bound.arguments[name], level)
        bound.arguments[name] = value.reshape((-1,) + tuple(value.shape[2:])) if own_batch else value
    reduction = bound.arguments["reduction"]
    bound.arguments["reduction"] = "none"
    losses = call(key, *bound.args, **bound.kwargs)
    if own_batch:
        losses = losses.reshape(running.levels[level - 1].size, -1)
    return _reduce(wrap(losses, level), reduction, first)


# The tensors of a row loss that hold one row (or one target) per sample of the loss's batch.
_ROW_TENSORS = ("input", "input1", "input2", "anchor", "positive", "negative", "target")
