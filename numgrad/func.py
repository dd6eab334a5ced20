"""Function transforms in the style of JAX and ``torch.func``: grad, vjp, jvp, jacrev, jacfwd,
hessian. Each returns a new function, and they compose: ``grad(grad(f))`` is the second
derivative and ``jacfwd(jacrev(f))`` the forward-over-reverse Hessian. Also calling a module
as a function of its parameters: functional_call, stack_module_state.
"""
from __future__ import annotations

from typing import Callable, Union

from .autograd import forward_ad as fwAD
from .autograd import grad_mode
from .autograd.engine import grad as _autograd_grad
from .autograd.functional import _jacobian_batched, _stack
from .batched import transforms as _under_vmap
from .batched.api import vmap
from .batched.dispatch import per_sample_call as _per_sample_call, top_level as _batched_level
from .batched.pytree import tree_flatten, tree_unflatten
from .batched.tensor import running as _vmap
from .ops.movement import stack
from .creation import zeros_like

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functional_call",
           "stack_module_state"]


def _is_tensor(x) -> bool:
    return hasattr(x, "_storage")


def _argnums_tuple(argnums, nargs):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return tuple(a % nargs for a in nums)


def _nested(args) -> bool:
    """True when an enclosing transform differentiates through this call, so the derivatives
    computed here must stay differentiable (create_graph) and keep their tangents."""
    return fwAD._current[0] is not None or (
        grad_mode.is_grad_enabled() and any(_is_tensor(a) and a._requires_grad for a in args))


def _track(x):
    """A fresh tensor to differentiate with respect to: connected to x's history if it has one,
    carrying x's tangent if it has one."""
    if x._requires_grad:
        return x.view_as(x)
    d = x.detach()
    tangent = getattr(x, "_fw_tangent", None)
    if tangent is not None:
        fwAD._set_tangent(d, tangent)
    return d.requires_grad_(True)


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{name}(f)(*args): output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return out


def grad_and_value(func: Callable, argnums: Union[int, tuple] = 0, has_aux: bool = False) -> Callable:
    """Like :func:`grad`, but the new function returns ``(gradient, value)`` (``(gradient,
    (value, aux))`` with ``has_aux``)."""
    def wrapper(*args, **kwargs):
        flat_func, args, nums, regroup = _flat_arguments(func, args, _argnums_tuple(argnums, len(args)))
        grads, out, aux = _grad_and_value(flat_func, nums, has_aux, args, kwargs)
        g = regroup(grads)
        return (g[0] if isinstance(argnums, int) else g), ((out, aux) if has_aux else out)
    return wrapper


def _flat_arguments(func, args, nums):
    """The differentiated arguments' tensors, each a positional argument of its own: ``(flat
    function, flat arguments, their positions, regroup)``; regroup turns the gradients of the
    flat arguments back into one nested container per differentiated argument."""
    if all(_is_tensor(args[a]) for a in nums):
        return func, args, nums, tuple
    layout, flat, flat_nums = [], [], []
    for i, a in enumerate(args):
        if i in nums:
            leaves, spec = tree_flatten(a)
            flat_nums.extend(range(len(flat), len(flat) + len(leaves)))
            layout.append((len(leaves), spec))
            flat.extend(leaves)
        else:
            layout.append((1, None))
            flat.append(a)

    def flat_func(*flat_args, **kwargs):
        rebuilt, k = [], 0
        for n, spec in layout:
            rebuilt.append(flat_args[k] if spec is None else tree_unflatten(flat_args[k:k + n], spec))
            k += n
        return func(*rebuilt, **kwargs)

    def regroup(grads):
        grouped, k = [], 0
        for i in nums:
            n, spec = layout[i]
            grouped.append(tree_unflatten(list(grads[k:k + n]), spec))
            k += n
        return tuple(grouped)
    return flat_func, flat, tuple(flat_nums), regroup


def _grad_and_value(func, nums, has_aux, args, kwargs):
    """Gradients of scalar ``func`` with respect to the tensors ``args[nums]``, its value, its aux."""
    if _vmap.levels:
        return _under_vmap.grad_and_value(func, nums, has_aux, args, kwargs, _split_aux)
    nested = _nested(args)
    with grad_mode.enable_grad():
        args = list(args)
        for a in nums:
            args[a] = _track(args[a])
        out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
        if not _is_tensor(out):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                               f"{type(out)}")
        if out.ndim != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                               f"got tensor with {out.ndim} dims. Maybe you wanted to use the vjp or "
                               "jacrev APIs instead?")
        wrt = [args[a] for a in nums]
        grads = _autograd_grad(out, wrt, create_graph=nested, allow_unused=True,
                               materialize_grads=True) if out._requires_grad else \
            tuple(w.detach() * 0 for w in wrt)
    return tuple(grads), (out if nested else out.detach()), aux


def grad(func: Callable, argnums: Union[int, tuple] = 0, has_aux: bool = False) -> Callable:
    """The gradient of scalar ``func`` with respect to argument ``argnums`` (an int or a tuple).

    ``grad(f)(x)`` is ``df/dx`` evaluated at ``x``; with ``has_aux`` f returns ``(output, aux)``
    and the new function ``(gradient, aux)``. Transforms compose: ``grad(grad(f))``.
    """
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func: Callable, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns one gradient per primal.

    ``vjp_fn`` may be called many times (the graph is retained).
    """
    if _vmap.levels:
        out, vjp_fn, aux = _under_vmap.vjp(func, primals, has_aux, _split_aux)
        return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)
    nested = _nested(primals)
    with grad_mode.enable_grad():
        tracked = [_track(p) for p in primals]
        out, aux = _split_aux(func(*tracked), has_aux, "vjp")
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(cotangents):
        cts = _under_vmap.cotangents_of(cotangents, outs)
        if _vmap.levels and _batched_level(cts, {}):
            # Cotangents batched by a vmap around this call: one backward pass per sample.
            return _per_sample_call(vjp_fn, (cotangents,), _batched_level(cts, {}))
        with grad_mode.enable_grad():
            pairs = [(o, c) for o, c in zip(outs, cts) if o._requires_grad]
            if not pairs:
                return tuple(p.detach() * 0 for p in tracked)
            grads = _autograd_grad([o for o, _ in pairs], tracked, [c for _, c in pairs], retain_graph=True,
                                   create_graph=nested or _nested(cts), allow_unused=True,
                                   materialize_grads=True)
        return grads
    result = out if nested else (tuple(o.detach() for o in outs) if isinstance(out, tuple) else out.detach())
    return (result, vjp_fn, aux) if has_aux else (result, vjp_fn)


def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)`` in one forward-mode pass."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be.")
    if _vmap.levels:
        prim, tans, aux = _under_vmap.jvp(func, primals, tangents, has_aux, _split_aux)
        return (prim, tans, aux) if has_aux else (prim, tans)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(primals, tangents)]
        out, aux = _split_aux(func(*duals), has_aux, "jvp")
        outs = out if isinstance(out, tuple) else (out,)
        unpacked = [fwAD.unpack_dual(o) for o in outs]
    prim = tuple(u.primal for u in unpacked)
    tans = tuple(u.tangent if u.tangent is not None else zeros_like(u.primal) for u in unpacked)
    if not isinstance(out, tuple):
        prim, tans = prim[0], tans[0]
    return (prim, tans, aux) if has_aux else (prim, tans)


def _assemble(out_is_tuple, jac, argnums):
    """Nest per output, then per argument, as torch.func does."""
    rows = tuple(r[0] if isinstance(argnums, int) else r for r in jac)
    return rows if out_is_tuple else rows[0]


def jacrev(func: Callable, argnums: Union[int, tuple] = 0, *, has_aux: bool = False) -> Callable:
    """The Jacobian of ``func`` with respect to ``argnums`` by reverse mode: for each output,
    ``output.shape + arg.shape``. A scalar output takes one backward pass; larger outputs push
    every direction at once through a batched pass."""
    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args))
        if _vmap.levels:
            return _jacobian_under_vmap(func, argnums, nums, has_aux, args)
        nested = _nested(args)
        with grad_mode.enable_grad():
            args = list(args)
            for a in nums:
                args[a] = _track(args[a])
            out, aux = _split_aux(func(*args), has_aux, "jacrev")
            outs = out if isinstance(out, tuple) else (out,)
            wrt = [args[a] for a in nums]
            if all(o.numel() == 1 for o in outs) or fwAD._current[0] is not None:
                jac = tuple(_rows_by_reverse(o, wrt, nested) for o in outs)
            else:
                jac = _jacobian_of_outputs(func, args, nums, has_aux)
        if not nested:
            jac = tuple(tuple(j.detach() for j in row) for row in jac)
        res = _assemble(isinstance(out, tuple), jac, argnums)
        return (res, aux) if has_aux else res
    return wrapper


def _jacobian_under_vmap(func, argnums, nums, has_aux, args):
    is_tuple, jac, aux = _under_vmap.jacobian(func, nums, has_aux, args, _split_aux)
    res = _assemble(is_tuple, jac, argnums)
    return (res, aux) if has_aux else res


def _rows_by_reverse(out, wrt, nested):
    """One output's Jacobian blocks, one backward pass per output element."""
    flat = out.reshape(-1)
    n = flat.shape[0]
    rows = [[] for _ in wrt]
    for k in range(n):
        if out._requires_grad:
            gs = _autograd_grad(flat[k] if n > 1 else flat.reshape(()), wrt, retain_graph=True,
                                create_graph=nested, allow_unused=True, materialize_grads=True)
        else:
            gs = [w.detach() * 0 for w in wrt]
        for r, g in zip(rows, gs):
            r.append(g)
    return tuple(_stack(r, w, out) for r, w in zip(rows, wrt))


def _jacobian_of_outputs(func, args, nums, has_aux):
    def restricted(*xs):
        full = list(args)
        for a, x in zip(nums, xs):
            full[a] = x
        out = func(*full)
        return out[0] if has_aux else out
    _, _, jac = _jacobian_batched(restricted, tuple(args[a] for a in nums), "jacrev")
    return jac


def jacfwd(func: Callable, argnums: Union[int, tuple] = 0, *, has_aux: bool = False) -> Callable:
    """The Jacobian of ``func`` with respect to ``argnums`` by forward mode, every input
    direction pushed through ``func`` in one batched pass."""
    def wrapper(*args):
        nums = _argnums_tuple(argnums, len(args))
        if _vmap.levels:
            return _jacobian_under_vmap(func, argnums, nums, has_aux, args)
        box = {}

        def restricted(*xs):
            full = list(args)
            for a, x in zip(nums, xs):
                full[a] = x
            out, aux = _split_aux(func(*full), has_aux, "jacfwd")
            box["aux"] = aux
            return out
        is_tuple, _, jac = _jacobian_batched(restricted, tuple(args[a] for a in nums), "jacfwd")
        res = _assemble(is_tuple, jac, argnums)
        return (res, box["aux"]) if has_aux else res
    return wrapper


def hessian(func: Callable, argnums: Union[int, tuple] = 0) -> Callable:
    """The Hessian of scalar ``func``, computed forward-over-reverse: ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------ modules as functions
# Modules are reached through their attribute tables (_parameters, _buffers, _modules) only:
# numgrad.func sits below numgrad.nn and never imports it.

_MISSING = object()


def _owner(module, name):
    """The submodule holding the tensor called ``name`` (dotted) and its last component."""
    path, _, leaf = name.rpartition(".")
    if path:
        for part in path.split("."):
            sub = module._modules.get(part)
            if sub is None:
                value = getattr(module, part, _MISSING)
                if value is _MISSING:
                    raise AttributeError(f"{module._get_name()} has no attribute `{part}`")
                raise TypeError(f"submodule `{part}`: {value!r} is not an instance of torch.nn.Module")
            module = sub
    return module, leaf


def _swap(module, name, tensor):
    """Put ``tensor`` (or _MISSING: remove it) at ``name``; returns what was there."""
    module, leaf = _owner(module, name)
    for table in (module._parameters, module._buffers):
        if leaf in table:
            old = table[leaf]
            if tensor is _MISSING:
                del table[leaf]
            else:
                table[leaf] = tensor
            return old
    old = getattr(module, leaf, _MISSING)
    if tensor is _MISSING:
        if old is not _MISSING:
            delattr(module, leaf)
    else:
        setattr(module, leaf, tensor)
    return old


def _named_tensors(module):
    """Every name of every parameter and buffer of ``module``, tied names included."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie(named, given):
    """``given`` with each value also under the other names of the tensor it replaces."""
    groups = {}
    for name, t in named.items():
        groups.setdefault(id(t), set()).add(name)
    untied = dict(given)
    for name in given:
        t = named.get(name)
        tied = groups[id(t)] if t is not None else ()
        if len(tied) < 2:
            continue
        values = {id(given[n]) for n in tied if n in given}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied)}, which are tied. "
                             "Consider using tie_weights=False")
        for n in tied:
            untied[n] = given[name]
    return untied


class _reparametrize:
    """Context manager that puts the tensors of ``values`` in ``module`` in place of its own
    and restores them on exit, even after an error."""

    def __init__(self, module, values, tie_weights=False, strict=False):
        named = _named_tensors(module)
        self.values = _untie(named, values) if tie_weights else values
        if strict:
            missing = sorted(set(named) - set(self.values))
            unexpected = sorted(set(self.values) - set(named))
            errors = []
            if unexpected:
                errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
            if missing:
                errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
            if errors:
                raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors))
        self.module = module
        self.originals = {}

    def __enter__(self):
        try:
            for name, t in self.values.items():
                self.originals[name] = _swap(self.module, name, t)
        except BaseException:
            self._restore()
            raise
        return self

    def _restore(self):
        for name, old in reversed(list(self.originals.items())):
            _swap(self.module, name, old)
        self.originals = {}

    def __exit__(self, *exc):
        self._restore()
        return False


def _merged(dicts) -> dict:
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, (tuple, list)):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(dicts)}")
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for d in dicts:
        for k in d:
            counts[k] = counts.get(k, 0) + 1
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """Calls ``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors
    of ``parameter_and_buffer_dicts`` (a dict name -> tensor, or a tuple of such dicts), and
    restores them afterwards.

    Gradients flow to the tensors passed in. With ``tie_weights``, a value given for one name of
    a tied tensor replaces it under all its names; with ``strict``, the names must be exactly
    the module's.
    """
    values = _merged(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def stack_module_state(models) -> tuple:
    """stack_module_state(models) -> params, buffers: the parameters and the buffers of
    ``models`` (modules of one class) stacked along a new first dim, by name; stacked
    parameters are new leaves that require grad."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tables):
        out = {}
        for name in tables[0]:
            ts = [t[name] for t in tables]
            grads = [t.requires_grad for t in ts]
            if any(grads) and not all(grads):
                raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
            s = stack(ts)
            out[name] = s.detach().requires_grad_() if all(grads) else s
        return out

    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers
