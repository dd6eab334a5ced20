"""Numerical checks of backward rules: gradcheck and gradgradcheck (PyTorch's defaults).

The numerical Jacobian comes from central differences on float64 inputs; the analytical one
from one vector-Jacobian product per output element (or, in fast mode, one random projection
``v^T J u`` compared with the directional derivative along ``u``).
"""
from __future__ import annotations

import numpy as np

from .engine import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _tensors(x):
    return [t for t in (x if isinstance(x, (tuple, list)) else (x,)) if hasattr(t, "_storage")]


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _values(out) -> np.ndarray:
    return np.array(out.detach()._np_view(), dtype=np.float64).reshape(-1)


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _numerical_jacobian(func, inputs, diff_inputs, outputs_n, eps):
    """J[o][i]: an (n_out_o, n_in_i) array by central differences on each input element."""
    jac = [[None] * len(diff_inputs) for _ in range(outputs_n)]
    for i, x in enumerate(diff_inputs):
        flat = x.detach()._np_view()
        n = flat.size
        cols = [np.zeros((0, n)) for _ in range(outputs_n)]
        for k, idx in enumerate(np.ndindex(*flat.shape) if flat.ndim else [()]):
            orig = flat[idx].item()
            flat[idx] = orig + eps
            plus = [_values(o) for o in _outputs(func, inputs)]
            flat[idx] = orig - eps
            minus = [_values(o) for o in _outputs(func, inputs)]
            flat[idx] = orig
            for o in range(outputs_n):
                if k == 0:
                    cols[o] = np.zeros((plus[o].size, n))
                cols[o][:, k] = (plus[o] - minus[o]) / (2 * eps)
        for o in range(outputs_n):
            jac[o][i] = cols[o]
    return jac


def _outputs(func, inputs):
    return _tensors(func(*inputs))


def _analytical_jacobian(outputs, diff_inputs):
    jac = [[np.zeros((o.numel(), x.numel())) for x in diff_inputs] for o in outputs]
    from ..creation import zeros_like
    for o, out in enumerate(outputs):
        if not out._requires_grad:
            continue
        for r in range(out.numel()):
            v = zeros_like(out)
            v.view(-1)[r] = 1.0
            gs = _grad(out, diff_inputs, v, retain_graph=True, allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    jac[o][i][r, :] = _values(g)
    return jac


def _report(o, i, numerical, analytical):
    diff = np.abs(numerical - analytical)
    r, c = np.unravel_index(np.argmax(diff), diff.shape)
    return (f"Jacobian mismatch for output {o} with respect to input {i},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n"
            f"largest difference at output element {r}, input element {c}: numerical "
            f"{numerical[r, c]!r} vs analytical {analytical[r, c]!r}\n")


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None, **kwargs) -> bool:
    """Checks the gradients of ``func`` at ``inputs`` against finite differences.

    Inputs that require grad should be float64. Raises ``GradcheckError`` (or returns False
    when ``raise_exception=False``) naming the output, input and element that disagree.
    """
    inputs = _as_tuple(inputs)
    diff_inputs = [x for x in inputs if hasattr(x, "_storage") and x._requires_grad]
    if not diff_inputs:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of "
                         "the them have requires_grad=True.")
    for k, x in enumerate(inputs):
        if hasattr(x, "_storage") and x._requires_grad and x.dtype.name != "float64":
            import warnings
            warnings.warn(f"Input #{k} requires gradient and is not a double precision "
                          "floating point. This check will likely fail if all the inputs are not of "
                          "double precision floating point. ")
    outputs = _tensors(func(*inputs))
    if fast_mode:
        return _fast_check(func, inputs, diff_inputs, outputs, eps, atol, rtol, raise_exception)
    numerical = _numerical_jacobian(func, inputs, diff_inputs, len(outputs), eps)
    analytical = _analytical_jacobian(outputs, diff_inputs)
    for o in range(len(outputs)):
        for i in range(len(diff_inputs)):
            a, n = analytical[o][i], numerical[o][i]
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(_report(o, i, n, a), raise_exception)
    return True


def _fast_check(func, inputs, diff_inputs, outputs, eps, atol, rtol, raise_exception):
    from .. import creation
    rng = np.random.default_rng(0)
    us = [rng.standard_normal(x.numel()) for x in diff_inputs]
    us = [u / max(np.linalg.norm(u), 1e-12) for u in us]
    for o, out in enumerate(outputs):
        v = rng.standard_normal(out.numel())
        # analytical: v^T J u = sum_i <J_i^T v, u_i>
        vt = creation.tensor(v.reshape(tuple(out.shape)), dtype=out.dtype)
        gs = _grad(out, diff_inputs, vt, retain_graph=True, allow_unused=True) if out._requires_grad \
            else [None] * len(diff_inputs)
        for i, (x, g, u) in enumerate(zip(diff_inputs, gs, us)):
            analytical = float(_values(g) @ u) if g is not None else 0.0
            flat = x.detach()._np_view()
            orig = flat.copy()
            flat[...] = orig + eps * u.reshape(flat.shape)
            plus = _values(_outputs(func, inputs)[o])
            flat[...] = orig - eps * u.reshape(flat.shape)
            minus = _values(_outputs(func, inputs)[o])
            flat[...] = orig
            numerical = float(((plus - minus) / (2 * eps)) @ v)
            if not abs(analytical - numerical) <= atol + rtol * abs(numerical):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{numerical!r}\nanalytical:{analytical!r}\n\n"
                             "The above quantities relating the numerical and analytical jacobians are "
                             "computed in fast mode (a random projection v^T J u).\n", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False,
                  **kwargs) -> bool:
    """Checks second derivatives: gradcheck of the map (inputs, grad_outputs) -> vjp."""
    from .. import creation
    inputs = _as_tuple(inputs)
    outputs = _tensors(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            creation.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype, requires_grad=True)
            for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [k for k, x in enumerate(inputs) if hasattr(x, "_storage") and x._requires_grad]

    def first_order(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = [o for o in _tensors(func(*xs)) if o._requires_grad]
        diff = [xs[k] for k in diff_idx]
        gs = _grad(outs, diff, gos[:len(outs)], create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode)
