"""gradient: derivatives of sampled values by central differences, as NumPy's gradient."""
from __future__ import annotations

from numbers import Number

from .. import dtypes, names, shapes
from .movement import cat

__all__ = ["gradient"]


def _uniform(f, d: int, h, edge_order: int):
    n = f.shape[d]
    inner = (f.narrow(d, 2, n - 2) - f.narrow(d, 0, n - 2)) / (2 * h)
    f0, f1, fl, fm = f.narrow(d, 0, 1), f.narrow(d, 1, 1), f.narrow(d, n - 1, 1), f.narrow(d, n - 2, 1)
    if edge_order == 1:
        first, last = (f1 - f0) / h, (fl - fm) / h
    else:
        f2, fn = f.narrow(d, 2, 1), f.narrow(d, n - 3, 1)
        first, last = (-1.5 * f0 + 2 * f1 - 0.5 * f2) / h, (0.5 * fn - 2 * fm + 1.5 * fl) / h
    return cat([first, inner, last], d)


def _along(x, d: int, ndim: int):
    """1-D ``x`` shaped to broadcast along dim ``d`` of an ``ndim``-D tensor."""
    return x.reshape((1,) * d + (-1,) + (1,) * (ndim - d - 1))


def _coordinates(f, d: int, x, edge_order: int):
    n, ndim = f.shape[d], f.ndim
    dx = x[1:] - x[:-1]
    a1, a2 = _along(dx[:-1], d, ndim), _along(dx[1:], d, ndim)
    # Second-order differences on the uneven grid: weights of the left, middle and right samples.
    inner = (f.narrow(d, 0, n - 2) * (-a2 / (a1 * (a1 + a2))) + f.narrow(d, 1, n - 2) * ((a2 - a1) / (a1 * a2))
             + f.narrow(d, 2, n - 2) * (a1 / (a2 * (a1 + a2))))
    f0, f1, fl, fm = f.narrow(d, 0, 1), f.narrow(d, 1, 1), f.narrow(d, n - 1, 1), f.narrow(d, n - 2, 1)
    if edge_order == 1:
        first, last = (f1 - f0) / dx[0], (fl - fm) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (f0 * (-(2 * h1 + h2) / (h1 * (h1 + h2))) + f1 * ((h1 + h2) / (h1 * h2))
                 + f.narrow(d, 2, 1) * (-h1 / (h2 * (h1 + h2))))
        h1, h2 = dx[-2], dx[-1]
        last = (f.narrow(d, n - 3, 1) * (h2 / (h1 * (h1 + h2))) + fm * (-(h2 + h1) / (h1 * h2))
                + fl * ((2 * h2 + h1) / (h2 * (h1 + h2))))
    return cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order: int = 1):
    """gradient(input, *, spacing=1, dim=None, edge_order=1) -> tuple of Tensors

    The derivative of ``input`` along each of ``dim`` (default: every dim) by second-order
    central differences inside and one-sided differences of order ``edge_order`` at the ends.
    ``spacing`` is the sample distance (a number, one per dim) or the sample coordinates (one
    1-D tensor per dim)."""
    package = names.package()
    if edge_order not in (1, 2):
        raise RuntimeError(f"{package}.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [shapes.normalize_dim(d, input.ndim) for d in dims]
    if isinstance(spacing, (Number,)) or hasattr(spacing, "_storage") and spacing.ndim == 0:
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        what = ("since dim argument was not given" if dim is None else "but got dim argument of length "
                f"{len(dims)}")
        raise RuntimeError(f"{package}.gradient expected spacing to be unspecified, a scalar, or a list of length "
                           f"equal to 'self.dim() = {input.ndim}', {what}, but got a list of length {len(spacing)}")
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError(f"{package}.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.dtype.is_floating_point else input.to(dtypes.get_default_dtype())
    results = []
    for d, h in zip(dims, spacing):
        if hasattr(h, "_storage") and h.ndim == 1:
            results.append(_coordinates(f, d, h, edge_order))
        else:
            results.append(_uniform(f, d, h, edge_order))
    return tuple(results)
