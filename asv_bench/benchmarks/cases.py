"""The core benchmark cases, shared by the asv suites and ``compare.py``: each case builds the
same computation for numgrad, NumPy and PyTorch so their times can be set side by side."""
import numpy as np

import numgrad
from numgrad.testing import op_db_by_id

try:
    import torch
except ImportError:  # PyTorch is an optional comparison
    torch = None

LIBRARIES = ["numgrad", "numpy", "torch"]
ELEMENTWISE = ["add", "mul", "exp", "tanh"]
SIZES = [10 ** 3, 10 ** 6, 10 ** 7]
LAYOUTS = ["contiguous", "transposed"]
REDUCTIONS = ["sum", "mean", "amax", "amin"]
REDUCE_DIMS = ["all", "last", "first"]
SMALL_OPS = ["add", "mul", "exp", "sum"]

_NUMPY = {"add": np.add, "mul": np.multiply, "exp": np.exp, "tanh": np.tanh,
          "sum": np.sum, "mean": np.mean, "amax": np.amax, "amin": np.amin}
_ARITY = {"add": 2, "mul": 2, "exp": 1, "tanh": 1, "sum": 1, "mean": 1, "amax": 1, "amin": 1}


def _shape(n):
    """A 2-d shape of ``n`` elements (a power of ten), as square as powers of ten allow."""
    rows = 10 ** (len(str(n)) // 2)
    return rows, n // rows


def _arrays(n, layout, count):
    rows, cols = _shape(n)
    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        a = rng.standard_normal((cols, rows) if layout == "transposed" else (rows, cols)).astype(np.float32)
        out.append(a.T if layout == "transposed" else a)
    return out


def _convert(library, arrays):
    """The arrays as ``library``'s tensors, keeping their strides (so transposed stays transposed)."""
    if library == "numpy":
        return arrays
    if library == "torch":
        if torch is None:
            raise NotImplementedError("torch is not installed")
        return [torch.from_numpy(a) for a in arrays]
    return [numgrad.from_numpy(a) for a in arrays]


def function(library, name):
    if library == "numpy":
        return _NUMPY[name]
    if library == "torch":
        return getattr(torch, name)
    return op_db_by_id()[name].op


def elementwise_case(library, name, n, layout):
    """A zero-argument callable running elementwise ``name`` on ``n`` float32 elements."""
    args = _convert(library, _arrays(n, layout, _ARITY[name]))
    fn = function(library, name)
    return lambda: fn(*args)


def reduction_case(library, name, n, dim):
    """A zero-argument callable reducing ``n`` float32 elements over all dims, the last or the
    first."""
    (x,) = _convert(library, _arrays(n, "contiguous", 1))
    fn = function(library, name)
    if dim == "all":
        return lambda: fn(x)
    axis = -1 if dim == "last" else 0
    if library == "numpy":
        return lambda: fn(x, axis=axis)
    return lambda: fn(x, axis)


def small_case(library, name):
    """A zero-argument callable on 16-element tensors: measures per-call overhead."""
    rng = np.random.default_rng(0)
    args = _convert(library, [rng.standard_normal(16).astype(np.float32) for _ in range(_ARITY[name])])
    fn = function(library, name)
    return lambda: fn(*args)


RANDOM = ["rand", "randn", "randint", "randperm"]


def random_case(library, name, n):
    """``run()`` drawing ``n`` numbers: uniform or normal float32, integers in [0, 100), or a
    permutation; NumPy draws from its own Mersenne Twister (``Generator(MT19937)``)."""
    if library == "numpy":
        rng = np.random.Generator(np.random.MT19937(0))
        return {"rand": lambda: rng.random(n, dtype=np.float32),
                "randn": lambda: rng.standard_normal(n, dtype=np.float32),
                "randint": lambda: rng.integers(0, 100, n),
                "randperm": lambda: rng.permutation(n)}[name]
    if library == "torch" and torch is None:
        raise NotImplementedError("torch is not installed")
    lib = torch if library == "torch" else numgrad
    lib.manual_seed(0)
    return {"rand": lambda: lib.rand(n),
            "randn": lambda: lib.randn(n),
            "randint": lambda: lib.randint(0, 100, (n,)),
            "randperm": lambda: lib.randperm(n)}[name]
