"""numgrad.compile: the elementwise chain ``relu((a*b+c)*0.5-1)`` compiled, beside eager numgrad,
one hand-written Numba loop, NumPy and PyTorch (eager).

    python asv_bench/ratios.py compiled     # numgrad compiled / each of the others
"""
import importlib

import numpy as np

LIBRARIES = ["numgrad", "numgrad-eager", "njit-hand", "numpy", "torch"]
SIZES = [16, 10 ** 5, 10 ** 7]


def _hand_kernel():
    from numba import njit

    # Returns a new array, as the libraries do.
    @njit(cache=True, error_model="numpy")
    def chain(a, b, c):
        out = np.empty(a.shape[0], np.float32)
        for i in range(a.shape[0]):
            v = (a[i] * b[i] + c[i]) * np.float32(0.5) - np.float32(1.0)
            out[i] = v if v > 0 else np.float32(0.0)
        return out
    return chain


def _chain(lib):
    def chain(a, b, c):
        return lib.relu((a * b + c) * 0.5 - 1)
    return chain


def _inputs(n):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(n).astype(np.float32) for _ in range(3)]


def _setup(library, n, backward):
    arrays = _inputs(n)
    if library == "njit-hand":
        if backward:
            raise NotImplementedError(library)
        kernel = _hand_kernel()
        return lambda: kernel(*arrays)
    if library == "numpy":
        if backward:
            raise NotImplementedError(library)
        a, b, c = arrays
        return lambda: np.maximum((a * b + c) * np.float32(0.5) - np.float32(1), np.float32(0))
    try:
        lib = importlib.import_module(library.split("-")[0])
    except ImportError:
        raise NotImplementedError(library)
    fn = _chain(lib)
    if library == "numgrad":
        fn = lib.compile(fn)
    tensors = [lib.tensor(x, requires_grad=backward) for x in arrays]
    if not backward:
        return lambda: fn(*tensors)
    g = lib.ones(n)

    def step():
        fn(*tensors).backward(g)
        for t in tensors:
            t.grad = None
    return step


class ElementwiseChain:
    """Forward only."""

    params = (LIBRARIES, SIZES)
    param_names = ["library", "n"]

    def setup(self, library, n):
        self.run = _setup(library, n, False)
        for _ in range(3):  # trace, compile and warm up outside the timed runs
            self.run()

    def time_forward(self, library, n):
        self.run()


class ElementwiseChainBackward:
    """Forward and backward (gradients of all three inputs)."""

    params = (LIBRARIES, SIZES)
    param_names = ["library", "n"]

    def setup(self, library, n):
        self.run = _setup(library, n, True)
        for _ in range(3):
            self.run()

    def time_forward_backward(self, library, n):
        self.run()
