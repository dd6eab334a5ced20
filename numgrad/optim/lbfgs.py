"""L-BFGS with an optional strong-Wolfe line search (PyTorch's algorithm and defaults).

Scalars derived from tensors (dot products, the step ``t``, ``H_diag``) stay 0-d tensors, so
they round in the parameters' dtype as they do in PyTorch.
"""
from __future__ import annotations

from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import zeros
from ..ops.movement import cat
from ..tensor import Tensor
from .optimizer import Optimizer, _check_range

__all__ = ["LBFGS"]


def _number(x):
    """A Python number for a step size or an ``alpha`` argument."""
    return x.item() if isinstance(x, Tensor) else x


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through ``(x1, f1, g1)`` and ``(x2, f2, g2)``, clamped to ``bounds``
    (default: the interval between the points); the midpoint when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)


class _Point:
    """One evaluation along the search direction: step ``t``, loss ``f``, gradient ``g`` and its
    directional derivative ``gtd``."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Finds a step satisfying the strong Wolfe conditions: brackets one by extrapolating with cubic
    steps, then shrinks the bracket by cubic interpolation (zoom). Returns (loss, grad, t, evals)."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    new = _Point(t, f_new, g_new, g_new.dot(d))
    prev = start
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        if new.f > (f + c1 * new.t * gtd) or (ls_iter > 1 and new.f >= prev.f):
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        if abs(new.gtd) <= -c2 * gtd:
            bracket = [new]
            done = True
            break
        if new.gtd >= 0:
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        t_next = _cubic_interpolate(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                                    bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev = _Point(new.t, new.f, new.g.clone(), new.gtd)
        f_new, g_new = obj_func(x, t_next, d)
        evals += 1
        new = _Point(t_next, f_new, g_new, g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [_Point(0, f, start.g, None), _Point(new.t, new.f, new.g, None)]

    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    insuf_progress = False
    while not done and ls_iter < max_ls:
        a, b = bracket[0], bracket[1]
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        # Keep the trial point away from the bracket's ends: a point too close to one makes little
        # progress, so after two such tries it moves to 10% of the bracket inside.
        t_max, t_min = max(a.t, b.t), min(a.t, b.t)
        eps = 0.1 * (t_max - t_min)
        if min(t_max - t, t - t_min) < eps:
            if insuf_progress or t >= t_max or t <= t_min:
                t = t_max - eps if abs(t - t_max) < abs(t - t_min) else t_min + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        trial = _Point(t, f_new, g_new.clone(), g_new.dot(d))
        ls_iter += 1
        if trial.f > (f + c1 * t * gtd) or trial.f >= bracket[low].f:
            bracket[high] = trial
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(trial.gtd) <= -c2 * gtd:
                done = True
            elif trial.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = trial
    best = bracket[low]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    """LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9, history_size=100, line_search_fn=None)

    Limited-memory BFGS over all parameters flattened into one vector. ``step(closure)`` runs up
    to ``max_iter`` iterations; ``closure`` clears the gradients, computes the loss, calls
    ``backward()`` and returns the loss. ``line_search_fn`` is ``None`` (fixed step ``lr``) or
    ``"strong_wolfe"``. Only one parameter group is supported."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        _check_range("learning rate", lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _numel(self) -> int:
        return sum(p.numel() for p in self._params)

    def _gather_flat_grad(self) -> Tensor:
        return cat([zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None else p.grad.reshape(-1)
                    for p in self._params], 0)

    def _add_grad(self, step_size, update: Tensor) -> None:
        step_size = _number(step_size)
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=step_size)
            offset += n

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        with enable_grad():
            loss = closure()
        loss = float(loss)
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    def _direction(self, state, flat_grad, history_size):
        """Updates the curvature history with the last step and returns the two-loop recursion's
        approximation of ``-H @ grad``."""
        y = flat_grad.sub(state["prev_flat_grad"])
        s = state["d"].mul(state["t"])
        ys = y.dot(s)
        # Pairs with too little curvature would make H indefinite; they are skipped.
        if ys > 1e-10:
            if len(state["old_dirs"]) == history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    state[key].pop(0)
            state["old_dirs"].append(y)
            state["old_stps"].append(s)
            state["ro"].append(1.0 / ys)
            state["H_diag"] = ys / y.dot(y)
        old_dirs, old_stps, ro = state["old_dirs"], state["old_stps"], state["ro"]
        al = state.setdefault("al", [None] * history_size)
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-_number(al[i]))
        r = q.mul(state["H_diag"])
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=_number(al[i] - be_i))
        return r

    def step(self, closure):
        """Performs up to ``max_iter`` iterations; returns the loss of the first closure call."""
        with no_grad():
            return self._run(closure)

    def _run(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                state.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
            else:
                d = self._direction(state, flat_grad, group["history_size"])
            if state.get("prev_flat_grad") is None:
                state["prev_flat_grad"] = flat_grad.clone()
            else:
                state["prev_flat_grad"].copy_(flat_grad)
            state["prev_loss"] = loss
            # The first step is scaled down so that it moves at most ``lr`` in total.
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            state["d"], state["t"] = d, t
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    lambda x, step, direction: self._directional_evaluate(closure, x, step, direction),
                    x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                state["t"] = t
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = closure()
                    loss = float(loss)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - state["prev_loss"]) < tolerance_change:
                break
        return orig_loss
