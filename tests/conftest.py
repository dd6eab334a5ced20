"""Shared pytest configuration: a Hypothesis profile that tolerates first-call kernel compiles,
and CPU-only behaviour outside the CUDA tests."""
import os

import pytest
from hypothesis import HealthCheck, settings

# No helper processes compiling ahead (numgrad.backends.shared_compile): which process compiles
# a kernel would then depend on timing, and tests that count compilations would be flaky. This
# process's subprocesses inherit the setting; tests/test_shared_compile.py turns it on.
os.environ["NUMGRAD_PRECOMPILE"] = "0"

# A first call compiles Numba kernels (up to a second), so per-example deadlines would be noise.
settings.register_profile("numgrad", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("numgrad")


@pytest.fixture(autouse=True)
def _no_simulated_gpu_outside_cuda_tests(request, monkeypatch):
    # tests/test_cuda.py switches on Numba's CUDA simulator for the whole process; elsewhere
    # `numgrad.cuda.is_available()` must keep answering as on this GPU-less machine, or code
    # that branches on it (the examples, the tutorials) takes the simulated-GPU branch. The
    # backend answers it, and refuses CUDA tensors, for the whole library.
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" and "test_cuda" not in request.node.nodeid:
        from numgrad.backends import cuda
        monkeypatch.setattr(cuda, "is_available", lambda: False)
