"""Batching rules: how each function runs on a whole batch at once.

A rule gets the function's key, the vmap level it batches, and the call's arguments, in which
the BatchedTensors of that level stand for one sample each. It calls the function (through
``dispatch.call``, so lower levels batch in turn) on their values, the batch dim first, and
returns the result as BatchedTensors; NotImplemented hands the call to the per-sample fallback.
"""
from __future__ import annotations

import functools
import inspect

from .dispatch import FUNCTIONS, RULES, call
from .tensor import BatchedTensor, logical_dim, front, running


def register(rule, *names, prefixes=("torch", "Tensor")):
    """Use ``rule`` for each name: ``"sum"`` stands for ``torch.sum`` and ``Tensor.sum``; a dotted
    name (``"F.linear"``) for itself."""
    for name in names:
        for key in ([name] if "." in name else [f"{p}.{name}" for p in prefixes]):
            RULES[key] = rule


def at_level(x, level) -> bool:
    return type(x) is BatchedTensor and x._level == level


def wrap(result, level):
    if isinstance(result, BatchedTensor) or hasattr(result, "_storage"):
        return BatchedTensor(result, 0, level)
    if isinstance(result, tuple):
        parts = [wrap(r, level) for r in result]
        return type(result)(*parts) if hasattr(type(result), "_fields") else tuple(parts)
    if isinstance(result, list):
        return [wrap(r, level) for r in result]
    return result


def padded(v, rank: int):
    """Batch-first value ``v`` with size-1 dims after the batch dim up to logical ``rank``."""
    extra = rank - (v.ndim - 1)
    if extra <= 0:
        return v
    shape = tuple(v.shape)
    return v.reshape(shape[:1] + (1,) * extra + shape[1:])


def expanded(x, level):
    """``x`` as a batch-first value at ``level``: its own samples or, unbatched, repeated."""
    if at_level(x, level):
        return front(x)
    return x.unsqueeze(0).expand((running.levels[level - 1].size,) + tuple(x.shape))


@functools.lru_cache(maxsize=None)
def _signature(key):
    """The parameters of ``key``'s function; a method that forwards ``*args, **kwargs`` is read
    through the function of the same name, which it forwards to."""
    sig = inspect.signature(inspect.unwrap(FUNCTIONS[key]))
    twin = "torch." + key.rpartition(".")[2]
    if key.startswith("Tensor.") and twin in FUNCTIONS and any(
            p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
        return _signature(twin)
    return sig


def first_parameter(bound) -> str:
    return next(iter(bound.signature.parameters))


def bind(key, args, kwargs, defaults: bool = False):
    """``args`` and ``kwargs`` bound to the parameters of ``key``'s function (with the defaults of
    those not given when ``defaults``), or None where they do not fit."""
    try:
        bound = _signature(key).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    if defaults:
        bound.apply_defaults()
    return bound


def _tensors(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if hasattr(a, "ndim") and hasattr(a, "dtype") and not isinstance(a, type):
            yield a


# ----------------------------------------------------------------------------- elementwise

def broadcasting(key, level, args, kwargs):
    """Ops that broadcast their tensors (elementwise ops, and ops on trailing dims such as
    matrix functions): each batched value gets size-1 dims up to the largest logical rank, so the
    batch dim lines up in front of the others."""
    if kwargs.get("out") is not None:
        return NotImplemented
    rank = max((t.ndim for t in _tensors(args, kwargs)), default=0)
    if in_place(key) or kwargs.get("inplace") is True:
        return _in_place(key, level, args, kwargs, rank)

    def value(a):
        return padded(front(a), rank) if at_level(a, level) else a
    return wrap(call(key, *[value(a) for a in args], **{k: value(v) for k, v in kwargs.items()}), level)


def in_place(key) -> bool:
    """Whether ``key`` names an in-place method (``add_``, ``__iadd__``)."""
    name = key.rpartition(".")[2]
    if name.endswith("__"):
        return name.startswith("__i") and name not in ("__index__", "__int__", "__invert__", "__iter__")
    return name.endswith("_")


def _in_place(key, level, args, kwargs, rank):
    self = args[0]
    if not at_level(self, level):
        raise RuntimeError(
            "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in "
            "extra_args that has more elements than `self`. This happened due to `other` being vmapped over but "
            "`self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace "
            "arithmetic.")
    if self.ndim < rank:
        return NotImplemented

    def value(a):
        return padded(front(a), rank) if at_level(a, level) else a
    call(key, front(self), *[value(a) for a in args[1:]], **{k: value(v) for k, v in kwargs.items()})
    return self


# ----------------------------------------------------------------------------- dims

# Ops whose dims index their result, one dim larger than the input.
_RESULT_DIMS = ("unsqueeze", "unsqueeze_", "diag_embed")
_DIM_PARAMS = ("dim", "dims", "dim0", "dim1", "dim2", "source", "destination", "start_dim", "end_dim", "dimension")


def _physical_dims(d, rank: int, extra: int = 0):
    """Logical dim(s) ``d`` of a rank-``rank`` tensor as dims of its batch-first value (``extra``
    widens the range, for dims that index the result: unsqueeze, stack)."""
    if isinstance(d, (tuple, list)):
        return type(d)(_physical_dims(x, rank, extra) for x in d)
    return logical_dim(d, rank + extra) + 1


def along_dims(key, level, args, kwargs):
    """Ops over given dims (dim arguments named as in _DIM_PARAMS): the batched tensors padded to
    one rank, each dim shifted past the batch dim. A dim of None (over everything) and 0-d samples
    go to the fallback unless the op has a rule of its own."""
    if kwargs.get("out") is not None:
        return NotImplemented
    bound = bind(key, args, kwargs, defaults=True)
    if bound is None:
        return NotImplemented
    tensors = [t for t in _tensors(list(bound.arguments.values()), {})]
    rank = max((t.ndim for t in tensors), default=0)
    extra = 1 if key.rpartition(".")[2] in _RESULT_DIMS else 0
    if rank + extra == 0:
        return NotImplemented
    params = _signature(key).parameters
    for name in _DIM_PARAMS:
        if name in bound.arguments:
            d = bound.arguments[name]
            if params[name].kind is inspect.Parameter.VAR_POSITIONAL:
                d = d[0] if len(d) == 1 and isinstance(d[0], (tuple, list)) else d
                bound.arguments[name] = (0,) + tuple(_physical_dims(tuple(d), rank)) if name == "dims" and \
                    key.endswith("permute") else tuple(_physical_dims(tuple(d), rank, extra))
            elif d is None or (isinstance(d, (tuple, list)) and not d and name == "dim"):
                return NotImplemented
            elif isinstance(d, (int, tuple, list)) and not isinstance(d, bool):
                bound.arguments[name] = _physical_dims(d, rank, extra)
            else:
                return NotImplemented
    for name, a in bound.arguments.items():
        if at_level(a, level):
            bound.arguments[name] = padded(front(a), rank)
    return wrap(call(key, *bound.args, **bound.kwargs), level)


def over_everything(reducer):
    """Reductions whose dim may be None (every dim): a rule that flattens each sample first and
    reduces over dim 1 (``reducer`` gives the keyword args that call takes) and otherwise maps
    the dims as :func:`along_dims`."""
    def rule(key, level, args, kwargs):
        bound = bind(key, args, kwargs)
        if bound is None or kwargs.get("out") is not None:
            return NotImplemented
        names = list(bound.arguments)
        x = bound.arguments[names[0]]
        dim = bound.arguments.get("dim")
        if not at_level(x, level) or any(at_level(a, level) for a in list(bound.arguments.values())[1:]):
            return NotImplemented
        if dim is not None and not (isinstance(dim, (tuple, list)) and not dim) and x.ndim:
            return along_dims(key, level, args, kwargs)
        if dim is not None and x.ndim == 0:
            return NotImplemented
        keepdim = bound.arguments.get("keepdim", False)
        v = front(x)
        flat = v.reshape(v.shape[0], -1)
        out = call(key, flat, dim=1, **reducer(bound.arguments))
        if dim is None and isinstance(out, tuple) and key.rpartition(".")[2] in _VALUE_ONLY:
            out = out[0]
        if keepdim:
            out = _reshaped(out, (v.shape[0],) + (1,) * x.ndim)
        return wrap(out, level)
    return rule


# Reductions that return the value alone over everything, and (values, indices) over a dim.
_VALUE_ONLY = ("max", "min", "median", "nanmedian")


def _reshaped(out, shape):
    if isinstance(out, tuple):
        parts = [o.reshape(shape) for o in out]
        return type(out)(*parts) if hasattr(type(out), "_fields") else tuple(parts)
    return out.reshape(shape)


def kwargs_except(*names):
    def pick(arguments):
        return {k: v for k, v in list(arguments.items())[1:] if k not in names + ("dim", "keepdim")}
    return pick


# ----------------------------------------------------------------------------- shapes

def _sizes(bound, name):
    s = bound.arguments[name]
    if isinstance(s, tuple) and len(s) == 1 and isinstance(s[0], (tuple, list)):
        s = s[0]
    return tuple(s)


def reshaping(key, level, args, kwargs):
    """reshape and view to a logical shape: the batch size goes in front."""
    bound = bind(key, args, kwargs)
    x = args[0]
    if bound is None or not at_level(x, level) or kwargs:
        return NotImplemented
    name = [n for n in bound.arguments if n != list(bound.arguments)[0]][0]
    shape = _sizes(bound, name)
    if not all(isinstance(s, int) for s in shape):
        return NotImplemented  # view(dtype)
    v = front(x)
    return wrap(call(key, v, (v.shape[0],) + shape), level)


def expanding(key, level, args, kwargs):
    bound = bind(key, args, kwargs)
    x = args[0]
    if bound is None or not at_level(x, level) or kwargs:
        return NotImplemented
    shape = _sizes(bound, list(bound.arguments)[1])
    v = padded(front(x), len(shape))
    return wrap(call(key, v, (v.shape[0],) + shape), level)


def repeating(key, level, args, kwargs):
    x = args[0]
    if not at_level(x, level) or kwargs:
        return NotImplemented
    sizes = tuple(args[1]) if len(args) == 2 and isinstance(args[1], (tuple, list)) else tuple(args[1:])
    v = padded(front(x), len(sizes))
    return wrap(call(key, v, (1,) + sizes), level)


def like(method):
    """view_as, expand_as, reshape_as: the method of the same name on ``other``'s logical shape."""
    def rule(key, level, args, kwargs):
        x, other = args
        return call("Tensor." + method, x, tuple(other.shape))
    return rule


def joining(key, level, args, kwargs):
    """cat and stack: unbatched tensors repeated over the batch, the dim shifted."""
    bound = bind(key, args, kwargs)
    if bound is None or bound.arguments.get("out") is not None:
        return NotImplemented
    tensors = list(bound.arguments["tensors"])
    if not tensors:
        return NotImplemented
    rank = max(t.ndim for t in tensors)
    if any(t.ndim != rank for t in tensors):
        return NotImplemented
    extra = 1 if key.endswith("stack") else 0
    dim = _physical_dims(bound.arguments.get("dim", 0), rank, extra)
    return wrap(call(key, [expanded(t, level) for t in tensors], dim), level)


def indexing(key, level, args, kwargs):
    """x[index] with the batch dim kept in front: basic indices and unbatched index tensors in
    one group."""
    x, index = args
    if not at_level(x, level):
        return NotImplemented
    parts = index if isinstance(index, tuple) else (index,)
    advanced = [i for i, p in enumerate(parts) if hasattr(p, "ndim") or isinstance(p, (list, bool))]
    if any(at_level(p, level) or isinstance(p, BatchedTensor) for p in parts):
        return NotImplemented
    if advanced and advanced != list(range(advanced[0], advanced[-1] + 1)):
        return NotImplemented  # separated index tensors move their dims in front of the batch
    return wrap(call(key, front(x), (slice(None),) + tuple(parts)), level)


def assigning(key, level, args, kwargs):
    x, index, value = args
    if not at_level(x, level):
        if at_level(value, level):
            return _in_place(key, level, (x, value), {}, 0)
        return NotImplemented
    parts = index if isinstance(index, tuple) else (index,)
    if any(isinstance(p, BatchedTensor) for p in parts) or any(
            hasattr(p, "ndim") or isinstance(p, (list, bool)) for p in parts):
        return NotImplemented
    v = front(x)
    target = v[(slice(None),) + tuple(parts)]
    if at_level(value, level):
        value = padded(front(value), target.ndim - 1)
    call(key, v, (slice(None),) + tuple(parts), value)
    return None
