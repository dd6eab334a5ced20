"""How a call reaches its batching rule.

Every public function (``numgrad.*``, ``numgrad.nn.functional.*``, ``numgrad.linalg.*``,
``numgrad.special.*``) is wrapped by :func:`intercept`: outside vmap the wrapper only tests one
counter and calls the function. Inside vmap, a call with a BatchedTensor among its arguments
goes to :func:`handle`, which applies the rule registered for the function's key (a rule works
on the batched values as plain tensors, the batch dim first) or, for a function without one,
calls it once per sample and stacks the results (warning once per function).
"""
from __future__ import annotations

import functools
import inspect
import warnings

from ..tensor import Tensor
from .tensor import BatchedTensor, running

# Batching rules: key ("torch.sin", "F.relu", "Tensor.sum", ...) -> rule(key, level, args, kwargs).
RULES: dict = {}
# Keys of the functions that draw random numbers: vmap's ``randomness`` decides what they do.
RANDOM: dict = {}
# The functions behind the keys (not wrapped): what handle and the fallback call.
FUNCTIONS: dict = {}
# Keys run by the per-sample fallback so far (each warned about once).
fallback_keys: set = set()
# Tensor methods that take other tensors: routed for every tensor (an unbatched tensor's method
# may get a BatchedTensor argument) from the first vmap on.
TENSOR_ARGUMENT_METHODS: set = set()


def top_level(args, kwargs) -> int:
    """The highest vmap level among the BatchedTensors in ``args`` and ``kwargs`` (one level of
    lists and tuples deep), 0 for none."""
    top = 0
    for a in args:
        c = type(a)
        if c is BatchedTensor:
            if a._level > top:
                top = a._level
        elif c is list or c is tuple or isinstance(a, tuple):
            for b in a:
                if type(b) is BatchedTensor and b._level > top:
                    top = b._level
    if kwargs:
        for a in kwargs.values():
            if type(a) is BatchedTensor and a._level > top:
                top = a._level
            elif isinstance(a, (list, tuple)):
                for b in a:
                    if type(b) is BatchedTensor and b._level > top:
                        top = b._level
    return top


def handle(key, args, kwargs):
    """Run the function of ``key`` on ``args``: by its rule at the top level of the
    BatchedTensors among them, or directly when there are none."""
    if key in RANDOM and running.levels:
        return RANDOM[key](key, len(running.levels), args, kwargs)
    level = top_level(args, kwargs)
    if not level:
        return FUNCTIONS[key](*args, **kwargs)
    rule = RULES.get(key)
    if rule is not None:
        result = rule(key, level, args, kwargs)
        if result is not NotImplemented:
            return result
    return per_sample(key, level, args, kwargs)


def call(key, *args, **kwargs):
    """The function of ``key`` applied to ``args`` (BatchedTensors or plain values)."""
    return handle(key, args, kwargs)


def intercept(key: str, fn):
    """``fn`` as a public function: outside vmap ``fn`` itself, inside, routed by :func:`handle`.

    A function public under several names (``numgrad.celu`` and ``nn.functional.celu``) gets one
    wrapper, so the names stay one object; it runs by the first of its keys that has a rule."""
    FUNCTIONS[key] = fn
    routed = _wrappers.get(fn)
    if routed is not None:
        if routed.__batched_key__ not in RULES and key in RULES:
            routed.__batched_key__ = key
        return routed

    @functools.wraps(fn)
    def routed(*args, **kwargs):
        if running.levels:
            return handle(routed.__batched_key__, args, kwargs)
        return fn(*args, **kwargs)
    routed.__batched_key__ = key
    _wrappers[fn] = routed
    return routed


# The wrapper of each intercepted function.
_wrappers: dict = {}


def intercept_namespace(namespace: dict, prefix: str, names) -> None:
    """Wrap each public function ``names`` of a module's ``namespace`` with :func:`intercept`."""
    for name in names:
        fn = namespace.get(name)
        if inspect.isfunction(fn) and not hasattr(fn, "__batched_key__"):
            namespace[name] = intercept(f"{prefix}.{name}", fn)


# ----------------------------------------------------------------------------- the fallback

def per_sample(key, level, args, kwargs):
    """The function of ``key`` called on each sample of level ``level`` in turn, the results
    stacked along a new batch dim."""
    if key not in fallback_keys:
        fallback_keys.add(key)
        warnings.warn(f"{key} has no batching rule: vmap runs it once per sample of the batch, which is slower",
                      UserWarning, stacklevel=4)
    return per_sample_call(FUNCTIONS[key], args, level, kwargs, key)


def per_sample_call(fn, args, level, kwargs=None, key=None):
    """``fn`` called on each sample of level ``level`` in turn, the results stacked along a new
    batch dim of that level."""
    kwargs = kwargs or {}
    size = running.levels[level - 1].size
    results = [fn(*sample_of(args, level, i), **sample_of(kwargs, level, i)) for i in range(size)]
    return stack_results(results, level, key or getattr(fn, "__name__", "function"))


def sample_of(tree, level, i):
    if type(tree) is BatchedTensor:
        return tree._value.select(tree._bdim, i) if tree._level == level else tree
    if type(tree) in (list, tuple):
        return type(tree)(sample_of(a, level, i) for a in tree)
    if type(tree) is dict:
        return {k: sample_of(v, level, i) for k, v in tree.items()}
    return tree


def stack_results(results, level, key):
    first = results[0]
    if isinstance(first, Tensor):
        return BatchedTensor(call("torch.stack", results), 0, level)
    if isinstance(first, tuple) and first and isinstance(first[0], Tensor):
        parts = [stack_results([r[j] for r in results], level, key) for j in range(len(first))]
        return type(first)(*parts) if hasattr(type(first), "_fields") else type(first)(parts)
    if isinstance(first, list) and first and isinstance(first[0], Tensor):
        return [stack_results([r[j] for r in results], level, key) for j in range(len(first))]
    if all(r == first for r in results[1:]):
        return first
    raise RuntimeError(f"vmap: {key} returned a value that differs between the samples of the batch "
                       f"({first!r}, ...): its result depends on the data, which a function under vmap "
                       "cannot return.")


# ----------------------------------------------------------------------------- methods

_NOT_ROUTED = frozenset({
    "__init__", "__new__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__class__",
    "__init_subclass__", "__subclasshook__", "__dir__", "__sizeof__", "__reduce__", "__reduce_ex__",
    "__getstate__", "__setstate__", "__repr__", "__str__", "__hash__", "__bool__", "__contains__", "__len__",
    "__float__", "__int__", "__index__", "__complex__", "__array__", "__format__", "__deepcopy__", "__copy__",
    "__class_getitem__", "__weakref__", "__dict__", "__slots__", "__doc__", "__module__",
    "dim", "size", "numel", "nelement", "item", "tolist", "numpy", "ndimension",
})


# How many attributes Tensor had when its methods were last routed.
_routed = [-1]


def route_methods() -> None:
    """Give BatchedTensor every method of Tensor, each routed by :func:`handle` (once: methods
    bound to Tensor later are routed at the next vmap)."""
    if _routed[0] == len(Tensor.__dict__):
        return
    _routed[0] = len(Tensor.__dict__)
    own = BatchedTensor.__dict__
    for name in dir(Tensor):
        if name in _NOT_ROUTED or name in own:
            continue
        raw = inspect.getattr_static(Tensor, name)
        if isinstance(raw, (staticmethod, classmethod, property)) or not callable(raw):
            continue
        key = "Tensor." + name
        FUNCTIONS[key] = raw
        setattr(BatchedTensor, name, _method(key))
    _properties()
    for name in TENSOR_ARGUMENT_METHODS:
        raw = Tensor.__dict__.get(name)
        if raw is not None and inspect.isfunction(raw) and not hasattr(raw, "__batched_key__"):
            setattr(Tensor, name, _plain_method("Tensor." + name, raw))
    _routed[0] = len(Tensor.__dict__)


def _plain_method(key, raw):
    @functools.wraps(raw)
    def routed(self, *args, **kwargs):
        if running.levels:
            return handle(key, (self,) + args, kwargs)
        return raw(self, *args, **kwargs)
    routed.__batched_key__ = key
    return routed


def _method(key):
    def routed(self, *args, **kwargs):
        return handle(key, (self,) + args, kwargs)
    routed.__name__ = key.rpartition(".")[2]
    return routed


def _properties() -> None:
    def logical(method):
        return property(lambda self: call("Tensor." + method, self))
    for name, method in (("T", "_vmap_T"), ("mT", "_vmap_mT"), ("H", "_vmap_H"), ("mH", "_vmap_mH"),
                         ("real", "_vmap_real"), ("imag", "_vmap_imag"), ("data", "detach")):
        setattr(BatchedTensor, name, logical(method))
    for name, fn in (("_vmap_T", lambda x: x.T), ("_vmap_mT", lambda x: x.mT), ("_vmap_H", lambda x: x.H),
                     ("_vmap_mH", lambda x: x.mH), ("_vmap_real", lambda x: x.real),
                     ("_vmap_imag", lambda x: x.imag)):
        FUNCTIONS["Tensor." + name] = fn
