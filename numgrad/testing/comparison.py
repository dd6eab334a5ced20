"""``assert_close`` and the tolerances it uses by dtype, as in ``torch.testing``."""
from __future__ import annotations

from typing import Optional

import numpy as np

import numgrad

from .dtypes import _dtype_name

# (rtol, atol) per result dtype, as torch.testing.assert_close; the 16-bit floats are looser
# because a float32 computation rounded to them may differ by one ulp from a float64 one.
_TOLERANCES = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}


def default_tolerance(dtype) -> tuple:
    """``(rtol, atol)`` that :func:`assert_close` uses for ``dtype`` (0, 0 for exact dtypes)."""
    return _TOLERANCES.get(_dtype_name(dtype), (0.0, 0.0))


def _to_numpy(x) -> np.ndarray:
    if isinstance(x, numgrad.Tensor):
        x = x.detach().cpu()
        # NumPy has no bfloat16 of its own: compared as the float32 values it holds.
        return (x.float() if x.dtype is numgrad.bfloat16 else x).numpy().copy()
    return np.asarray(x)


def assert_close(actual, expected, *, rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = True, check_dtype: bool = True, msg: Optional[str] = None) -> None:
    """Asserts that ``actual`` and ``expected`` are close, like ``torch.testing.assert_close``.

    Both may be numgrad tensors, NumPy arrays or Python numbers. Shapes must match, dtypes too
    when both are tensors and ``check_dtype`` is set; values must satisfy
    ``|actual - expected| <= atol + rtol * |expected|``, with defaults chosen by dtype.
    """
    both_tensors = isinstance(actual, numgrad.Tensor) and isinstance(expected, numgrad.Tensor)
    if both_tensors:
        if tuple(actual.shape) != tuple(expected.shape):
            raise AssertionError(f"The values for attribute 'shape' do not match: "
                                 f"{actual.shape} != {expected.shape}.")
        if check_dtype and actual.dtype != expected.dtype:
            raise AssertionError(f"The values for attribute 'dtype' do not match: "
                                 f"{actual.dtype} != {expected.dtype}.")
    if rtol is None and atol is None:
        # The tolerance of the types compared, before bfloat16 is widened to compare.
        kinds = [x.dtype if isinstance(x, numgrad.Tensor) else np.asarray(x).dtype for x in (actual, expected)]
        rtol, atol = map(max, zip(*(default_tolerance(d) for d in kinds)))
    a, e = _to_numpy(actual), _to_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError(f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if a.dtype == np.bool_ and e.dtype == np.bool_:
        ok = a == e
        diff = (a != e).astype(np.float64)
        rel = diff
    else:
        af, ef = a.astype(np.float64), e.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(af - ef)
            ok = diff <= atol + rtol * np.abs(ef)
            ok |= af == ef  # equal infinities
            if equal_nan:
                ok |= np.isnan(af) & np.isnan(ef)
            rel = diff / np.abs(ef)
        diff = np.where(ok, 0.0, np.nan_to_num(diff, nan=np.inf))
        rel = np.where(ok, 0.0, np.nan_to_num(rel, nan=np.inf))
    if ok.all():
        return
    bad = int((~ok).sum())
    lines = ["Tensor-likes are not close!" if a.ndim else "Scalars are not close!", "",
             f"Mismatched elements: {bad} / {ok.size} ({100.0 * bad / ok.size:.1f}%)"]
    if ok.size:
        ia = np.unravel_index(int(np.argmax(diff)), ok.shape)
        ir = np.unravel_index(int(np.argmax(rel)), ok.shape)
        lines.append(f"Greatest absolute difference: {diff[ia]} at index {tuple(map(int, ia))} "
                     f"(up to {atol} allowed)")
        lines.append(f"Greatest relative difference: {rel[ir]} at index {tuple(map(int, ir))} "
                     f"(up to {rtol} allowed)")
    text = "\n".join(lines)
    raise AssertionError(f"{msg}\n\n{text}" if msg else text)
