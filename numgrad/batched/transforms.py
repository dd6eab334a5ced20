"""numgrad.func's transforms inside vmap: grad, vjp, jvp and jacrev of a function of samples.

Each differentiates the whole batch at once. The inputs it differentiates are made batched at
every running vmap level (a shared input repeated per sample), so each sample's output depends
only on that sample's inputs: the gradient of the sum of all outputs is then, sample by
sample, each output's own gradient.
"""
from __future__ import annotations

from ..autograd import forward_ad as fwAD
from ..autograd import grad_mode
from ..autograd.engine import grad as autograd_grad
from ..ops.movement import stack
from .tensor import batched_at_every_level, running, wrap_every_level


def _leaves(args, nums):
    """The differentiated arguments as plain leaves batched at every level, and the arguments
    with them in place (seen a sample at a time)."""
    depth = len(running.levels)
    args = list(args)
    leaves = []
    for a in nums:
        p = batched_at_every_level(args[a], depth)
        leaf = p.view_as(p) if p.requires_grad else p.detach().requires_grad_(True)
        leaves.append(leaf)
        args[a] = wrap_every_level(leaf, depth)
    return args, leaves


def _nested(leaves) -> bool:
    return fwAD._current[0] is not None or any(leaf.grad_fn is not None for leaf in leaves)


def _grads(outputs, leaves, cotangents, nested):
    live = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not live:
        return [leaf.detach() * 0 for leaf in leaves]
    return autograd_grad([o for o, _ in live], leaves, [c for _, c in live], retain_graph=True,
                         create_graph=nested, allow_unused=True, materialize_grads=True)


def grad_and_value(func, nums, has_aux, args, kwargs, split_aux):
    depth = len(running.levels)
    args, leaves = _leaves(args, nums)
    nested = _nested(leaves)
    with grad_mode.enable_grad():
        out, aux = split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
        if not hasattr(out, "ndim") or not hasattr(out, "dtype"):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
        if out.ndim != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                               f"with {out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        total = batched_at_every_level(out, depth).sum()
        grads = _grads([total], leaves, [None], nested)
    grads = tuple(wrap_every_level(g, depth) for g in grads)
    return grads, (out if nested else out.detach()), aux


def cotangents_of(cotangents, outs) -> tuple:
    """The cotangents given to a vjp function, one per output."""
    cts = cotangents if isinstance(cotangents, tuple) else (cotangents,)
    if len(cts) != len(outs):
        raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                           f"outputs to the function, got {len(cts)} cotangents for {len(outs)} outputs")
    return cts


def vjp(func, primals, has_aux, split_aux):
    depth = len(running.levels)
    args, leaves = _leaves(primals, range(len(primals)))
    nested = _nested(leaves)
    with grad_mode.enable_grad():
        out, aux = split_aux(func(*args), has_aux, "vjp")
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(cotangents):
        cts = cotangents_of(cotangents, outs)
        with grad_mode.enable_grad():
            physical_outs = [batched_at_every_level(o, depth) for o in outs]
            physical_cts = [batched_at_every_level(c, depth) for c in cts]
            grads = _grads(physical_outs, leaves, physical_cts, nested)
        return tuple(wrap_every_level(g, depth) for g in grads)
    result = out if nested else (tuple(o.detach() for o in outs) if isinstance(out, tuple) else out.detach())
    return result, vjp_fn, aux


def jvp(func, primals, tangents, has_aux, split_aux):
    depth = len(running.levels)
    with fwAD.dual_level():
        duals = [wrap_every_level(fwAD.make_dual(batched_at_every_level(p, depth), batched_at_every_level(t, depth)),
                                  depth) for p, t in zip(primals, tangents)]
        out, aux = split_aux(func(*duals), has_aux, "jvp")
        outs = out if isinstance(out, tuple) else (out,)
        primal_outs, tangent_outs = [], []
        for o in outs:
            unpacked = fwAD.unpack_dual(batched_at_every_level(o, depth))
            t = unpacked.tangent if unpacked.tangent is not None else unpacked.primal.detach() * 0
            primal_outs.append(wrap_every_level(unpacked.primal, depth))
            tangent_outs.append(wrap_every_level(t, depth))
    if isinstance(out, tuple):
        return tuple(primal_outs), tuple(tangent_outs), aux
    return primal_outs[0], tangent_outs[0], aux


def jacobian(func, nums, has_aux, args, split_aux):
    """Per output, per differentiated argument, the Jacobian block of each sample: one batched
    reverse pass per element of one sample's output."""
    depth = len(running.levels)
    args, leaves = _leaves(args, nums)
    nested = _nested(leaves)
    with grad_mode.enable_grad():
        out, aux = split_aux(func(*args), has_aux, "jacrev")
        outs = out if isinstance(out, tuple) else (out,)
        blocks = []
        for o in outs:
            p = batched_at_every_level(o, depth)
            batch, shape = tuple(p.shape[:depth]), tuple(p.shape[depth:])
            flat = p.reshape(batch + (-1,))
            rows = [[] for _ in leaves]
            for k in range(flat.shape[-1]):
                for r, g in zip(rows, _grads([flat.select(depth, k).sum()], leaves, [None], nested)):
                    r.append(g)
            block = []
            for r, leaf in zip(rows, leaves):
                tail = tuple(leaf.shape[depth:])
                j = stack(r, depth) if r else leaf.detach().new_zeros(batch + (0,) + tail)
                block.append(wrap_every_level(j.reshape(batch + shape + tail), depth))
            blocks.append(tuple(block))
    if not nested:
        blocks = [tuple(b.detach() for b in row) for row in blocks]
    return isinstance(out, tuple), tuple(blocks), aux
