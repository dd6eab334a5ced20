"""Forward-mode AD: dual tensors whose tangents flow through every op's JVP rule.

A tangent lives in the primal's ``_fw_tangent`` slot for the lifetime of one dual level. Inside
a *batched* level (used by the Jacobian transforms) every tangent carries an extra leading dim:
B directions are pushed through the function in one pass. Elementwise rules batch for free:
each input's tangent is padded to the result's rank so the batch dim broadcasts against the
(unbatched) primals. Ops that move dims or reduce declare a batched rule in their record
(``batched_jvp``); any other op falls back to one call per direction.
"""
from __future__ import annotations

import weakref
from contextlib import contextmanager
from typing import NamedTuple, Optional

from . import grad_mode

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]


class _Level:
    """The one active level: its batch size (None when unbatched), whether tangent arithmetic
    may be recorded for reverse mode, and the tensors it touched."""

    def __init__(self, batch: Optional[int], differentiable: bool = True):
        self.batch = batch
        self.differentiable = differentiable
        self.holders: list = []


_current: list = [None]
# Nonzero while a dual level is open: the dispatchers' tangent hooks test it first.
_dual_levels = [0]


def _level() -> _Level:
    return _current[0]


def enter_dual_level() -> int:
    """Enters a new forward AD level; returns its index. Nested levels are not supported."""
    return _enter(None)


def _enter(batch, differentiable=True):
    if _current[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current[0] = _Level(batch, differentiable)
    _dual_levels[0] = 1
    return 0


def exit_dual_level(*, level: Optional[int] = None) -> None:
    """Exits the current level, dropping every tangent created in it."""
    lvl = _current[0]
    if lvl is None or level not in (None, 0):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    for ref in lvl.holders:
        t = ref()
        if t is not None:
            t._fw_tangent = None
    _current[0] = None
    _dual_levels[0] = 0


class dual_level:
    """Context manager for forward AD: tangents exist only inside it.

    Example::

        >>> with dual_level():
        ...     y = make_dual(x, v).sin()
        ...     jvp = unpack_dual(y).tangent   # cos(x) * v
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


@contextmanager
def _private_level(batch: Optional[int] = None, differentiable: bool = True):
    """A level for the functional transforms: with ``batch``, tangents have a leading dim of
    that many directions; unless ``differentiable``, tangents never join the reverse graph."""
    _enter(batch, differentiable)
    try:
        yield
    finally:
        exit_dual_level()


def _set_tangent(x, tangent) -> None:
    x._fw_tangent = tangent
    _current[0].holders.append(weakref.ref(x))


def make_dual(tensor, tangent, *, level: Optional[int] = None):
    """A new tensor aliasing ``tensor`` whose tangent (forward gradient) is ``tangent``."""
    lvl = _current[0]
    if lvl is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make "
                           "sure to enter_dual_level() first.")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    expected = tuple(tensor.shape) if lvl.batch is None else (lvl.batch,) + tuple(tensor.shape)
    if tuple(tangent.shape) != expected:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size [{', '.join(map(str, tensor.shape))}] "
            f"while the given forward gradient is of size [{', '.join(map(str, tangent.shape))}].")
    dual = _alias(tensor)
    _set_tangent(dual, tangent)
    return dual


def _alias(x):
    """A view of ``x`` with x's reverse-mode history and no tangent. It is its own base: the
    tangent belongs to the alias, so in-place writes to its views must land in its tangent."""
    p = x._view(x._shape, x._strides)
    p._requires_grad = x._requires_grad
    p._grad_fn = x._grad_fn
    p._output_nr = x._output_nr
    if x._requires_grad and x._grad_fn is None:
        # A leaf's alias must feed the leaf's accumulator, so route it through a recorded view.
        with grad_mode.enable_grad():
            p = x.view_as(x)
        p._fw_tangent = None
        p._base = None
    return p


class UnpackedDualTensor(NamedTuple):
    """``(primal, tangent)`` as returned by :func:`unpack_dual`."""

    primal: object
    tangent: object


def unpack_dual(tensor, *, level: Optional[int] = None) -> UnpackedDualTensor:
    """Splits a dual tensor into a view of its primal and its tangent (None if it has none)."""
    tangent = getattr(tensor, "_fw_tangent", None) if _current[0] is not None else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_primal(tensor), tangent)


# ------------------------------------------------------------------------------ propagation

def propagate(op, inputs, result, params=None):
    """Give ``result`` the tangent ``sum_i jvp_i(t_i, result, *inputs)``."""
    lvl = _current[0]
    if lvl is None:
        return
    params = params or {}
    tangents = [getattr(x, "_fw_tangent", None) for x in inputs]
    primals = tuple(_primal(x) if t is not None else x for x, t in zip(inputs, tangents))
    # Tangent arithmetic joins the reverse graph only when something in it may be differentiated.
    record = lvl.differentiable and grad_mode.is_grad_enabled() and any(
        getattr(v, "_requires_grad", False) for v in primals + tuple(tangents))
    with grad_mode.set_grad_enabled(record):
        if lvl.batch is None:
            total = _apply_rules(op, tangents, result, primals, params)
            shape = result._shape
        else:
            total = batched_jvp(op, tangents, result, primals, params)
            shape = (lvl.batch,) + result._shape
        if total is None:
            return
        if total._shape != shape:
            total = total.expand(shape)
    _set_tangent(result, total)
    node = result._grad_fn
    saved = getattr(node, "_saved", None)
    if saved and getattr(saved[0], "_storage", None) is result._storage:
        # Backward rules read the saved result: it must carry the tangent for forward-over-reverse.
        _set_tangent(saved[0], total)


def _apply_rules(op, tangents, result, primals, params):
    total = None
    ans = None
    for rule, t in zip(op.jvp, tangents):
        if t is None or rule is None:
            continue
        if ans is None:
            ans = _primal(result)
        contrib = rule(t, ans, *primals, **params)
        if contrib is None:
            continue
        total = contrib if total is None else total + contrib
    return total


def _primal(x):
    """``x`` without its tangent (a view sharing its reverse-mode history)."""
    if not hasattr(x, "_storage"):
        return x
    p = x._view(x._shape, x._strides)
    p._requires_grad = x._requires_grad
    p._grad_fn = x._grad_fn
    p._output_nr = x._output_nr
    return p


def batched_jvp(op, tangents, result, primals, params):
    """The result's batched tangent: the sum of each input's batched contribution."""
    ans = _primal(result)
    rules = op.batched_jvp or None
    elementwise = op.kind == "elementwise" and rules is None
    total = None
    for i, t in enumerate(tangents):
        if t is None or op.jvp[i] is None:
            continue
        if elementwise:
            pad = result.ndim - (t.ndim - 1)
            if pad:
                t = t.reshape((t.shape[0],) + (1,) * pad + tuple(t.shape[1:]))
            contrib = op.jvp[i](t, ans, *primals, **params)
        elif rules is not None:
            contrib = rules[i](t, ans, *primals, **params) if rules[i] is not None else None
        else:
            contrib = _per_direction(op.jvp[i], t, ans, primals, params)
        if contrib is None:
            continue
        total = contrib if total is None else total + contrib
    return total


def _per_direction(rule, t, ans, primals, params):
    """Fallback for ops without a batched rule: the plain rule applied to each direction, each
    result copied into its row of the batched tangent. The copies are in-place writes, which
    both modes differentiate, so the tangent may itself be differentiated (forward over reverse)."""
    total = None
    for b in range(t.shape[0]):
        row = rule(t[b], ans, *primals, **params)
        if total is None:
            total = row.new_empty((t.shape[0],) + tuple(row.shape))
        total[b].copy_(row)
    return total


# ------------------------------------------------------------------------------ in-place writes

def write_tangent(target, source) -> None:
    """After ``source``'s values were written into ``target`` in place, update the tangents.

    The tangent of the written region becomes ``source``'s (zero if it has none). When
    ``target`` is a view, the write lands in the tangent of its base, so the base and every
    other view of it see the change, as their primals do.
    """
    lvl = _current[0]
    if lvl is None:
        return
    root = target if target._base is None else target._base
    root_t = _mirror_tangent(root, lvl)
    view_t = _view_like(root_t, root, target, lvl.batch)
    new = getattr(source, "_fw_tangent", None)
    with grad_mode.set_grad_enabled(grad_mode.is_grad_enabled() and new is not None and new._requires_grad):
        if new is None:
            view_t._write(0)
        else:
            if lvl.batch is not None and new.ndim < view_t.ndim:
                new = new.reshape((lvl.batch,) + (1,) * (view_t.ndim - new.ndim) + tuple(new.shape[1:]))
            view_t.copy_(new)
    if target is not root:
        _set_tangent(target, view_t)


def _mirror_tangent(root, lvl):
    """``root``'s tangent laid out over a buffer shaped like root's storage, so every view of
    root maps onto it with root's own strides."""
    from ..tensor import Tensor
    t = root._fw_tangent
    if t is not None and t.__dict__.get("_mirrors") is root._storage:
        return t
    n = root._storage.data.shape[0]
    b = lvl.batch
    shape = root._shape if b is None else (b,) + root._shape
    strides = root._strides if b is None else (n,) + root._strides
    buf = Tensor._empty((n if b is None else b * n,), root.dtype, root.device)
    buf._write(0)
    mirror = Tensor._make(buf._storage, shape, strides, root._offset, root.dtype)
    mirror.__dict__["_mirrors"] = root._storage
    if t is not None:
        mirror._write(t)
    _set_tangent(root, mirror)
    return mirror


def _view_like(root_t, root, target, batch):
    from ..tensor import Tensor
    offset = root_t._offset + target._offset - root._offset
    if batch is None:
        shape, strides = target._shape, target._strides
    else:
        shape, strides = (batch,) + target._shape, (root_t._strides[0],) + target._strides
    view = Tensor._make(root_t._storage, shape, strides, offset, root_t.dtype)
    view.__dict__["_mirrors"] = None
    return view
