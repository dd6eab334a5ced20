"""gradcheck and gradgradcheck for every differentiable row of the op table, on float64
samples: contiguous, non-contiguous and broadcasting inputs of several shapes."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.testing import OP_DB, noncontiguous_view

GRAD_OPS = [info for info in OP_DB if info.supports_grad and "float64" in info.dtypes]


def _pick(samples):
    """A few samples per op: the first non-empty same-shape one, a broadcasting one, a 5-d one."""
    chosen = []
    plain = [s for s in samples if not s.broadcasts and all(
        not isinstance(a, np.ndarray) or a.size > 0 for a in s.args)]
    for s in plain:
        if s.args and isinstance(s.args[0], np.ndarray) and s.args[0].ndim >= 1:
            chosen.append(s)
            break
    five = [s for s in plain if isinstance(s.args[0], np.ndarray) and s.args[0].ndim >= 3]
    chosen += five[:1]
    chosen += [s for s in samples if s.broadcasts and all(
        not isinstance(a, np.ndarray) or a.dtype == np.float64 for a in s.args)][:1]
    return chosen


def _tensors(sample, noncontiguous):
    args = []
    for a in sample.args:
        if isinstance(a, np.ndarray):
            t = noncontiguous_view(a) if noncontiguous and a.ndim else numgrad.tensor(a)
            if a.dtype == np.float64:
                t.requires_grad_(True)
            args.append(t)
        else:
            args.append(a)
    return args


def _cases():
    for info in GRAD_OPS:
        for k, sample in enumerate(_pick(info.samples("float64"))):
            yield pytest.param(info, sample, id=f"{info.id}-{k}")


CASES = list(_cases())


@pytest.mark.parametrize("info,sample", CASES)
def test_gradcheck(info, sample):
    args = _tensors(sample, noncontiguous=False)
    assert gradcheck(lambda *xs: info.op(*xs, **sample.kwargs), args)


@pytest.mark.parametrize("info,sample", CASES[::3])
def test_gradcheck_noncontiguous(info, sample):
    args = _tensors(sample, noncontiguous=True)
    assert gradcheck(lambda *xs: info.op(*xs, **sample.kwargs), args)


@pytest.mark.parametrize("info,sample", [c for c in CASES if c.values[0].supports_gradgrad][::2])
def test_gradgradcheck(info, sample):
    args = _tensors(sample, noncontiguous=False)
    assert gradgradcheck(lambda *xs: info.op(*xs, **sample.kwargs), args, fast_mode=True)
