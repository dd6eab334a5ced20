"""Index-driven data movement and sorting at 1e6 elements beside NumPy (and PyTorch when
importable): gather, scatter, scatter_add, index_select, advanced indexing, masked reads and
writes, and sort."""
import numpy as np

import numgrad

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None

LIBRARIES = ["numgrad", "numpy", "torch"]
N = 1000  # 1000 x 1000 = 1e6 elements


def _convert(library, *arrays):
    if library == "numgrad":
        return [numgrad.tensor(a) for a in arrays]
    if library == "torch":
        if torch is None:
            raise NotImplementedError("torch is not installed")
        return [torch.from_numpy(a) for a in arrays]
    return list(arrays)


def _data(dtype="float32"):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, N)).astype(dtype)
    idx = rng.integers(0, N, (N, N))
    return x, idx


class Gather:
    """out[i, j] = x[i, idx[i, j]] over 1e6 elements (NumPy: take_along_axis)."""

    params = (LIBRARIES, ["float32", "float64"])
    param_names = ["library", "dtype"]

    def setup(self, library, dtype):
        x, idx = _data(dtype)
        self.x, self.idx = _convert(library, x, idx)
        self.fn = {"numgrad": lambda: numgrad.gather(self.x, 1, self.idx),
                   "torch": lambda: torch.gather(self.x, 1, self.idx),
                   "numpy": lambda: np.take_along_axis(self.x, self.idx, 1)}[library]
        self.fn()  # compile kernels outside the timed runs

    def time_gather(self, library, dtype):
        self.fn()


class Scatter:
    """out[i, idx[i, j]] = src[i, j] in place over 1e6 elements (NumPy: put_along_axis)."""

    params = (LIBRARIES, ["float32", "float64"])
    param_names = ["library", "dtype"]

    def setup(self, library, dtype):
        x, idx = _data(dtype)
        self.out, self.idx, self.src = _convert(library, np.zeros_like(x), idx, x)
        self.fn = {"numgrad": lambda: self.out.scatter_(1, self.idx, self.src),
                   "torch": lambda: self.out.scatter_(1, self.idx, self.src),
                   "numpy": lambda: np.put_along_axis(self.out, self.idx, self.src, 1)}[library]
        self.fn()

    def time_scatter(self, library, dtype):
        self.fn()


class ScatterAdd:
    """out[i, idx[i, j]] += src[i, j] in place over 1e6 elements (NumPy: add.at)."""

    params = (LIBRARIES, ["float32"])
    param_names = ["library", "dtype"]

    def setup(self, library, dtype):
        x, idx = _data(dtype)
        self.out, self.idx, self.src = _convert(library, np.zeros_like(x), idx, x)
        rows = np.arange(N)[:, None]
        self.fn = {"numgrad": lambda: self.out.scatter_add_(1, self.idx, self.src),
                   "torch": lambda: self.out.scatter_add_(1, self.idx, self.src),
                   "numpy": lambda: np.add.at(self.out, (rows, self.idx), self.src)}[library]
        self.fn()

    def time_scatter_add(self, library, dtype):
        self.fn()


class IndexSelect:
    """1000 random rows of a 1000 x 1000 matrix (NumPy: take along axis 0)."""

    params = (LIBRARIES, ["float32", "float64"])
    param_names = ["library", "dtype"]

    def setup(self, library, dtype):
        x, idx = _data(dtype)
        self.x, self.rows = _convert(library, x, np.ascontiguousarray(idx[0]))
        self.fn = {"numgrad": lambda: numgrad.index_select(self.x, 0, self.rows),
                   "torch": lambda: torch.index_select(self.x, 0, self.rows),
                   "numpy": lambda: np.take(self.x, self.rows, axis=0)}[library]
        self.fn()

    def time_index_select(self, library, dtype):
        self.fn()


class AdvancedIndex:
    """x[rows, cols] with two 1e6-element index tensors, reading and writing."""

    params = (LIBRARIES,)
    param_names = ["library"]

    def setup(self, library):
        x, idx = _data()
        self.x, self.rows, self.cols = _convert(library, x, idx, np.ascontiguousarray(idx.T))
        self.time_read(library)
        self.time_write(library)

    def time_read(self, library):
        self.x[self.rows, self.cols]

    def time_write(self, library):
        self.x[self.rows, self.cols] = 1.0


class MaskedSelect:
    """The elements of a 1000 x 1000 matrix where a mask is true, about half of them at random or
    nearly all: read (masked_select; NumPy: boolean indexing) and written (``x[mask] = 0``)."""

    params = (LIBRARIES, ["float32", "float64"], ["half", "most"])
    param_names = ["library", "dtype", "mask"]

    def setup(self, library, dtype, mask):
        x, _ = _data(dtype)
        keep = x > (0.0 if mask == "half" else -3.0)
        self.x, self.keep = _convert(library, x, keep)
        self.fn = {"numgrad": lambda: numgrad.masked_select(self.x, self.keep),
                   "torch": lambda: torch.masked_select(self.x, self.keep),
                   "numpy": lambda: self.x[self.keep]}[library]
        self.fn()

    def time_masked_select(self, library, dtype, mask):
        self.fn()

    def time_write(self, library, dtype, mask):
        self.x[self.keep] = 0.0


class Sort:
    """Stable sort (values and indices) of 1e6 elements along the last dim: float32 and int64
    (values within +-1e9) vectors, and 1000 float32 rows of 1000. The target compares with
    NumPy's values-only ``np.sort``; ``numpy-argsort`` (argsort + take) returns what sort does."""

    params = (LIBRARIES + ["numpy-argsort"], ["float32", "int64", "float32-rows"])
    param_names = ["library", "case"]

    def setup(self, library, case):
        rng = np.random.default_rng(0)
        if case == "int64":
            x = rng.integers(-10**9, 10**9, N * N)
        else:
            x = rng.standard_normal(N * N).astype(np.float32)
            if case == "float32-rows":
                x = x.reshape(N, N)
        (self.x,) = _convert(library if library != "numpy-argsort" else "numpy", x)
        self.fn = {"numgrad": lambda: numgrad.sort(self.x, dim=-1, stable=True),
                   "torch": lambda: torch.sort(self.x, dim=-1, stable=True),
                   "numpy": lambda: np.sort(self.x, -1),
                   "numpy-argsort": lambda: np.take_along_axis(
                       self.x, np.argsort(self.x, -1, kind="stable"), -1)}[library]
        self.fn()

    def time_sort(self, library, case):
        self.fn()
