"""Higher-level autograd: vjp, jvp, jacobian, hessian, hvp and vhp of whole functions.

Signatures, return nesting and errors follow ``torch.autograd.functional``. Jacobians with
``vectorize=True`` or ``strategy='forward-mode'`` push all basis directions through ``func`` in
one batched forward-mode pass; Hessian-vector products are forward-over-reverse.
"""
from __future__ import annotations

from . import forward_ad as fwAD
from . import grad_mode
from .engine import grad as _grad
from ..tensor import Tensor
from ..creation import ones_like, zeros, zeros_like

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


# ------------------------------------------------------------------------------ plumbing
def _as_tuple(inp, arg_name, fn_name):
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _unpack(res, is_tuple):
    """Undo the tuple wrapping: ``is_tuple`` is a bool, or (outputs_are_tuple, inputs_are_tuple)."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def _detach(x, requires_grad):
    """``x`` cut from its reverse-mode history; a forward-mode tangent, if any, is kept."""
    d = x.detach()
    tangent = getattr(x, "_fw_tangent", None)
    if tangent is not None:
        fwAD._set_tangent(d, tangent)
    return d.requires_grad_(requires_grad)


def _preprocess(inputs, create_graph, need_graph):
    return tuple(x.view_as(x) if create_graph and x._requires_grad else _detach(x, need_graph)
                 for x in inputs)


def _postprocess(res, create_graph):
    if isinstance(res, tuple):
        return tuple(_postprocess(r, create_graph) for r in res)
    return res if create_graph else res.detach()


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}.")


_NOT_STRICT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must "
               "be computed in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
                "respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                "should ensure that your function is twice differentiable and that the jacobian depends on "
                "the inputs (this would be violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the "
               "input. This is not allowed in strict mode. You should ensure that your function is thrice "
               "differentiable and that the hessian depends on the inputs.",
}

_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed "
            "in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
                  "when using the double backward trick to compute forward mode gradients. This is not "
                  "allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
                   "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                         "double backward trick to replace forward mode AD.",
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if not t._requires_grad:
            raise RuntimeError(_NOT_STRICT[kind].format(i=i))


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(ref)
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o._requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph,
                 retain_graph=retain_graph, allow_unused=True)


def _single_scalar(outputs, is_tuple, fn_name):
    if is_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a "
                           "single element")


# ------------------------------------------------------------------------------ vjp / jvp
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Function outputs and the vector-Jacobian product ``v^T J`` at ``inputs``.

    Returns ``(outputs, vjp)``, each a Tensor or a tuple as ``func``'s outputs and ``inputs`` are.
    ``v`` may be omitted when ``func`` returns a single one-element tensor.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph, True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _preprocess(v, create_graph, False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a "
                               "single Tensor with a single element.")
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "back")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(res, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Function outputs and the Jacobian-vector product ``J v`` at ``inputs`` (forward mode).

    Returns ``(outputs, jvp)``, both nested as ``func``'s outputs. ``v`` may be omitted when the
    input is a single one-element tensor.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph, strict or create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _preprocess(v, create_graph, False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function "
                               "is a single Tensor with a single element.")
        else:
            v = (ones_like(inputs[0]),)
        with fwAD.dual_level():
            outputs = func(*(fwAD.make_dual(x, t) for x, t in zip(inputs, v)))
            is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
            _check_requires_grad(outputs, "outputs", strict)
            unpacked = [fwAD.unpack_dual(o) for o in outputs]
        outputs = tuple(u.primal for u in unpacked)
        res = _fill_in_zeros([u.tangent for u in unpacked], outputs, strict, create_graph, "back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(res, create_graph), is_outputs_tuple))


# ------------------------------------------------------------------------------ jacobians
def _basis(inputs, numels):
    """Per input, the rows of the identity over all inputs' elements that belong to it."""
    total = sum(numels)
    out, start = [], 0
    for x, n in zip(inputs, numels):
        b = zeros(total, n, dtype=x.dtype, device=x.device)
        b.diagonal(-start).fill_(1)
        out.append(b.view((total,) + tuple(x.shape)))
        start += n
    return out


def _jacobian_batched(func, inputs, fn_name="jacobian", create_graph=False):
    """Every column of the Jacobian in one forward pass whose tangents carry all basis vectors.

    Returns ``(is_outputs_tuple, outputs, jac)`` with ``jac[i][j]`` of shape
    ``outputs[i].shape + inputs[j].shape``.
    """
    numels = [x.numel() for x in inputs]
    total = sum(numels)
    with fwAD._private_level(total, create_graph):
        duals = [fwAD.make_dual(x, b) for x, b in zip(inputs, _basis(inputs, numels))]
        outputs = func(*duals)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
        unpacked = [fwAD.unpack_dual(o) for o in outputs]
    jac = []
    for u in unpacked:
        out = u.primal
        t = u.tangent
        if t is None:
            t = zeros((total,) + tuple(out.shape), dtype=out.dtype, device=out.device)
        flat = t.reshape(total, -1).t()
        row, start = [], 0
        for x, n in zip(inputs, numels):
            row.append(flat.narrow(1, start, n).reshape(tuple(out.shape) + tuple(x.shape)))
            start += n
        jac.append(tuple(row))
    return is_outputs_tuple, tuple(u.primal for u in unpacked), tuple(jac)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    For one input and one output, a Tensor of shape ``output.shape + input.shape``; for several,
    a tuple (over outputs) of tuples (over inputs). ``vectorize=True`` or
    ``strategy='forward-mode'`` compute all of it in one batched forward-mode pass.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                             'your function has more outputs than inputs, "forward-mode" tends to be more '
                             'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and `strategy=\"forward-mode\"` "
                "are not supported together (yet). Please either set `create_graph=False` or "
                "`strategy=\"reverse-mode\"`.")
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not "
                "supported together (yet). Please either set `strict=False` or `strategy=\"reverse-mode\"`.")
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        is_outputs_tuple, _, jac = _jacobian_batched(func, inputs)
        return _unpack(_postprocess(jac, False), (is_outputs_tuple, is_inputs_tuple))
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                    "supported together. Please either set `strict=False` or `vectorize=False`.")
            inputs = _preprocess(inputs, create_graph, create_graph)
            is_outputs_tuple, _, jac = _jacobian_batched(func, inputs, create_graph=create_graph)
            return _unpack(_postprocess(jac, create_graph), (is_outputs_tuple, is_inputs_tuple))
        inputs = _preprocess(inputs, create_graph, True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        jac = tuple(_jacobian_rows(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
    return _unpack(_postprocess(jac, create_graph), (is_outputs_tuple, is_inputs_tuple))


def _jacobian_rows(i, out, inputs, create_graph, strict):
    """One output's Jacobian blocks by reverse mode, one backward pass per output element."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    n = flat.shape[0]
    for k in range(n):
        grads = _autograd_grad((flat[k] if n > 1 else flat.reshape(()),), inputs,
                               retain_graph=True, create_graph=create_graph)
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                       f"{j}. This is not allowed in strict mode.")
                g = zeros_like(x)
            elif strict and create_graph and not g._requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                   f"{i}. This is not allowed in strict mode when create_graph=True.")
            rows[j].append(g)
    return tuple(_stack(r, x, out) for r, x in zip(rows, inputs))


def _stack(rows, x, out):
    from ..ops.movement import stack
    if not rows:
        return zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype, device=x.device)
    block = stack(rows, 0) if len(rows) > 1 else rows[0]
    return block.reshape(tuple(out.shape) + tuple(x.shape))


# ------------------------------------------------------------------------------ second order
def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``: a Tensor for one input, else a tuple of
    tuples. ``vectorize=True`` or ``outer_jacobian_strategy='forward-mode'`` run forward-over-
    reverse with all directions batched into one pass."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        _single_scalar(outs, is_tuple, "hessian")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(x.requires_grad_(True) if x._grad_fn is None else x for x in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order_setup(func, inputs, v, fn_name, create_graph, strict):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _preprocess(inputs, create_graph, True)
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _preprocess(v, create_graph, False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                           "single Tensor with a single element.")
    else:
        v = (ones_like(inputs[0]),)
    return is_inputs_tuple, inputs, v


def _second_order(func, inputs, v, fn_name, create_graph, strict, stage):
    """``(outputs, is_outputs_tuple, product)`` by reverse over reverse: the gradient kept
    differentiable, then a second backward pass. ``vhp`` differentiates ``<grad, v>``; ``hvp``
    differentiates the gradient's VJP with respect to its (zero) cotangent, which gives ``H v``
    exactly, with no assumption that H is symmetric."""
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    _single_scalar(outputs, is_outputs_tuple, fn_name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    if stage == "double_back":
        res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
    else:
        cotangents = tuple(zeros_like(x).requires_grad_(True) for x in inputs)
        double_back = _autograd_grad(jac, inputs, cotangents, create_graph=True)
        _check_requires_grad(double_back, "hessian", strict)
        res = _autograd_grad(double_back, cotangents, v, create_graph=create_graph)
    return outputs, is_outputs_tuple, _fill_in_zeros(res, inputs, strict, create_graph, stage)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Function output and the vector-Hessian product ``v^T H`` of scalar ``func`` at ``inputs``."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v = _second_order_setup(func, inputs, v, "vhp", create_graph, strict)
        outputs, is_outputs_tuple, res = _second_order(func, inputs, v, "vhp", create_graph, strict,
                                                       "double_back")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(res, create_graph), is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Function output and the Hessian-vector product ``H v`` of scalar ``func`` at ``inputs``."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v = _second_order_setup(func, inputs, v, "hvp", create_graph, strict)
        outputs, is_outputs_tuple, res = _second_order(func, inputs, v, "hvp", create_graph, strict,
                                                       "double_back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(res, create_graph), is_inputs_tuple))
