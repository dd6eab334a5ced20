"""Matrix products beside NumPy (and PyTorch when importable): square matmul with contiguous
and transposed operands, and a batched matmul."""
import numpy as np

import numgrad

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None

LIBRARIES = ["numgrad", "numpy", "torch"]


def _operands(library, arrays, transposed):
    """The arrays in ``library``'s type; ``transposed`` passes transposes of contiguous arrays."""
    if transposed:
        arrays = [np.ascontiguousarray(a.swapaxes(-1, -2)) for a in arrays]
    if library == "numgrad":
        xs = [numgrad.tensor(a) for a in arrays]
    elif library == "torch":
        if torch is None:
            raise NotImplementedError("torch is not installed")
        xs = [torch.from_numpy(a) for a in arrays]
    else:
        xs = list(arrays)
    return [x.swapaxes(-1, -2) if transposed else x for x in xs]


class Matmul:
    """a @ b for n x n matrices."""

    params = (LIBRARIES, [64, 256, 1024], ["float32", "float64"], ["contiguous", "transposed"])
    param_names = ["library", "n", "dtype", "layout"]

    def setup(self, library, n, dtype, layout):
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal((n, n)).astype(dtype) for _ in range(2)]
        self.a, self.b = _operands(library, arrays, layout == "transposed")
        self.time_matmul(library, n, dtype, layout)  # compile kernels outside the timed runs

    def time_matmul(self, library, n, dtype, layout):
        self.a @ self.b


class Bmm:
    """A batch of 32 products of 128 x 128 matrices."""

    params = (LIBRARIES, ["float32", "float64"])
    param_names = ["library", "dtype"]

    def setup(self, library, dtype):
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal((32, 128, 128)).astype(dtype) for _ in range(2)]
        self.a, self.b = _operands(library, arrays, False)
        self.time_bmm(library, dtype)

    def time_bmm(self, library, dtype):
        self.a @ self.b
