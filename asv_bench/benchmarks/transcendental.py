"""Elementwise transcendental functions (exp, log, tanh, sigmoid, sin, cos, erf, gelu) on large
contiguous vectors, in numgrad beside NumPy and PyTorch (NumPy has no erf or gelu).

    python asv_bench/ratios.py transcendental     # prints numgrad / NumPy and numgrad / PyTorch ratios
"""
import importlib

import numpy as np

LIBRARIES = ["numgrad", "numpy", "torch"]
FUNCTIONS = ["exp", "log", "tanh", "sigmoid", "sin", "cos", "erf", "gelu"]
CASES = ["float32-1e6", "float32-1e7", "float64-1e6"]


def _numpy_sigmoid(x):
    # NumPy has no sigmoid: the usual form, reusing its one new array as numgrad and PyTorch do.
    out = np.exp(np.negative(x))
    out += 1
    return np.reciprocal(out, out=out)


class Transcendental:
    """One unary function over a vector of the given dtype and size."""

    params = (LIBRARIES, FUNCTIONS, CASES)
    param_names = ["library", "function", "case"]

    def setup(self, library, function, case):
        dtype, size = case.split("-")
        rng = np.random.default_rng(0)
        # Positive values keep log finite; the range covers both branches of tanh and sigmoid.
        data = rng.uniform(0.01, 12.0, int(float(size))).astype(dtype)
        data[::2] *= -1 if function != "log" else 1
        if library == "numpy":
            if function in ("erf", "gelu"):
                raise NotImplementedError(function)
            fn = _numpy_sigmoid if function == "sigmoid" else getattr(np, function)
            self.call = lambda: fn(data)
            return
        try:
            lib = importlib.import_module(library)
        except ImportError:
            raise NotImplementedError(library)
        if library == "torch":
            lib.set_num_threads(1)
        x = lib.tensor(data)
        fn = lib.nn.functional.gelu if function == "gelu" else getattr(lib, function)
        self.call = lambda: fn(x)

    def time_unary(self, library, function, case):
        self.call()
