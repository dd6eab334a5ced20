"""What a node keeps for its VJP rules: which of ``(ans, *inputs)`` each rule reads and how
(``saved_args``), those values alone at the level read (the tensor, with its version checked at
backward, or its geometry only), snapshots of inputs about to be written in place, and the
saved-tensor hooks (``autograd.graph.saved_tensors_hooks``) that may replace them.
"""
from __future__ import annotations

import threading

from ..memo import Memo
from ..shapes import Size
from . import inplace
from .rule_reads import FULL, META, argument_reads


def saved_args(op):
    """Per VJP rule, how it reads ``(ans, *inputs)``: a tuple of levels per rule (cached). A joint
    rule's reads count for each input."""
    uses = op.__dict__.get("_saved_args")
    if uses is None:
        uses = []
        # A joint rule reads the same for every input: whichever needs a gradient saves its reads.
        rules = op.vjp if op.vjp_all is None else (op.vjp_all,) * op.nin
        for rule in rules:
            if rule is None:
                uses.append(None)
                continue
            d = getattr(rule, "_derivative", None)
            uses.append(tuple(argument_reads(d, 0, op.nin + 1) if d is not None
                              else argument_reads(rule, 1, op.nin + 1)))
        uses = tuple(uses)
        op.__dict__["_saved_args"] = uses
    return uses


class _Geometry:
    """What a rule that only reads ``x.shape`` and friends needs of ``x``: no data, no version."""

    __slots__ = ("_shape", "_strides", "_offset", "dtype", "device")

    def __init__(self, x):
        self._shape = x._shape
        self._strides = x._strides
        self._offset = x._offset
        self.dtype = x.dtype
        self.device = x.device

    @property
    def shape(self):
        return Size(self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    def size(self, dim=None):
        return self.shape if dim is None else self._shape[dim]

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def storage_offset(self):
        return self._offset

    def numel(self):
        n = 1
        for s in self._shape:
            n *= s
        return n

    def is_floating_point(self):
        return self.dtype.is_floating_point


saved_levels_cache = Memo()


def saved_levels(op, live: int):
    """What a node of ``op`` saves of ``(ans, *inputs)`` when the inputs in bitmask ``live``
    need gradients: the strongest level any of their rules reads, or False for nothing."""
    merged = None
    for k, u in enumerate(saved_args(op)):
        if u is None or not live >> k & 1:
            continue
        if merged is None:
            merged = list(u)
        else:
            for j, level in enumerate(u):
                if level > merged[j]:
                    merged[j] = level
    need = tuple(merged) if merged is not None and any(merged) else False
    saved_levels_cache[(op, live)] = need
    return need


def save_values(node, op, inputs, first, need):
    """Keep on ``node`` what ``need`` asks of ``(first, *inputs)``, with the versions to check."""
    n = len(need)
    saved = [None] * n
    versions = None
    kept = False  # something that outlives release: geometry, a number, a view's detached input
    level = need[0]
    if level == FULL:
        # An alias, not ``first`` itself: a saved output must not keep its node alive.
        saved[0] = first._view(first._shape, first._strides, first._offset)
        versions = [None] * n
        versions[0] = first._storage._counter[0]
    elif level == META:
        saved[0] = _Geometry(first)
        kept = True
    view_op = op.kind == "view"
    k = 1
    for x in inputs:
        level = need[k]
        if level:
            if not hasattr(x, "_storage"):
                saved[k] = x
                kept = True
            elif view_op:
                # A view's VJP depends only on geometry; its input may be written in place later.
                saved[k] = x.detach()
                kept = True
            elif level == META:
                saved[k] = _Geometry(x)
                kept = True
            else:
                saved[k] = x
                if versions is None:
                    versions = [None] * n
                versions[k] = x._storage._counter[0]
        k += 1
    node._saved = tuple(saved)
    # Left None when nothing saved can be written in place: no check, nothing to free.
    if versions is not None:
        node._versions = tuple(versions)
        node._keeps = kept


def snapshot(x):
    """A copy of tensor ``x`` that carries x's history and tangent: what a node of an in-place
    op reads of ``x`` once the write has overwritten it (PyTorch saves such a copy too)."""
    fn, nr = inplace.edge(x)  # a view's history is brought up to date first
    copy = x._view(x._shape, x._strides).clone()  # cloned outside autograd: records no node
    if fn is not None and x._grad_fn is not None:
        copy._requires_grad = True
        copy._grad_fn = fn
        copy._output_nr = nr
    copy._fw_tangent = x._fw_tangent
    return copy


def save_snapshot(node, x):
    """``x`` is about to be written in place: if ``node`` saved it as its first input, the node
    reads a :func:`snapshot` of it instead."""
    saved = getattr(node, "_saved", None)
    if saved is None or node._versions is None or len(saved) < 2 or saved[1] is not x:
        return
    copy = snapshot(x)
    versions = list(node._versions)
    versions[1] = copy._storage._counter[0]
    node._saved = (saved[0], copy) + saved[2:]
    node._versions = tuple(versions)


# ------------------------------------------------------------ saved-tensor hooks

# Open saved_tensors_hooks contexts in all threads, plus one while anomaly detection is on: the
# tape looks further only when nonzero, so recording pays one list read while neither is used.
watched = [0]
_local = threading.local()


def hooks_stack() -> list:
    """This thread's stack of ``(pack_hook, unpack_hook)`` pairs, innermost last."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def disabled_message():
    """The error message set by ``disable_saved_tensors_hooks`` in this thread, or None."""
    return getattr(_local, "disabled", None)


def set_disabled_message(message):
    _local.disabled = message


def current_hooks():
    """The innermost ``(pack_hook, unpack_hook)`` pair of this thread, or None."""
    if not watched[0]:
        return None
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


class Packed:
    """A saved tensor handed to a pack hook: what it returned, the unpack hook to undo it, and
    the edge through which the saved tensor's gradient flowed (or None)."""

    __slots__ = ("value", "unpack", "edge")

    def __init__(self, value, unpack, edge):
        self.value = value
        self.unpack = unpack
        self.edge = edge


def pack(x, hooks):
    """``x`` through ``hooks``' pack hook; the hooks are off while it runs, so tensors saved by
    ops inside it are kept as they are."""
    stack = hooks_stack()
    _local.stack = []
    try:
        e = inplace.edge(x)
        return Packed(hooks[0](x), hooks[1], e if e[0] is not None else None)
    finally:
        _local.stack = stack


def unpack(p, attach=False):
    """The tensor ``p`` packs, through its unpack hook; with ``attach``, an alias of it that
    carries the saved tensor's history, so that a recorded backward reaches it."""
    t = p.unpack(p.value)
    if not hasattr(t, "_storage"):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                        f"{type(t).__name__}")
    if attach and p.edge is not None:
        t = t._view(t._shape, t._strides, t._offset)
        t._requires_grad = True
        t._grad_fn, t._output_nr = p.edge
    return t


def pack_saved(node, hooks):
    """Replace the tensors ``node`` saved by what the pack hook makes of them; ``node`` becomes
    its class's unpacking twin, whose backward reads them back through the unpack hook."""
    node._saved = tuple([pack(x, hooks) if hasattr(x, "_storage") else x for x in node._saved])
    node._versions = None
    node._keeps = True
    cls = node.__class__
    twin = _unpacking_twins.get(cls)
    if twin is None:
        twin = _unpacking_twins[cls] = type(cls.__name__, (cls,), {
            "__slots__": (), "_packed_backward": cls._backward, "_backward": _unpacking_backward,
            "__module__": cls.__module__})
    node.__class__ = twin


_unpacking_twins: dict = {}


def _unpacking_backward(node, grads_out, create_graph, free, edges=None):
    """The backward of a node whose saved tensors went through a pack hook: unpacked for the
    call (and version-stamped as read), packed again after it unless the call freed them."""
    if node._released:
        node._check_alive()
    packed = node._saved
    saved = []
    versions = []
    for p in packed:
        if p.__class__ is Packed:
            t = unpack(p, create_graph)
            saved.append(t)
            versions.append(t._storage._counter[0])
        else:
            saved.append(p)
            versions.append(None)
    node._saved = tuple(saved)
    node._versions = tuple(versions)
    try:
        return node._packed_backward(grads_out, create_graph, free, edges)
    finally:
        if not node._released:
            node._saved = packed
            node._versions = None
