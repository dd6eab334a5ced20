"""Custom differentiable operations: ``Function`` with static forward/backward and its ctx."""
from __future__ import annotations

import functools

from . import grad_mode, saving, tape
from .inplace import check_inplace
from .inplace import edge
from .nodes import Node, modified_error

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


def _is_tensor(x) -> bool:
    return hasattr(x, "_storage")


class FunctionCtx:
    """What ``forward`` hands to ``backward``: saved tensors and flags."""

    def save_for_backward(self, *tensors):
        """Saves tensors (or None) for ``backward``; they are checked for in-place changes."""
        for t in tensors:
            if t is not None and not _is_tensor(t):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        """Declares the inputs that ``forward`` modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that get no gradient (their ``requires_grad`` stays False)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool):
        """With False, ``backward`` receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a custom Function's outputs; it is also the ``ctx``."""

    __slots__ = ()
    _forward_cls = None
    materialize_grads = True

    def __repr__(self):
        # Unlike built-in nodes, PyTorch shows a custom Function's node with its module path.
        return f"<{__name__}.{type(self).__name__} object at {hex(id(self))}>"

    @property
    def saved_tensors(self):
        self._check_alive()
        saved = self.__dict__.get("_saved_tensors", ())
        if "_saved_versions" not in self.__dict__:
            # Saved through pack hooks: each read runs the unpack hook.
            attach = grad_mode.is_grad_enabled()
            saved = tuple(saving.unpack(p, attach) if p is not None else None for p in saved)
        for t, v in zip(saved, self.__dict__.get("_saved_versions", ())):
            if t is not None and t._storage.version != v:
                raise modified_error(t, v, None)
        outs = self.__dict__.get("_saved_outputs")
        if outs and grad_mode.is_grad_enabled():
            saved = list(saved)
            for k, nr in outs.items():
                t = saved[k]._view(saved[k]._shape, saved[k]._strides, saved[k]._offset)
                t._requires_grad = True
                t._grad_fn = self
                t._output_nr = nr
                saved[k] = t
            saved = tuple(saved)
        return saved

    saved_variables = saved_tensors

    def release(self):
        if "_saved_tensors" in self.__dict__:
            del self.__dict__["_saved_tensors"]
            self._released = True

    def apply(self, grads_out, create_graph=False):
        result = self._forward_cls.backward(self, *grads_out)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.next_functions)
        if len(result) > n and all(r is None for r in result[n:]):
            result = result[:n]
        if len(result) != n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(result)})")
        out = []
        for i, (g, meta) in enumerate(zip(result, self._input_meta)):
            if g is not None and meta is None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at "
                                   f"position {i + 1}, but the corresponding forward input was not a Variable")
            out.append(g)
        return out


class FunctionMeta(type):
    """Gives every Function subclass its own grad_fn class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"__slots__": (), "_forward_cls": cls})


class Function(metaclass=FunctionMeta):
    """Base class of custom autograd operations.

    Subclasses define ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` as static
    methods (or ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and are called
    through ``apply``.
    """

    def __init__(self, *args, **kwargs):
        pass

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to "
                                  "use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs ``forward`` and, when grad mode is on and an input requires grad, records it."""
        ctx = cls._backward_cls()
        ctx._to_save = ()
        ctx._dirty = ()
        ctx._non_differentiable = ()
        ctx.needs_input_grad = tuple(_is_tensor(a) and a._requires_grad for a in args)
        separate = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            if separate:
                output = cls.forward(*args, **kwargs)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if separate:
            cls.setup_context(ctx, args, output)
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        if not tape.should_record(args):
            return output
        outputs = _wrap_outputs(ctx, args, outputs)
        return outputs if is_tuple else outputs[0]


def _wrap_outputs(ctx, args, outputs):
    if tape.anomaly[0]:
        tape.forward_traceback(ctx)
    ctx.next_functions = tuple(edge(a) for a in args)
    ctx._input_meta = tuple((a._shape, a.dtype) if _is_tensor(a) else None for a in args)
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    inputs = {id(a) for a in args if _is_tensor(a)}
    wrapped = []
    meta = []
    for i, o in enumerate(outputs):
        if not _is_tensor(o):
            wrapped.append(o)
            meta.append(None)
            continue
        if id(o) in inputs and id(o) not in dirty:
            # An input returned as is becomes a new tensor so the input keeps its own history.
            o = o._view(o._shape, o._strides)
        elif id(o) in dirty:
            check_inplace(o)
        meta.append((o._shape, o.dtype, o.device))
        if id(o) not in non_diff and o.dtype.is_floating_point:
            o._requires_grad = True
            o._grad_fn = ctx
            o._output_nr = i
        wrapped.append(o)
    ctx._out_meta = tuple(m if m is not None else ((), None, None) for m in meta)
    saved = []
    of_output = {}
    for k, t in enumerate(ctx._to_save):
        nr = next((i for i, o in enumerate(wrapped) if t is o or t is outputs[i]), None)
        if t is not None and nr is not None:
            # A saved output must not hold its own grad_fn (a reference cycle): keep an alias
            # and re-attach it to this node when backward reads it.
            t = t._view(t._shape, t._strides, t._offset)
            of_output[k] = nr
        saved.append(t)
    ctx.__dict__["_saved_outputs"] = of_output
    hooks = saving.current_hooks()
    if hooks is not None:
        ctx.__dict__["_saved_tensors"] = tuple(saving.pack(t, hooks) if t is not None else None for t in saved)
    else:
        ctx.__dict__["_saved_tensors"] = tuple(saved)
        ctx.__dict__["_saved_versions"] = tuple(t._storage.version if t is not None else None for t in saved)
    del ctx._to_save
    return tuple(wrapped)


def once_differentiable(fn):
    """Decorates ``backward``: it runs without recording, so it cannot be differentiated again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled():
            return outputs
        sources = [a for a in args if _is_tensor(a) and a._requires_grad]
        if not sources:
            return outputs
        if isinstance(outputs, tuple):
            return tuple(_delayed_error(o, sources) for o in outputs)
        return _delayed_error(outputs, sources)
    return wrapper


class DelayedError(Node):
    """grad_fn of a once_differentiable backward's results: differentiating them raises."""

    __slots__ = ()

    def apply(self, grads_out, create_graph=False):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def _delayed_error(g, sources):
    if not _is_tensor(g):
        return g
    node = DelayedError()
    node.next_functions = tuple(edge(a) for a in sources)
    node._input_meta = tuple((a._shape, a.dtype) for a in sources)
    node._out_meta = ((g._shape, g.dtype, g.device),)
    out = g._view(g._shape, g._strides)
    out._requires_grad = True
    out._grad_fn = node
    return out
