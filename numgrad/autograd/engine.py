"""The backward engine and the public entry points of reverse mode: backward and grad.

The engine replays the nodes reachable from the roots in decreasing tape position: a node's
consumers were all recorded after it, so by the time it runs every cotangent it will receive
has arrived. It is a loop over a heap, never a recursion, so graph depth is unbounded.
"""
from __future__ import annotations

import heapq
import sys
import warnings

import numpy as np

from ..memo import Memo
from .. import shapes
from ..devices import CPU
from ..storage import Storage
from ..tensor import Tensor
from . import grad_mode
from . import tape
from . import profiler as _profiler
from .inplace import edge
from .nodes import AccumulateGrad
from ..creation import full_like, zeros, zeros_like


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _make_grads(outputs, grad_outputs):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad and shapes.prod(out._shape) != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.dtype.is_floating_point:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                   f"{_dtype_name(out.dtype)}")
            g = _one_like(out)
        elif not hasattr(g, "_storage"):
            g = full_like(out, g)
        elif g._shape != out._shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {_size(g)} and output[{i}] has a "
                f"shape of {_size(out)}.")
        grads.append(g)
    return grads


def _one_like(out):
    """ones_like(out) for a one-element ``out``, without the factory's argument parsing."""
    device = out._storage.device
    if device is CPU:
        # A copy of a one-element buffer holding 1: no kernel launch for a single element.
        one = _ones.get(out.dtype)
        if one is None:
            one = _ones[out.dtype] = np.ones(1, out.dtype.numpy)
        return Tensor._make(Storage(one.copy(), CPU), out._shape, (1,) * len(out._shape), 0, out.dtype)
    g = Tensor._empty(out._shape, out.dtype, device)
    g._fill_raw(1)
    return g


_ones: dict = {}


def _size(t) -> str:
    return f"torch.Size([{', '.join(map(str, t._shape))}])"


def _dtype_name(d) -> str:
    return f"torch.{d.name}"


def _check_roots(outputs, grads):
    for i, out in enumerate(outputs):
        if not hasattr(out, "_storage"):
            raise TypeError(f"backward() expects Tensors, but got {type(out).__name__}")
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if len(grads) != len(outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs"
                           if not grads else
                           f"Mismatch in length: got {len(grads)} gradients for {len(outputs)} outputs")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Computes the sum of gradients of ``tensors`` w.r.t. graph leaves, into their ``.grad``.

    ``grad_tensors`` weighs each non-scalar tensor (the vector in a vector-Jacobian product);
    with ``inputs``, only those tensors' ``.grad`` are accumulated.
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    _check_roots(outputs, grads)
    grads = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        keys = [edge(x) for x in inputs]
        for x, key in zip(inputs, keys):
            if key[0] is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
        captured = run_backward(outputs, grads, retain_graph, create_graph,
                                capture={k: True for k in keys}, accumulate=False)
        for x, key in zip(inputs, keys):
            g = captured.get(key)
            if g is not None:
                _accumulate(x, g, create_graph)
        return
    run_backward(outputs, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Computes and returns the gradients of ``outputs`` w.r.t. ``inputs`` (``.grad`` untouched).

    ``grad_outputs`` weighs non-scalar outputs; ``allow_unused=True`` returns None for inputs
    the outputs do not depend on; ``create_graph=True`` records the computation, for higher
    order derivatives; ``is_grads_batched=True`` treats the first dim of every grad_output as
    a batch of cotangents.
    """
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    _check_roots(outputs, grads)
    keys = []
    for x in inputs:
        key = edge(x)
        if key[0] is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        keys.append(key)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grads, keys, create_graph, allow_unused, materialize_grads)
    grads = _make_grads(outputs, grads)
    captured = run_backward(outputs, grads, retain_graph, create_graph,
                            capture={k: True for k in keys}, accumulate=False)
    return _collect(inputs, keys, captured, create_graph, allow_unused, materialize_grads)


def _collect(inputs, keys, captured, create_graph, allow_unused, materialize_grads):
    result = []
    for x, key in zip(inputs, keys):
        g = captured.get(key)
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                g = zeros_like(x)
        elif not create_graph and g._requires_grad:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grads, keys, create_graph, allow_unused, materialize_grads):
    """One backward pass per row of the batched cotangents, results stacked along dim 0."""
    n = None
    for g in grads:
        if g is not None:
            n = g.shape[0]
    rows = []
    for b in range(n):
        gb = [g[b] if g is not None else None for g in grads]
        gb = _make_grads(outputs, gb)
        captured = run_backward(outputs, gb, True, create_graph,
                                capture={k: True for k in keys}, accumulate=False)
        rows.append(_collect(inputs, keys, captured, create_graph, True, False))
    result = []
    for i, x in enumerate(inputs):
        col = [r[i] for r in rows]
        if all(c is None for c in col):
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.")
            result.append(_stack([zeros_like(x)] * n) if materialize_grads else None)
        else:
            result.append(_stack([c if c is not None else zeros_like(x) for c in col]))
    return tuple(result)


def _stack(ts):
    """Stack along a new dim 0 by writing rows into zeros: differentiable through CopySlices."""
    out = zeros((len(ts),) + tuple(ts[0].shape), dtype=ts[0].dtype, device=ts[0].device)
    for i, t in enumerate(ts):
        out[i] = t
    return out


# -------------------------------------------------------------------- the replay

def _needed(roots, capture):
    """The nodes from which some captured edge can be reached (only those need to run)."""
    targets = {node for node, _ in capture}
    state = {}
    stack = []
    for node in roots:
        if node is not None and node not in state:
            state[node] = None
            stack.append((node, iter(node.next_functions)))
    while stack:
        node, it = stack[-1]
        advanced = False
        for nxt, _ in it:
            if nxt is not None and nxt not in state:
                state[nxt] = None
                stack.append((nxt, iter(nxt.next_functions)))
                advanced = True
                break
        if advanced:
            continue
        stack.pop()
        hit = node in targets
        if not hit:
            for nxt, _ in node.next_functions:
                if nxt is not None and state.get(nxt):
                    hit = True
                    break
        state[node] = hit
    return {n for n, hit in state.items() if hit}


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, capture=None,
                 accumulate=True):
    """Replay the tape from ``roots`` with cotangents ``root_grads``.

    With ``capture`` (a collection of ``(node, index)`` edges), the cotangents arriving at those
    edges are returned in a dict, only the nodes leading to them run, and leaves' ``.grad`` is
    left alone unless ``accumulate``.
    """
    root_edges = list(map(edge, roots))
    needed = _needed([e[0] for e in root_edges], capture) if capture is not None else None
    pending = {}
    heap = []
    # A leaf's sink has no position of its own: it sums its cotangents here, and is flushed into
    # the leaf once no node left can reach it (see _deliver), else after every node.
    sinks = {}
    ready = []
    for (node, idx), g in zip(root_edges, root_grads):
        if node is not None:
            _deliver(node, idx, g, pending, heap, sinks, ready)
    captured = {}
    state = grad_mode._state
    prev_mode = state.enabled
    state.enabled = create_graph
    flush = (sinks, captured, capture, accumulate, create_graph)
    try:
        if heap:
            _replay(heap, pending, sinks, ready, flush, retain_graph, create_graph, capture, needed,
                    capture is not None and not accumulate)
        for node in list(sinks):
            _flush(node, *flush)
    finally:
        state.enabled = prev_mode
    return captured


def _flush(node, sinks, captured, capture, accumulate, create_graph):
    """Hand leaf sink ``node``'s summed cotangent to its hooks, the captured edges and ``.grad``."""
    # Popped, not read: _accumulate counts the references to g (see _unshared).
    g = sinks.pop(node)
    if node._extras is not None:
        g = _pre_hooks(node, node._extras, [g], capture is not None and not accumulate)[0]
    leaf = node.variable
    if leaf._hooks:
        g = _leaf_hooks(leaf, g)
    if capture is not None and (node, 0) in capture:
        captured[(node, 0)] = g
    if accumulate:
        _accumulate(leaf, g, create_graph)


def _replay(heap, pending, sinks, ready, flush, retain_graph, create_graph, capture, needed, capturing):
    """Run the nodes in the heap, latest position first, routing cotangents along their edges;
    flush each leaf sink as soon as no node left can reach it."""
    captured = flush[1]
    # Nodes other than sinks have unique positions, so heap entries never compare nodes.
    pop = heapq.heappop
    deliver = _deliver
    sum_to = _sum_to_fn()
    profiling = _profiler.enabled
    anomaly = tape.anomaly
    free = not retain_graph
    while heap:
        node = pop(heap)[1]
        grads_out = pending.pop(node)
        extras = node._extras
        if extras is not None:
            grads_out = _pre_hooks(node, extras, grads_out, capturing)
        if capture is not None:
            for i, g in enumerate(grads_out):
                if g is not None and (node, i) in capture:
                    captured[(node, i)] = g
            if needed is not None and node not in needed:
                continue
        # A single output's slot is only made when its cotangent arrives; hooks may empty it.
        if len(grads_out) > 1 or extras is not None:
            for g in grads_out:
                if g is None:
                    if getattr(node, "materialize_grads", True):
                        grads_out = [_zeros(m) if g is None else g for g, m in zip(grads_out, node._out_meta)]
                    break
        edges = None if needed is None else _pruned(node.next_functions, needed)
        if anomaly[0]:
            grads_in = _checked_backward(node, grads_out, create_graph, free, anomaly[1], edges)
        elif profiling:
            grads_in = _profiler.timed(node.name(), node._backward, grads_out, create_graph, free, edges)
        else:
            grads_in = node._backward(grads_out, create_graph, free, edges)
        if extras is not None and extras.post:
            for fn in list(extras.post.values()):
                r = fn(tuple(grads_in), tuple(grads_out))
                if r is not None:
                    if len(r) != len(grads_in):
                        raise RuntimeError(f"hook '{getattr(fn, '__name__', fn)}' has returned an incorrect "
                                           f"number of values (got {len(r)}, but expected {len(grads_in)})")
                    grads_in = list(r)
        nexts = node.next_functions
        metas = node._input_meta
        i = 0
        for g in grads_in:
            # Indexing beats zip with nested unpacking here, the engine's innermost loop.
            nxt, idx = nexts[i]
            meta = metas[i]
            i += 1
            if nxt is None or g is None:
                continue
            if needed is not None and nxt not in needed:
                continue
            if g._shape != meta[0]:
                try:
                    g = sum_to(g, meta[0])
                except ValueError:
                    raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i - 1} - got "
                                       f"{list(g._shape)} but expected shape compatible with {list(meta[0])}") from None
            if g.dtype is not meta[1]:
                g = g.to(meta[1])
            deliver(nxt, idx, g, pending, heap, sinks, ready)
        if ready:
            # Dropped first: a flushed cotangent that nothing else holds becomes .grad uncopied.
            grads_in = grads_out = g = None
            # Every node still to run precedes the position reached here: sinks made later than
            # that are complete.
            reached = -heap[0][0] if heap else -1
            while ready and -ready[0][0] > reached:
                _flush(pop(ready)[1], *flush)


def _pruned(nexts, needed):
    """``nexts`` with the edges to nodes outside ``needed`` cut (None when none is), so that a
    node computes only the cotangents some captured edge is reached by, as PyTorch's
    ``should_compute_output``."""
    for nxt, _ in nexts:
        if nxt is not None and nxt not in needed:
            return tuple([(nxt if nxt in needed else None, idx) for nxt, idx in nexts])
    return None


def _checked_backward(node, grads_out, create_graph, free, check_nan, edges):
    """A node's backward under anomaly detection: an error, or NaN in its gradients when
    ``check_nan``, is raised after a warning that shows the forward call that made the node."""
    try:
        grads_in = node._backward(grads_out, create_graph, free, edges)
    except Exception:
        _warn_error(node)
        raise
    if check_nan:
        for i, g in enumerate(grads_in):
            if g is not None and hasattr(g, "_storage") and bool(g.isnan().any()):
                _warn_error(node)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    return grads_in


def _warn_error(node):
    """PyTorch's warning naming the node whose backward failed, with its forward traceback."""
    name = node.name()
    trace = node.__dict__.get("traceback_")
    if trace is None:
        warnings.warn(f"Error detected in {name}. No forward pass information available. Enable detect "
                      "anomaly during forward pass for more information.", stacklevel=4)
    else:
        warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the error:\n"
                      + "".join(trace), stacklevel=4)


def _deliver(node, idx, g, pending, heap, sinks, ready):
    """Route cotangent ``g`` to output ``idx`` of ``node``: a leaf's sink sums what reaches it;
    any other node gets its slots and its heap entry with its first cotangent.

    A sink also enters ``ready``, ordered by its ``born`` position (taken before any node reading
    the leaf was made): once the replay has passed it, nothing more can arrive, and the gradient
    is accumulated without waiting for the end (the memory of a deep model's weight gradients is
    not all held at once).
    """
    if node.__class__ is AccumulateGrad:
        prev = sinks.get(node)
        if prev is None:
            sinks[node] = g
            heapq.heappush(ready, (-node.born, node))
        else:
            sinks[node] = prev + g
        return
    slot = pending.get(node)
    if slot is None:
        slot = pending[node] = [None] * len(node._out_meta)
        heapq.heappush(heap, (-node.position, node))
    slot[idx] = g if slot[idx] is None else slot[idx] + g


_reductions: list = []


def _sum_to_fn():
    if not _reductions:
        # Bound on first use: the ops import autograd.
        from ..ops import reductions
        _reductions.append(reductions)
    return _reductions[0].sum_to


def _zeros(meta):
    return zeros(meta[0], dtype=meta[1], device=meta[2])


def _pre_hooks(node, extras, grads_out, capturing):
    """Tensor hooks (which may replace a gradient), retain_grad, then the node's pre-hooks."""
    for idx, fns in extras.tensor.items():
        g = grads_out[idx]
        if g is None:
            continue
        for fn in list(fns.values()):
            r = fn(g)
            if r is not None:
                g = r
        grads_out[idx] = g
    if not capturing:
        for idx, ref in extras.retained.items():
            t = ref()
            g = grads_out[idx]
            if t is not None and g is not None and t._grad_fn is node:
                t.grad = g.detach().clone() if t.grad is None else t.grad + g.detach()
    for fn in list(extras.pre.values()):
        r = fn(tuple(grads_out))
        if r is not None:
            grads_out = list(r)
    return grads_out


def _leaf_hooks(leaf, g):
    for fn in list(leaf._hooks.values()):
        r = fn(g)
        if r is not None:
            g = r
    return g


def _accumulate(leaf, g, create_graph):
    """Add ``g`` into ``leaf.grad``: the first gradient is copied (it may alias a user's tensor
    or another leaf's gradient) unless nothing else can reach it (see :func:`_unshared`), later
    ones are added in place unless building a graph."""
    if create_graph:
        # The first gradient is a recorded copy, as PyTorch's: never a view nor a user's tensor
        # (zero_grad detaches it in place).
        leaf.grad = _recorded_copy(g) if leaf.grad is None else leaf.grad + g
    elif leaf.grad is None:
        # References to g: the caller's, this argument, getrefcount's own.
        if g._requires_grad or sys.getrefcount(g) > 3 or not _unshared(g):
            g = _fresh_copy(g.detach() if g._requires_grad else g)
        leaf.grad = g
    else:
        if g._requires_grad:
            g = g.detach()
        if leaf.grad._requires_grad:
            leaf.grad = leaf.grad + g
        else:
            leaf.grad.add_(g)
    hooks = leaf.__dict__.get("_post_accumulate_hooks")
    if hooks:
        for fn in list(hooks.values()):
            fn(leaf)


def _unshared(g) -> bool:
    """Whether ``g``, not referenced outside the engine, is a dense CPU temporary that nothing
    can reach through a view or a NumPy alias of its memory either: it can become a ``.grad``
    uncopied."""
    s = g._storage
    if (sys.getrefcount(s) > 3 or g._offset or g._base is not None or g._grad_fn is not None
            or s.device is not CPU):
        return False
    data = s.data
    if sys.getrefcount(data) > 3:  # s.data, this local, getrefcount's own
        return False
    dense = _dense.get(g._shape)
    if dense is None:
        dense = _dense[g._shape] = (shapes.prod(g._shape), shapes.contiguous_strides(g._shape))
    if data.shape[0] != dense[0] or (g._strides != dense[1] and not shapes.is_contiguous(g._shape, g._strides)):
        return False
    # A kernel's result may be a flat view of the array it allocated, which then has no other
    # reference; an array from a user (from_numpy) is still referenced by its owner.
    root = data.base
    return root is None or (root.__class__ is np.ndarray and root.base is None and sys.getrefcount(root) <= 3)


_dense = Memo(1024)  # shape -> (numel, C-contiguous strides)


def _fresh_copy(g):
    """A copy of ``g`` (which records nothing: it needs no gradient here)."""
    if not _copy:
        # Bound on first use: the ops import autograd.
        from ..ops.registry import run_elementwise
        from ..ops.records import OPS
        _copy.append((OPS["copy"], run_elementwise))
    op, run = _copy[0]
    return run(op, (g,))


_copy: list = []


def _recorded_copy(g):
    """A dense copy of ``g`` whose history (CopyBackwards) leads back to ``g``'s."""
    out = Tensor._empty(g._shape, g.dtype, g._storage.device)
    return out.copy_(g)
