"""The tape: an op whose inputs need gradients appends one node to it (a Wengert list, in the
order of execution), of a grad_fn class named as PyTorch names it. Here: whether to record, the
recording itself, the history an in-place write gives its target, and forward mode's hooks.
"""
from __future__ import annotations

import os
import traceback

from . import grad_mode, inplace
from .forward_ad import _dual_levels, propagate, write_tangent
from .nodes import Node, grad_accumulator, positions
from .saving import current_hooks, pack_saved, save_values, saved_levels, saved_levels_cache, watched
from .saving import snapshot  # noqa: F401  (the dispatcher's in-place path calls it as tape.snapshot)


def should_record(inputs) -> bool:
    if not grad_mode._state.enabled:
        return False
    for x in inputs:
        if getattr(x, "_requires_grad", False):
            return True
        if getattr(x, "_base", None) is not None and inplace.adopts_base_grad(x):
            return True
    return False


_node_classes: dict = {}


def node_class(op, variant=None):
    """The grad_fn class of ``op`` (or of one of its ``variants``): named as PyTorch names it,
    holding the op's rules."""
    key = op if variant is None else (op, variant)
    cls = _node_classes.get(key)
    if cls is None:
        name = op.backward_name if variant is None else op.variants.get(variant, op.backward_name)
        body = {"__slots__": (), "op": op, "_rules": op.vjp}
        if op.vjp_all is not None:
            body["_backward"] = Node._joint_backward
        cls = _node_classes[key] = type(name, (Node,), body)
    return cls


_NO_EDGE = (None, 0)
# [enabled, check_nan] of anomaly detection (autograd.anomaly_mode sets it, and counts itself
# in saving.watched, the one flag record reads).
anomaly = [False, True]


def record(op, inputs, result, params=None, outputs=None, variant=None):
    """Append one tape entry: ``result`` (or each of ``outputs``) gets the new node as grad_fn;
    ``variant`` picks the node's name among the op's ``variants``."""
    nexts = []
    metas = []
    live = 0  # bit k set: input k has an edge
    kinds = 0  # bit k set: input k is a tensor
    bit = 1
    for x in inputs:
        c = x.__class__
        if c is float or c is int or not hasattr(x, "_storage"):
            nexts.append(_NO_EDGE)
            metas.append(None)
        else:
            kinds |= bit
            if x._base is not None:
                inplace.refresh_view(x)
            fn = x._grad_fn
            if fn is not None:
                nexts.append((fn, x._output_nr))
                live |= bit
            elif x._requires_grad:
                acc = grad_accumulator(x)
                nexts.append((acc, 0))
                live |= bit
            else:
                nexts.append(_NO_EDGE)
            metas.append((x._shape, x.dtype))
        bit <<= 1
    if not op.variants:
        cls = _node_classes.get(op) or node_class(op)
    elif variant is None:
        # The operand kinds name the variant; ``bit`` marks how many operands there are.
        cls = _node_classes.get((op, kinds | bit)) or _kinds_class(op, kinds, bit)
    else:
        cls = _node_classes.get((op, variant)) or node_class(op, variant)
    need = saved_levels_cache.get((op, live))
    if need is None:
        need = saved_levels(op, live)
    # Node.__init__ spelled out, every slot written once. Made after its inputs' nodes (a view's
    # history may be regenerated above): positions order every node after the nodes it reads.
    node = _new_node(cls)
    node.position = next(positions)
    node.next_functions = tuple(nexts)
    node._input_meta = tuple(metas)
    node._params = params
    node._released = False
    node._extras = None
    node._versions = None
    first = result if outputs is None else outputs[0]
    if need:
        save_values(node, op, inputs, first, need)
    else:
        node._saved = None
    if watched[0]:
        _watch(node)
    if outputs is None:
        node._out_meta = ((result._shape, result.dtype, result._storage.device),)
        result._requires_grad = True
        result._grad_fn = node
        result._output_nr = 0
        return node
    node._out_meta = tuple([(o._shape, o.dtype, o._storage.device) if o is not None else None
                            for o in outputs])
    for i, o in enumerate(outputs):
        if o is None:
            continue
        o._requires_grad = True
        o._grad_fn = node
        o._output_nr = i
    return node


_new_node = object.__new__


def _watch(node):
    """What record does for ``node`` while anomaly detection is on or saved-tensor hooks are
    set: keep the forward traceback, pass the saved tensors through the pack hook."""
    if anomaly[0]:
        forward_traceback(node)
    if node._saved is not None:
        hooks = current_hooks()
        if hooks is not None:
            pack_saved(node, hooks)


def forward_traceback(node):
    """Keep on ``node`` the stack of the forward call recording it, as PyTorch does in its
    metadata under ``traceback_`` (anomaly detection shows it when backward fails)."""
    frames = traceback.extract_stack()[:-1]
    # The package's own frames (dispatchers, the tape) end the stack: the user's call is the news.
    while len(frames) > 1 and frames[-1].filename.startswith(_PACKAGE):
        frames.pop()
    node.metadata["traceback_"] = traceback.format_list(frames)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _kinds_class(op, kinds: int, end: int):
    """The node class of ``op`` for operands whose kinds are bitmask ``kinds`` (tensor 't',
    scalar 's'), the bit ``end`` past the last one."""
    variant = ""
    bit = 1
    while bit < end:
        variant += "t" if kinds & bit else "s"
        bit <<= 1
    cls = _node_classes[(op, kinds | end)] = node_class(op, variant)
    return cls


def has_tangents(inputs) -> bool:
    if not _dual_levels[0]:
        return False
    return any(getattr(x, "_fw_tangent", None) is not None for x in inputs)


def forward_jvp(op, inputs, result, params=None):
    """Set ``result``'s tangent from the op's JVP rules and its inputs' tangents."""
    propagate(op, inputs, result, params)


def plain(x):
    """An alias of tensor ``x`` outside autograd (no history, no tangent), for computing an op's
    forward from other ops before :func:`record_result` gives it one node; other operands
    (numbers) pass through."""
    return x._view(x._shape, x._strides) if hasattr(x, "_storage") else x


def record_result(op, inputs, result, params=None, variant=None):
    """Give ``result``, computed outside the graph from ``inputs``, the node and the tangent of
    ``op``; returns ``result``."""
    if should_record(inputs):
        record(op, inputs, result, params, variant=variant)
    if has_tangents(inputs):
        forward_jvp(op, inputs, result, params)
    return result


def rebase(target, source):
    """After writing ``source``'s values into ``target`` in place, give target source's history.

    When ``target`` is a view, its base takes a CopySlices node that routes the written region's
    cotangent to the write and the rest to the base's previous history.
    """
    inplace.check_inplace(target, (source,))
    if source._requires_grad:
        target._requires_grad = True
        target._grad_fn = source._grad_fn
        target._output_nr = source._output_nr
    elif target._grad_fn is not None:
        target._grad_fn = None
        target._requires_grad = False
    base = target._base
    if base is not None and (base._requires_grad or source._requires_grad) and grad_mode._state.enabled:
        inplace.record_copy_slices(base, target)
    elif target._base is None and target._grad_fn is not None:
        target.__dict__["_rebased_at"] = target._grad_fn.position
    if _dual_levels[0] and (source._fw_tangent is not None or target._fw_tangent is not None):
        write_tangent(target, source)
