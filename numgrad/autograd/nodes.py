"""The graph's nodes: a recorded op (``grad_fn``) with its edges to its inputs' nodes and the
values its VJP rules read, the sink that accumulates a leaf's gradient, and the hooks users hang
on nodes and tensors. Nodes live only as long as the tensors that reference them; nothing global
keeps them alive.
"""
from __future__ import annotations

import itertools
import re
import weakref

from ..dtypes import torch_type_name

# The Wengert list's numbering: every node takes the next position when it is made.
positions = itertools.count()


class _Hooks:
    """The rarely used per-node tables, kept off the hot path in one optional slot."""

    __slots__ = ("pre", "post", "tensor", "retained")

    def __init__(self):
        self.pre = {}
        self.post = {}
        self.tensor = {}
        self.retained = {}


class Node:
    """A recorded op (``grad_fn``): edges to its inputs' nodes, saved values, VJP rules.

    ``position`` is the node's place in the Wengert list; ``next_functions`` holds one
    ``(node, output_index)`` edge per input, ``(None, 0)`` where no gradient flows.
    """

    __slots__ = ("position", "next_functions", "_saved", "_versions", "_params", "_input_meta",
                 "_out_meta", "_released", "_extras", "_keeps", "__weakref__", "__dict__")
    op = None
    _rules = ()

    def __init__(self):
        self.position = next(positions)
        self._saved = None
        self._versions = None
        self._params = None
        self._released = False
        self._extras = None

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def _hook_tables(self) -> _Hooks:
        if self._extras is None:
            self._extras = _Hooks()
        return self._extras

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; it may return new grad_inputs."""
        return RemovableHandle(self._hook_tables().post, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; it may return new grad_outputs."""
        return RemovableHandle(self._hook_tables().pre, fn)

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

    def _reattached(self, saved):
        """``saved`` with the result seen as this node's output: rules reading it must stay
        differentiable when the backward pass is itself recorded."""
        ans = saved[0]
        tangent = ans._fw_tangent
        ans = ans._view(ans._shape, ans._strides)
        ans._requires_grad = True
        ans._grad_fn = self
        ans._fw_tangent = tangent
        return (ans,) + saved[1:]

    def release(self):
        # Only saved tensors are freed; geometry and scalars (what PyTorch saves as sizes) stay,
        # so a node that saved no tensor can be replayed, as in PyTorch.
        versions = self._versions
        if versions is not None:
            if self._keeps:
                kept = list(self._saved)
                for i, v in enumerate(versions):
                    if v is not None:
                        kept[i] = None
                self._saved = tuple(kept)
            else:
                self._saved = (None,) * len(versions)
            self._versions = None
            self._released = True

    def apply(self, grads_out, create_graph=False):
        """The cotangents of this node's inputs, given those of its outputs."""
        return self._backward(grads_out, create_graph, False)

    def _backward(self, grads_out, create_graph, free, edges=None):
        """What the engine runs per node: :meth:`apply`, then :meth:`release` if ``free``, in one
        call; ``edges`` (``next_functions`` when None) says which inputs' cotangents to compute:
        those whose node is not None. One and two inputs are spelled out: a call through
        ``*saved`` costs more than the rest of the engine's bookkeeping for a node."""
        saved = self._saved
        versions = self._versions
        if versions is not None:
            for v, x in zip(versions, saved):
                if v is not None and x._storage._counter[0] != v:
                    raise modified_error(x, v, self if x is saved[0] else None)
            if create_graph and versions[0] is not None:
                saved = self._reattached(saved)
        elif self._released:
            self._check_alive()
        g = grads_out[0] if len(grads_out) == 1 else tuple(grads_out)
        nexts = self.next_functions if edges is None else edges
        rules = self._rules
        n = len(nexts)
        if saved is None:
            saved = _NOTHING_SAVED[n] if n < 3 else (None,) * (n + 1)
        params = self._params
        k = len(saved)
        if k == 2 and n == 1 and len(rules) == 1:
            rule = rules[0]
            if rule is None or nexts[0][0] is None:
                out = [None]
            elif params:
                out = [rule(g, saved[0], saved[1], **params)]
            else:
                out = [rule(g, saved[0], saved[1])]
        elif k == 3 and n == 2 and len(rules) == 2 and not params:
            rx, ry = rules
            ans, x, y = saved
            out = [None if rx is None or nexts[0][0] is None else rx(g, ans, x, y),
                   None if ry is None or nexts[1][0] is None else ry(g, ans, x, y)]
        else:
            params = params or _NO_PARAMS
            out = [None if rule is None or nxt is None else rule(g, *saved, **params)
                   for rule, (nxt, _) in zip(rules, nexts)]
        if free and versions is not None:
            self.release()
        return out

    def _checked_saved(self, create_graph):
        """The saved values, refused if freed or written in place since they were saved (spelled
        out again in :meth:`_backward`, the hot path)."""
        saved = self._saved
        versions = self._versions
        if versions is not None:
            for v, x in zip(versions, saved):
                if v is not None and x._storage._counter[0] != v:
                    raise modified_error(x, v, self if x is saved[0] else None)
            if create_graph and versions[0] is not None:
                saved = self._reattached(saved)
        elif self._released:
            self._check_alive()
        return saved

    def _joint_backward(self, grads_out, create_graph, free, edges=None):
        """:meth:`_backward` of an op with a joint rule: one call yields every input's cotangent,
        computing only those whose edge leads somewhere."""
        saved = self._checked_saved(create_graph)
        g = grads_out[0] if len(grads_out) == 1 else tuple(grads_out)
        nexts = self.next_functions if edges is None else edges
        needs = tuple([nxt is not None for nxt, _ in nexts])
        if saved is None:
            saved = (None,) * (len(nexts) + 1)
        out = list(self.op.vjp_all(g, *saved, needs=needs, **(self._params or _NO_PARAMS)))
        for i, wanted in enumerate(needs):
            if not wanted:
                out[i] = None
        if free and self._versions is not None:
            self.release()
        return out

    def _apply_and_release(self, grads_out, create_graph, free, edges=None):
        """:meth:`_backward` of a node type that defines its own :meth:`apply` (which computes
        every input's cotangent: ``edges`` is not read)."""
        grads_in = self.apply(grads_out, create_graph)
        if free:
            self.release()
        return grads_in

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # A node type with its own apply (custom Function, CopySlices) is run through it.
        if "apply" in cls.__dict__ and "_backward" not in cls.__dict__:
            cls._backward = Node._apply_and_release


_NOTHING_SAVED = ((None,), (None, None), (None, None, None))
_NO_PARAMS: dict = {}


def modified_error(t, expected, owner):
    """PyTorch's error for saved tensor ``t`` found written in place since it was saved at
    version ``expected``; ``owner`` is the node that saved ``t`` as its result, if one did."""
    desc = f"[torch.{torch_type_name(t.dtype)}Tensor [{', '.join(map(str, t._shape))}]]"
    fn = owner if owner is not None else t._grad_fn
    if fn is not None:
        desc += f", which is output 0 of {re.sub(r'Backward[0-9]*$', '', fn.name())},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {desc} is at version {t._storage.version}; expected version {expected} instead. "
        "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
        "The variable in question was changed in there or anywhere later. Good luck!")


class RemovableHandle:
    """Returned by ``register_hook``: ``remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, table: dict, fn):
        self.id = next(self._ids)
        self._table = table
        table[self.id] = fn

    def remove(self):
        self._table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds arriving cotangents into ``variable.grad``."""

    __slots__ = ("variable", "born")
    # Never written on a sink, so read from the class (one is made per leaf and forward pass);
    # a leaf's sink has no position of its own in the replay order.
    position = -1
    next_functions = ()
    _saved = _versions = _params = None
    _released = False

    def __init__(self, variable):
        self._extras = None
        self.variable = variable
        # A tape position taken before any node reading the leaf is made: once the backward
        # replay has passed it, no more cotangents can arrive (the engine then accumulates).
        self.born = next(positions)
        self._out_meta = ((variable._shape, variable.dtype, variable._storage.device),)

    def apply(self, grads_out, create_graph=False):
        return []


def grad_accumulator(t) -> AccumulateGrad:
    """The leaf's AccumulateGrad node; one per leaf while any graph refers to it."""
    ref = t.__dict__.get("_accumulator")
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t.__dict__["_accumulator"] = weakref.ref(acc)
    return acc


def retain_grad(t):
    """Keep the gradient that reaches non-leaf ``t`` in ``t.grad``."""
    if not t._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._grad_fn is None or t._retains_grad:
        return
    t._grad_fn._hook_tables().retained[t._output_nr] = weakref.ref(t)
    t._retains_grad = True


def register_hook(t, hook):
    """Run ``hook(grad)`` when ``t``'s gradient is computed; it may return a replacement."""
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is None:
        if t._hooks is None:
            t._hooks = {}
        return RemovableHandle(t._hooks, hook)
    table = t._grad_fn._hook_tables().tensor.setdefault(t._output_nr, {})
    return RemovableHandle(table, hook)


def register_post_accumulate_grad_hook(t, hook):
    """Run ``hook(t)`` after a gradient has been accumulated into leaf ``t``'s ``.grad``."""
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return RemovableHandle(t.__dict__.setdefault("_post_accumulate_hooks", {}), hook)
