"""The tape: one node per recorded op, in execution order, and the engine that replays it.

Each node's ``position`` is its place in the Wengert list. ``backward`` gathers the nodes
reachable from the roots and replays them in decreasing position, so every node sees the sum
of its consumers' cotangents before it runs. Nodes live only as long as the tensors that
reference them; nothing global keeps the graph alive.
"""
from __future__ import annotations

import heapq
import itertools
import weakref

from . import grad_mode

_positions = itertools.count()


class Node:
    """A recorded op (``grad_fn``): saved values, edges to its inputs' nodes and its VJP rules."""

    __slots__ = ("op", "position", "next_functions", "_inputs", "_versions", "_ans", "_ans_meta",
                 "_params", "_input_meta", "_released", "_pre_hooks", "_hooks", "_retained",
                 "_tensor_hooks", "__weakref__", "__dict__")

    def __init__(self):
        self.position = next(_positions)
        self._released = False
        self._pre_hooks = None
        self._hooks = None
        self._retained = None
        self._tensor_hooks = None

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _Handle(self._pre_hooks, fn)

    @property
    def metadata(self) -> dict:
        return self.__dict__

    # --------------------------------------------------------------- saved values
    def _check_alive(self):
        if self._released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Saved intermediate values of the graph are freed "
                "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                "backward through the graph a second time or if you need to access saved tensors after "
                "calling backward.")

    def _unpack(self):
        """The saved inputs and result, after checking no in-place op changed them since."""
        self._check_alive()
        inputs = self._inputs
        for x, v in zip(inputs, self._versions):
            if v is not None and x._storage.version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: [{_type_str(x)} [{', '.join(map(str, x.shape))}]], which is "
                    f"output 0 of {x.grad_fn.name() if x.grad_fn is not None else 'a leaf'}, is at version "
                    f"{x._storage.version}; expected version {v} instead. Hint: the backtrace further above "
                    "shows the operation that failed to compute its gradient. The variable in question was "
                    "changed in there or anywhere later. Good luck!")
        ans = self._ans
        if ans is not None:
            alias, version = ans
            if alias._storage.version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: [{_type_str(alias)} [{', '.join(map(str, alias.shape))}]], which is "
                    f"output 0 of {self.name()}, is at version {alias._storage.version}; expected version "
                    f"{version} instead.")
            # Re-attach the result to this node so rules that use it stay differentiable.
            ans = alias._view(alias._shape, alias._strides)
            ans.requires_grad = True
            ans.grad_fn = self
        return inputs, ans

    def release(self):
        self._inputs = ()
        self._ans = None
        self._released = True

    def apply(self, grads_out):
        """The cotangents of this node's inputs, given those of its outputs."""
        inputs, ans = self._unpack()
        g = grads_out[0]
        params = self._params or {}
        out = []
        for i, rule in enumerate(self.op.vjp):
            if rule is None or self.next_functions[i][0] is None:
                out.append(None)
            else:
                out.append(rule(g, ans, *inputs, **params))
        return out


def _type_str(t) -> str:
    from ..ops.registry import torch_type_name
    return f"torch.{torch_type_name(t.dtype)}Tensor"


class _Handle:
    _ids = itertools.count()

    def __init__(self, table: dict, fn):
        self.id = next(self._ids)
        self._table = weakref.ref(table) if False else table
        table[self.id] = fn

    def remove(self):
        self._table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds arriving cotangents into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__()
        self.position = -1
        self.variable = variable
        self.next_functions = ()
        self.op = None

    def apply(self, grads_out):
        return []


def grad_accumulator(t) -> AccumulateGrad:
    ref = t.__dict__.get("_accumulator")
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t.__dict__["_accumulator"] = weakref.ref(acc)
    return acc


def edge(x):
    """(node, output index) through which a cotangent reaches ``x``; (None, 0) if none does."""
    if not hasattr(x, "_storage"):
        return (None, 0)
    if x.grad_fn is not None:
        return (x.grad_fn, x._output_nr)
    if x.requires_grad:
        return (grad_accumulator(x), 0)
    return (None, 0)


# -------------------------------------------------------------------- recording

def should_record(inputs) -> bool:
    if not grad_mode._state.enabled:
        return False
    for x in inputs:
        if getattr(x, "requires_grad", False):
            return True
    return False


_node_classes: dict = {}


def node_class(name: str):
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name, (Node,), {"__slots__": ()})
    return cls


def record(op, inputs, result, params=None, outputs=None):
    """Append one tape entry: ``result`` (or each of ``outputs``) gets the new node as grad_fn."""
    node = node_class(op.backward_name)()
    node.op = op
    node.next_functions = tuple(edge(x) for x in inputs)
    node._inputs = tuple(inputs)
    node._versions = tuple(x._storage.version if hasattr(x, "_storage") else None for x in inputs)
    node._params = params
    node._input_meta = tuple((x._shape, x.dtype) if hasattr(x, "_storage") else None for x in inputs)
    outs = outputs if outputs is not None else (result,)
    first = outs[0]
    alias = first._view(first._shape, first._strides)
    node._ans = (alias, first._storage.version)
    for i, o in enumerate(outs):
        if o is None:
            continue
        o.requires_grad = True
        o.grad_fn = node
        o._output_nr = i
    return node


def rebase(target, source):
    """After writing ``source``'s values into ``target`` in place, give target source's history."""
    if target.grad_fn is None and target.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation.")
    if source.requires_grad:
        target.requires_grad = True
        target.grad_fn = source.grad_fn
        target._output_nr = source._output_nr
    if source._fw_tangent is not None:
        target._fw_tangent = source._fw_tangent


# -------------------------------------------------------------------- forward mode hooks

_dual_levels = [0]


def has_tangents(inputs) -> bool:
    if not _dual_levels[0]:
        return False
    return any(getattr(x, "_fw_tangent", None) is not None for x in inputs)


def forward_jvp(op, inputs, result, params=None):
    """Set ``result``'s tangent from the op's JVP rules and its inputs' tangents."""
    from .forward_ad import propagate
    propagate(op, inputs, result, params)


# -------------------------------------------------------------------- the engine

def _sum_to(g, shape, dtype):
    if g._shape != tuple(shape):
        from ..ops.reductions import sum_to
        g = sum_to(g, shape)
    if g.dtype is not dtype:
        g = g.to(dtype)
    return g


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, capture=None,
                 accumulate=True):
    """Replay the tape from ``roots`` with cotangents ``root_grads``.

    ``capture`` maps (node, index) edges to slots whose arriving cotangent is returned instead
    of (when ``accumulate`` is False) being accumulated into leaves.
    """
    pending: dict = {}
    heap = []
    captured = {}

    def deliver(node, idx, g):
        slot = pending.get(node)
        if slot is None:
            slot = pending[node] = {}
            heapq.heappush(heap, (-node.position, id(node), node))
        prev = slot.get(idx)
        slot[idx] = g if prev is None else prev + g

    for t, g in zip(roots, root_grads):
        node, idx = edge(t)
        if node is None:
            continue
        deliver(node, idx, g)

    with grad_mode.set_grad_enabled(create_graph):
        while heap:
            _, _, node = heapq.heappop(heap)
            slot = pending.pop(node)
            n_out = max(slot) + 1 if slot else 1
            grads_out = [slot.get(i) for i in range(n_out)]
            grads_out = _run_tensor_hooks(node, grads_out)
            if capture is not None:
                for i, g in enumerate(grads_out):
                    key = (node, i)
                    if key in capture:
                        captured[key] = g
            if isinstance(node, AccumulateGrad):
                if accumulate and (capture is None or (node, 0) not in capture or accumulate):
                    _accumulate(node.variable, grads_out[0], create_graph)
                continue
            if capture is not None and not accumulate and not _leads_to_capture(node, capture):
                continue
            if node._pre_hooks:
                for fn in list(node._pre_hooks.values()):
                    r = fn(tuple(grads_out))
                    if r is not None:
                        grads_out = list(r)
            grads_out = [g if g is not None else None for g in grads_out]
            if grads_out[0] is None:
                from ..creation import zeros
                meta = node._ans[0] if node._ans is not None else None
                if meta is None:
                    node._check_alive()
                grads_out[0] = zeros(meta._shape, dtype=meta.dtype, device=meta.device)
            grads_in = node.apply(grads_out)
            if node._hooks:
                for fn in list(node._hooks.values()):
                    r = fn(tuple(grads_in), tuple(grads_out))
                    if r is not None:
                        grads_in = list(r)
            if not retain_graph:
                node.release()
            for (nxt, idx), g, meta in zip(node.next_functions, grads_in, node._input_meta):
                if nxt is None or g is None:
                    continue
                deliver(nxt, idx, _sum_to(g, meta[0], meta[1]))
    return captured


def _leads_to_capture(node, capture) -> bool:
    cache = capture.setdefault("__reach__", {})
    stack = [node]
    order = []
    while stack:
        n = stack.pop()
        if n in cache:
            continue
        cache[n] = False
        order.append(n)
        for nxt, _ in getattr(n, "next_functions", ()):
            if nxt is not None and nxt not in cache:
                stack.append(nxt)
    # Resolve reachability bottom-up in reverse discovery order.
    for n in reversed(order):
        hit = any((n, i) in capture for i in range(4))
        if not hit:
            for nxt, _ in getattr(n, "next_functions", ()):
                if nxt is not None and cache.get(nxt):
                    hit = True
                    break
        cache[n] = hit
    return cache[node]


def _run_tensor_hooks(node, grads_out):
    hooks = node._tensor_hooks
    if hooks:
        for idx, fns in hooks.items():
            g = grads_out[idx] if idx < len(grads_out) else None
            if g is None:
                continue
            for fn in list(fns.values()):
                r = fn(g)
                if r is not None:
                    g = r
            grads_out[idx] = g
    retained = node._retained
    if retained:
        for idx, ref in retained.items():
            t = ref()
            g = grads_out[idx] if idx < len(grads_out) else None
            if t is not None and g is not None:
                t.grad = g.detach() if t.grad is None else t.grad + g.detach()
    return grads_out


def _accumulate(leaf, g, create_graph):
    if g is None:
        return
    if not create_graph:
        g = g.detach()
    if leaf.grad is None:
        # The arriving cotangent may alias a user's tensor (backward(gradient=v) through identity
        # ops): the leaf gets its own copy so later accumulation never writes into it.
        leaf.grad = g if create_graph else g.clone()
    elif create_graph:
        leaf.grad = leaf.grad + g
    else:
        leaf.grad.add_(g)
    if leaf.__dict__.get("_post_accumulate_hooks"):
        for fn in list(leaf.__dict__["_post_accumulate_hooks"].values()):
            fn(leaf)
