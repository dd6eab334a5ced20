"""PyTorch's repr format for tensors, and the print options that control it.

Printing reads values only: large tensors are summarized through one strided view of their
edge items, so a tensor expanded to 10**13 elements prints from a few dozen of them.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass

from . import dtypes
from .ops.copying import contiguous, to
from .tensor import _host_read

__all__ = ["set_printoptions", "get_printoptions", "printoptions"]


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


_OPTS = _PrintOptions()
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    """Set options for printing tensors.

    Args:
        precision: digits after the decimal point for floats (default 4).
        threshold: element count above which a tensor is summarized with ``...`` (default 1000).
        edgeitems: items shown at each end of a summarized dim (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``'default'``, ``'short'`` or ``'full'``; the other arguments override it.
        sci_mode: force scientific notation on (True) or off (False); None chooses per tensor.
    """
    if profile is not None:
        for key, value in _PROFILES[profile].items():
            setattr(_OPTS, key, value)
    for key, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                       ("linewidth", linewidth)):
        if value is not None:
            setattr(_OPTS, key, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options, as keyword arguments for :func:`set_printoptions`."""
    return asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that sets print options and restores the previous ones on exit."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------------------- formatting
class _Formatter:
    """Chooses one format for all elements: integer-valued, fixed point or scientific, and the
    common width, from the (summarized) values as PyTorch does."""

    def __init__(self, values, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        p = _OPTS.precision
        if not floating:
            self.width = max([1] + [len(str(v)) for v in values])
            return
        finite = [v for v in values if v != 0 and math.isfinite(v)]
        if not finite:
            return
        mags = [abs(v) for v in finite]
        lo, hi = min(mags), max(mags)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if _OPTS.sci_mode is None \
            else _OPTS.sci_mode
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)  # room for the trailing "."
        else:
            self.width = max(len(f"{v:.{p}f}") for v in finite)

    def format(self, value) -> str:
        if not self.floating:
            s = str(value)
        elif self.sci_mode:
            s = f"{value:{self.width}.{_OPTS.precision}e}"
        elif self.int_mode:
            s = f"{value:.0f}"
            if math.isfinite(value):
                s += "."
        else:
            s = f"{value:.{_OPTS.precision}f}"
        return s.rjust(self.width)


def _summary_view(t, summarize: bool):
    """A view of ``t`` holding only what gets printed, and per dim whether it was cut.

    A summarized dim of size n becomes two dims (2, edgeitems) whose outer stride jumps from the
    head block to the tail block, so the view stays strided and costs no copy.
    """
    e = _OPTS.edgeitems
    shape, strides, cut = [], [], []
    for n, st in zip(t._shape, t._strides):
        if summarize and n > 2 * e:
            shape += [2, e]
            strides += [(n - e) * st, st]
            cut.append(True)
        else:
            shape.append(n)
            strides.append(st)
            cut.append(False)
    return t._view(shape, strides), cut


def _host_values(view):
    """Nested Python lists of the view's values (0-d: one Python number)."""
    if view.device.type != "cpu":
        view = to(contiguous(view), "cpu")
    return view._np_view().tolist()


def _leaves(node, cut):
    if not cut:
        yield node
        return
    children = node[0] + node[1] if cut[0] else node
    for child in children:
        yield from _leaves(child, cut[1:])


def _vector(node, cut, indent, fmt):
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.width + 2)))
    if cut and not _OPTS.edgeitems:
        items = ["..."]
    elif cut:
        items = [fmt.format(v) for v in node[0]] + [" ..."] + [fmt.format(v) for v in node[1]]
    else:
        items = [fmt.format(v) for v in node]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(node, cut, indent, fmt):
    if not cut:
        return fmt.format(node)
    if len(cut) == 1:
        return _vector(node, cut[0], indent, fmt)
    if cut[0]:
        parts = [_nested(c, cut[1:], indent + 1, fmt) for c in node[0]] + ["..."] + \
                [_nested(c, cut[1:], indent + 1, fmt) for c in node[1]]
    else:
        parts = [_nested(c, cut[1:], indent + 1, fmt) for c in node]
    return "[" + ("," + "\n" * (len(cut) - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(t, indent: int) -> str:
    summarize = t.numel() > _OPTS.threshold
    view, cut = _summary_view(t, summarize)
    node = _host_values(view)
    fmt = _Formatter(list(_leaves(node, cut)), t.dtype.is_floating_point)
    return _nested(node, cut, indent, fmt)


def _add_suffixes(text: str, suffixes, indent: int) -> str:
    out = [text]
    # PyTorch's measure of the last line (one more than its length when there is no newline).
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > _OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            out.append(", " + s)
            last += len(s) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t) -> str:
    """``repr(t)`` as PyTorch writes it; reads the data without recording any autograd."""
    _host_read("print")
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    if t.numel() == 0:
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t._shape)}")
        if t.dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={t.dtype!r}")
        text = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append(f"size={tuple(t._shape)}")
        if t.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool):
            suffixes.append(f"dtype={t.dtype!r}")
        text = _body(t, indent)
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = getattr(t, "_fw_tangent", None)
    if tangent is not None:
        suffixes.append(f"tangent={tensor_repr(tangent)}")
    return _add_suffixes(prefix + text, suffixes, indent)
