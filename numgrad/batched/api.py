"""vmap: a function of one sample turned into a function of a batch."""
from __future__ import annotations

import functools

from ..tensor import Tensor
from .dispatch import call, route_methods
from .pytree import broadcast_prefix, tree_flatten, tree_unflatten
from .tensor import BatchedTensor, Level, logical_dim, running


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None) -> Callable

    ``func`` mapped over dim ``in_dims`` of its inputs: the new function runs ``func`` on every
    sample of the batch at once (each op by its batching rule) and returns its outputs stacked
    along ``out_dims``. ``in_dims`` and ``out_dims`` are an int, None (not mapped) or a nested
    tuple matching the inputs (outputs). ``randomness`` says what random ops do: ``'error'``
    refuses them, ``'different'`` draws per sample, ``'same'`` draws once for all.
    ``chunk_size`` runs the batch that many samples at a time.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def vmapped(*args, **kwargs):
        return _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return vmapped


def _name(func) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def _in_dims(func, in_dims, args):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat, spec, dims = _paired(in_dims, args, f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)", "in", "inputs")
    sizes = []
    for arg, d in zip(flat, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the "
                             f"input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = arg.ndim
        if not -n <= d < n:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but "
                             f"that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        sizes.append(arg.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat, spec, dims, sizes[0]


def _paired(dims, tree, where: str, side: str, what: str):
    """``tree``'s leaves, its structure, and one of ``dims`` per leaf."""
    flat, spec = tree_flatten(tree)
    per_leaf = broadcast_prefix(dims, spec)
    if per_leaf is None:
        raise ValueError(f"{where}: {side}_dims is not compatible with the structure of `{what}`. {side}_dims has "
                         f"structure {tree_flatten(dims)[1]} but {what} has structure {spec}.")
    return flat, spec, per_leaf


def _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    flat, spec, dims, size = _in_dims(func, in_dims, args)
    if chunk_size is not None and chunk_size < size:
        return _chunked(func, out_dims, randomness, chunk_size, flat, spec, dims, size, kwargs)
    return _run(func, out_dims, randomness, flat, spec, dims, size, kwargs)


def _run(func, out_dims, randomness, flat, spec, dims, size, kwargs):
    route_methods()
    running.levels.append(Level(size, randomness))
    level = len(running.levels)
    try:
        batched = [a if d is None else BatchedTensor(a, d % a.ndim, level) for a, d in zip(flat, dims)]
        out = func(*tree_unflatten(batched, spec), **kwargs)
        return _unbatched(func, out, out_dims, level, size)
    finally:
        running.levels.pop()


def _unbatched(func, out, out_dims, level, size):
    name = _name(func)
    flat, spec, dims = _paired(out_dims, out, f"vmap({name}, ..., out_dims={out_dims})(<inputs>)", "out", "outputs")
    results = []
    for o, d in zip(flat, dims):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                             "collection of ints representing where in the outputs the vmapped dimension should "
                             "appear.")
        ours = type(o) is BatchedTensor and o._level == level
        if d is None:
            if ours:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            results.append(o)
        elif not isinstance(o, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. Did you "
                             "mean to set out_dims= to None for output?")
        elif ours:
            results.append(o._value.movedim(o._bdim, logical_dim(d, o.ndim + 1)))
        else:
            d = logical_dim(d, o.ndim + 1)
            results.append(o.unsqueeze(d).expand(tuple(o.shape[:d]) + (size,) + tuple(o.shape[d:])))
    return tree_unflatten(results, spec)


def _chunked(func, out_dims, randomness, chunk_size, flat, spec, dims, size, kwargs):
    pieces = []
    for start in range(0, size, chunk_size):
        n = min(chunk_size, size - start)
        part = [a if d is None else a.narrow(d, start, n) for a, d in zip(flat, dims)]
        pieces.append(_run(func, out_dims, randomness, part, spec, dims, n, kwargs))
    flat_pieces = [tree_flatten(p)[0] for p in pieces]
    out_spec = tree_flatten(pieces[0])[1]
    out_dims_flat = broadcast_prefix(out_dims, out_spec)
    joined = []
    for j, d in enumerate(out_dims_flat):
        parts = [fp[j] for fp in flat_pieces]
        joined.append(parts[0] if d is None else call("torch.cat", parts, d % parts[0].ndim))
    return tree_unflatten(joined, out_spec)

