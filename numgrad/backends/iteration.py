"""Plans strided loops in Python so kernels can run them without knowing ndim.

A plan drops size-1 dims, orders dims so that the output's smallest stride is innermost,
and merges neighbouring dims that every operand walks contiguously. Shared by all backends.
"""
from __future__ import annotations


def plan(shape, strides_list):
    """Coalesce a loop nest over ``shape`` for operands with ``strides_list`` (output first).

    Returns ``(shape, strides_list)`` with the fewest dims that visit the same elements in the
    same order; ``shape == ()`` means a single element.
    """
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return (), [() for _ in strides_list]
    out_strides = strides_list[0]
    # Outermost first: the output's largest stride first, ties broken by the first input.
    dims.sort(key=lambda d: tuple(-abs(s[d]) for s in strides_list), reverse=False)
    new_shape = [shape[dims[0]]]
    new_strides = [[s[dims[0]]] for s in strides_list]
    for d in dims[1:]:
        size = shape[d]
        if all(ns[-1] == s[d] * size for ns, s in zip(new_strides, strides_list)):
            new_shape[-1] *= size
            for ns, s in zip(new_strides, strides_list):
                ns[-1] = s[d]
        else:
            new_shape.append(size)
            for ns, s in zip(new_strides, strides_list):
                ns.append(s[d])
    del out_strides
    return tuple(new_shape), [tuple(ns) for ns in new_strides]


def split_reduction(shape, strides, reduce_dims):
    """Split a reduction's loop nest into kept dims and reduced dims, each coalesced.

    Returns ``(kept_shape, kept_strides, red_shape, red_strides)``; the kept dims keep their
    order (they index the contiguous output), the reduced dims are ordered for memory locality.
    """
    kept = [d for d in range(len(shape)) if d not in reduce_dims]
    red = [d for d in reduce_dims if shape[d] != 1]
    red.sort(key=lambda d: -abs(strides[d]))
    kept_shape, kept_strides = _merge([shape[d] for d in kept], [strides[d] for d in kept])
    red_shape, red_strides = _merge([shape[d] for d in red], [strides[d] for d in red])
    return kept_shape, kept_strides, red_shape, red_strides


def _merge(shape, strides):
    out_shape, out_strides = [], []
    for s, st in zip(shape, strides):
        if s == 1:
            continue
        if out_shape and out_strides[-1] == st * s:
            out_shape[-1] *= s
            out_strides[-1] = st
        else:
            out_shape.append(s)
            out_strides.append(st)
    return tuple(out_shape), tuple(out_strides)
