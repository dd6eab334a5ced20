"""Autograd around in-place writes: the check every write runs first, and how a view catches up
with its base's history once the base (or another view of it) has been written.

What a write records afterwards is :func:`numgrad.autograd.tape.rebase`.
"""
from __future__ import annotations

from . import grad_mode


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
