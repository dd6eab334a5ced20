"""Elementwise ops, reductions and per-call overhead: numgrad beside NumPy and PyTorch."""
from . import cases


class Elementwise:
    """add, mul, exp, tanh on float32 inputs, contiguous or transposed."""

    params = (cases.LIBRARIES, cases.ELEMENTWISE, cases.SIZES, cases.LAYOUTS)
    param_names = ["library", "op", "n", "layout"]

    def setup(self, library, op, n, layout):
        self.run = cases.elementwise_case(library, op, n, layout)
        self.run()  # compile kernels outside the timed runs

    def time_op(self, library, op, n, layout):
        self.run()


class Reduction:
    """sum, mean, amax and amin of float32 inputs, over all elements, the last dim or the first."""

    params = (cases.LIBRARIES, cases.REDUCTIONS, cases.SIZES, cases.REDUCE_DIMS)
    param_names = ["library", "op", "n", "dim"]

    def setup(self, library, op, n, dim):
        self.run = cases.reduction_case(library, op, n, dim)
        self.run()

    def time_op(self, library, op, n, dim):
        self.run()


class Overhead:
    """One call on 16-element tensors: dispatch cost, not arithmetic."""

    params = (cases.LIBRARIES, cases.SMALL_OPS)
    param_names = ["library", "op"]

    def setup(self, library, op):
        self.run = cases.small_case(library, op)
        self.run()

    def time_op(self, library, op):
        self.run()


class Random:
    """The CPU generator: float32 uniforms and normals, integers, permutations."""

    params = (cases.LIBRARIES, cases.RANDOM, [10 ** 3, 10 ** 6])
    param_names = ["library", "op", "n"]

    def setup(self, library, op, n):
        self.run = cases.random_case(library, op, n)
        self.run()

    def time_op(self, library, op, n):
        self.run()
