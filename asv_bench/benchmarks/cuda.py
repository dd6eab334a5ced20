"""CUDA kernels on a real GPU beside PyTorch's: elementwise and sum at 1e8 float32 elements
(reported as GB/s moved), matmul 4096 (as TFLOP/s), launch overhead on tiny tensors and an MLP
training step. Every benchmark skips (NotImplementedError in setup) without a GPU, and under the
simulator, whose timings mean nothing.
"""
import os

import numgrad

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None

BIG = 10 ** 8
MM = 4096
LIBRARIES = ["numgrad", "torch"]


def _require(library):
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") or not numgrad.cuda.is_available():
        raise NotImplementedError("no CUDA GPU")
    if library == "torch" and (torch is None or not torch.cuda.is_available()):
        raise NotImplementedError("PyTorch with CUDA is not installed")


def _sync(library):
    (torch.cuda.synchronize if library == "torch" else numgrad.cuda.synchronize)()


def _lib(library):
    return torch if library == "torch" else numgrad


class Elementwise:
    """add and exp over 1e8 float32 elements; the track_ functions report bandwidth in GB/s."""

    params = (LIBRARIES, ["add", "exp"])
    param_names = ["library", "op"]
    timeout = 300

    def setup(self, library, op):
        _require(library)
        lib = _lib(library)
        self.x = lib.ones(BIG, device="cuda")
        self.y = lib.ones(BIG, device="cuda")
        self.fn = (lambda: self.x + self.y) if op == "add" else (lambda: self.x.exp())
        self.nbytes = 4 * BIG * (3 if op == "add" else 2)
        self.fn()
        _sync(library)

    def time_op(self, library, op):
        self.fn()
        _sync(library)

    def track_bandwidth_gbs(self, library, op):
        import time
        start = time.perf_counter()
        for _ in range(5):
            self.fn()
        _sync(library)
        return self.nbytes * 5 / (time.perf_counter() - start) / 1e9

    track_bandwidth_gbs.unit = "GB/s"


class Sum:
    """sum of 1e8 float32 elements (bandwidth: 4e8 bytes read)."""

    params = LIBRARIES
    param_names = ["library"]
    timeout = 300

    def setup(self, library):
        _require(library)
        self.x = _lib(library).ones(BIG, device="cuda")
        self.x.sum()
        _sync(library)

    def time_sum(self, library):
        self.x.sum()
        _sync(library)


class Matmul:
    """4096 x 4096 float32 matrix product (2 * 4096**3 flops)."""

    params = LIBRARIES
    param_names = ["library"]
    timeout = 300

    def setup(self, library):
        _require(library)
        lib = _lib(library)
        self.a = lib.randn(MM, MM, device="cuda")
        self.b = lib.randn(MM, MM, device="cuda")
        self.a @ self.b
        _sync(library)

    def time_matmul(self, library):
        self.a @ self.b
        _sync(library)


class LaunchOverhead:
    """One add of two 16-element tensors: the per-op cost of dispatch and kernel launch."""

    params = LIBRARIES
    param_names = ["library"]

    def setup(self, library):
        _require(library)
        lib = _lib(library)
        self.x = lib.ones(16, device="cuda")
        self.y = lib.ones(16, device="cuda")
        self.x + self.y
        _sync(library)

    def time_add_small(self, library):
        for _ in range(100):
            self.x + self.y
        _sync(library)


class MLPStep:
    """Forward, backward and SGD update of a 1024-512-10 MLP on a batch of 256."""

    params = LIBRARIES
    param_names = ["library"]
    timeout = 300

    def setup(self, library):
        _require(library)
        lib = _lib(library)
        self.lib = lib
        self.model = lib.nn.Sequential(lib.nn.Linear(1024, 512), lib.nn.ReLU(), lib.nn.Linear(512, 10)).to("cuda")
        self.opt = lib.optim.SGD(self.model.parameters(), lr=0.01)
        self.x = lib.randn(256, 1024, device="cuda")
        self.y = lib.randint(0, 10, (256,), device="cuda")
        self.time_step(library)

    def time_step(self, library):
        self.opt.zero_grad()
        loss = self.lib.nn.functional.cross_entropy(self.model(self.x), self.y)
        loss.backward()
        self.opt.step()
        _sync(library)
