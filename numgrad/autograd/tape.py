"""The tape: one node per recorded op, numbered in execution order (a Wengert list).

A node keeps edges to its inputs' nodes, the values its VJP rules read (nothing more: which
ones is read off the rules themselves, see ``saved_args``) and the metadata the engine needs.
Nodes live only as long as the tensors that reference them; nothing global keeps them alive.
"""
from __future__ import annotations

import itertools
import re
import weakref

from ..memo import Memo
from . import grad_mode
from .rule_reads import FULL as _FULL, META as _META, argument_reads

_positions = itertools.count()


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
        self.position = next(_positions)
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

    def _backward(self, grads_out, create_graph, free):
        """What the engine runs per node: :meth:`apply`, then :meth:`release` if ``free``, in one
        call. One and two inputs are spelled out: a call through ``*saved`` costs more than the
        rest of the engine's bookkeeping for a node."""
        saved = self._saved
        versions = self._versions
        if versions is not None:
            for v, x in zip(versions, saved):
                if v is not None and x._storage._counter[0] != v:
                    raise _modified_error(x, v, self if x is saved[0] else None)
            if create_graph and versions[0] is not None:
                saved = self._reattached(saved)
        elif self._released:
            self._check_alive()
        g = grads_out[0] if len(grads_out) == 1 else tuple(grads_out)
        nexts = self.next_functions
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

    def _apply_and_release(self, grads_out, create_graph, free):
        """:meth:`_backward` of a node type that defines its own :meth:`apply`."""
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


def _modified_error(t, expected, owner):
    from ..ops.registry import torch_type_name
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


_Handle = RemovableHandle


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds arriving cotangents into ``variable.grad``."""

    __slots__ = ("variable",)
    # Never written on a sink, so read from the class (one is made per leaf and forward pass);
    # a leaf's sink has no position of its own.
    position = -1
    next_functions = ()
    _saved = _versions = _params = None
    _released = False

    def __init__(self, variable):
        self._extras = None
        self.variable = variable
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


def edge(x):
    """(node, output index) through which a cotangent reaches ``x``; (None, 0) if none does."""
    if x.__class__ is float or x.__class__ is int or not hasattr(x, "_storage"):
        return (None, 0)
    if x._base is not None:
        refresh_view(x)
    fn = x._grad_fn
    if fn is not None:
        return (fn, x._output_nr)
    if x._requires_grad:
        return (grad_accumulator(x), 0)
    return (None, 0)


def refresh_view(x):
    """A view made before its base was written in place reads the base's new history."""
    if x._view_meta is not None:
        from .views_history import check_version
        check_version(x)
    base = x._base
    at = base.__dict__.get("_rebased_at")
    if at is None:
        return
    fn = x._grad_fn
    if fn is not None and fn.position > at:
        return
    from .views_history import regenerate
    regenerate(x)


# -------------------------------------------------------------------- what rules read

def saved_args(op):
    """Per VJP rule, how it reads ``(ans, *inputs)``: a tuple of levels per rule (cached)."""
    uses = op.__dict__.get("_saved_args")
    if uses is None:
        uses = []
        for rule in op.vjp:
            if rule is None:
                uses.append(None)
                continue
            d = getattr(rule, "_derivative", None)
            uses.append(tuple(argument_reads(d, 0, op.nin + 1) if d is not None
                              else argument_reads(rule, 1, op.nin + 1)))
        uses = tuple(uses)
        op.__dict__["_saved_args"] = uses
    return uses


# -------------------------------------------------------------------- recording

def should_record(inputs) -> bool:
    if not grad_mode._state.enabled:
        return False
    for x in inputs:
        if getattr(x, "_requires_grad", False):
            return True
        if getattr(x, "_base", None) is not None and adopts_base_grad(x):
            return True
    return False


def adopts_base_grad(view) -> bool:
    """Whether ``view``, which does not require grad, now must because its base does (the base
    was written in place with a tensor that requires grad, or became a leaf that does, after the
    view was made): as in PyTorch, the view then reads the base's history, as an as_strided view.
    Callers check ``view._base`` first; this runs in grad mode only."""
    base = view._base
    if not base._requires_grad or view._view_meta is not None or not grad_mode._state.enabled:
        return False
    from .views_history import regenerate
    regenerate(view)
    return True


_node_classes: dict = {}


def node_class(op, variant=None):
    """The grad_fn class of ``op`` (or of one of its ``variants``): named as PyTorch names it,
    holding the op's rules."""
    key = op if variant is None else (op, variant)
    cls = _node_classes.get(key)
    if cls is None:
        name = op.backward_name if variant is None else op.variants.get(variant, op.backward_name)
        cls = _node_classes[key] = type(name, (Node,), {"__slots__": (), "op": op, "_rules": op.vjp})
    return cls


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
        from ..shapes import Size
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


_NO_EDGE = (None, 0)


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
                refresh_view(x)
            fn = x._grad_fn
            if fn is not None:
                nexts.append((fn, x._output_nr))
                live |= bit
            elif x._requires_grad:
                nexts.append((grad_accumulator(x), 0))
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
    need = _need_cache.get((op, live))
    if need is None:
        need = _needs(op, live)
    # Node.__init__ spelled out, every slot written once. Made after its inputs' nodes (a view's
    # history may be regenerated above): positions order every node after the nodes it reads.
    node = _new_node(cls)
    node.position = next(_positions)
    node.next_functions = tuple(nexts)
    node._input_meta = tuple(metas)
    node._params = params
    node._released = False
    node._extras = None
    node._versions = None
    first = result if outputs is None else outputs[0]
    if need:
        _save(node, op, inputs, first, need)
    else:
        node._saved = None
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


_need_cache = Memo()


def _needs(op, live: int):
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
    _need_cache[(op, live)] = need
    return need


def _save(node, op, inputs, first, need):
    """Keep on ``node`` what ``need`` asks of ``(first, *inputs)``, with the versions to check."""
    n = len(need)
    saved = [None] * n
    versions = None
    kept = False  # something that outlives release: geometry, a number, a view's detached input
    level = need[0]
    if level == _FULL:
        # An alias, not ``first`` itself: a saved output must not keep its node alive.
        saved[0] = first._view(first._shape, first._strides, first._offset)
        versions = [None] * n
        versions[0] = first._storage._counter[0]
    elif level == _META:
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
            elif level == _META:
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


def check_inplace(target, others=()):
    """The one check every in-place op (arithmetic, fills, copies, index writes, random fills,
    in-place view ops) runs before writing into ``target``, as PyTorch's: with grad mode on, no
    write into a leaf that requires grad or a view of one, and, when the write needs grad
    (``target``, its base or one of the ``others`` operands requires grad), none into a view
    made in no_grad or inference mode or by a multi-output op (autograd.views_history)."""
    if not grad_mode._state.enabled:
        return
    base = target._base
    if base is not None and target._view_meta is not None and (
            target._requires_grad or base._requires_grad or any(getattr(o, "_requires_grad", False) for o in others)):
        from .views_history import check_write
        check_write(target)
    if target._requires_grad and target._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if base is None:
        return
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.")


def rebase(target, source):
    """After writing ``source``'s values into ``target`` in place, give target source's history.

    When ``target`` is a view, its base takes a CopySlices node that routes the written region's
    cotangent to the write and the rest to the base's previous history.
    """
    check_inplace(target, (source,))
    if source._requires_grad:
        target._requires_grad = True
        target._grad_fn = source._grad_fn
        target._output_nr = source._output_nr
    elif target._grad_fn is not None:
        target._grad_fn = None
        target._requires_grad = False
    base = target._base
    if base is not None and (base._requires_grad or source._requires_grad) and grad_mode._state.enabled:
        from .copyslices import record_copy_slices
        record_copy_slices(base, target)
    elif target._base is None and target._grad_fn is not None:
        target.__dict__["_rebased_at"] = target._grad_fn.position
    if _dual_levels[0] and (source._fw_tangent is not None or target._fw_tangent is not None):
        from .forward_ad import write_tangent
        write_tangent(target, source)


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


def plain(x):
    """An alias of tensor ``x`` outside autograd (no history, no tangent), for computing an op's
    forward from other ops before :func:`record_result` gives it one node; other operands
    (numbers) pass through."""
    return x._view(x._shape, x._strides) if hasattr(x, "_storage") else x


def snapshot(x):
    """A copy of tensor ``x`` that carries x's history and tangent: what a node of an in-place
    op reads of ``x`` once the write has overwritten it (PyTorch saves such a copy too)."""
    fn, nr = edge(x)  # a view's history is brought up to date first
    copy = plain(x).clone()
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


def record_result(op, inputs, result, params=None, variant=None):
    """Give ``result``, computed outside the graph from ``inputs``, the node and the tangent of
    ``op``; returns ``result``."""
    if should_record(inputs):
        record(op, inputs, result, params, variant=variant)
    if has_tangents(inputs):
        forward_jvp(op, inputs, result, params)
    return result


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, capture=None,
                 accumulate=True):
    """Replay the tape from ``roots``; see :mod:`numgrad.autograd.engine`."""
    from .engine import run_backward as run
    return run(roots, root_grads, retain_graph, create_graph, capture, accumulate)


# -------------------------------------------------------------------- tensor hooks

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
