"""The kernel layer: strided elementwise loops over any layout (both the serial and the parallel
kernels), reduction and scan kernels, IEEE numerics, integer division by zero, and compilation
(nothing at import, one compile per op and dtype, generated modules loaded from disk)."""
import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

import numgrad as ng
from numgrad.backends.cpu import elementwise as ew
from numgrad.backends.cpu import reduce as red

RNG = np.random.default_rng(1)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _layouts():
    a = RNG.standard_normal((6, 8)).astype(np.float32)
    b = RNG.standard_normal((8, 6)).astype(np.float32)
    ta, tb = ng.from_numpy(a), ng.from_numpy(b)
    yield "contig", ta, tb.t().contiguous(), a, np.ascontiguousarray(b.T)
    yield "both transposed", ta.t(), tb, a.T, b
    yield "mixed", ta, tb.t(), a, b.T
    yield "stepped", ta[::2, 1::3], tb.t()[::2, ::3], a[::2, 1::3], b.T[::2, ::3]
    yield "broadcast row", ta, tb[0, :].expand(6, 6)[:, :1].expand(6, 8), a, np.broadcast_to(b[0, :1], (6, 8))
    yield "scalar", ta, 2.5, a, np.float32(2.5)


@pytest.fixture(params=["serial", "parallel"])
def parallel(request, monkeypatch):
    # Send small inputs down the parallel kernels too, whatever the machine's load.
    if request.param == "parallel":
        monkeypatch.setattr(ew, "use_parallel", lambda n, threshold: True)
        monkeypatch.setattr(red, "use_parallel", lambda n, threshold: True)
    return request.param


def test_elementwise_layouts(parallel):
    for name, x, y, a, b in _layouts():
        np.testing.assert_allclose(ng.add(x, y).numpy(), a + b, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose((x * y).numpy(), a * b, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(ng.exp(x).numpy(), np.exp(a), rtol=1e-6, err_msg=name)
    # A 4-d operand with permuted dims walks the n-d kernel.
    c = RNG.standard_normal((2, 3, 4, 5))
    t = ng.from_numpy(c).permute(2, 0, 3, 1)
    np.testing.assert_allclose((t + t[:1]).numpy(), c.transpose(2, 0, 3, 1) + c.transpose(2, 0, 3, 1)[:1])
    out = ng.zeros(5, 4).t()
    ng.mul(ng.ones(4, 5), 3, out=out)
    assert out.tolist() == [[3.0] * 5] * 4


def test_operand_mixes_without_a_vectorized_branch(parallel):
    # Every mix of unit-stride and broadcast-scalar operands gives the same values, whether it has
    # a branch of its own (ew.fast_kinds) or takes the strided loop.
    assert ("s", "s") not in ew.fast_kinds(2) and ("s", "u", "s") not in ew.fast_kinds(3)
    n = ew.PARALLEL_THRESHOLD + 3 if parallel == "parallel" else 7
    v = np.linspace(-3.0, 3.0, n, dtype=np.float32)
    forms = {"u": (ng.from_numpy(v), v), "s": (ng.tensor(np.float32(1.5)).expand(n), np.full(n, 1.5, np.float32))}
    for kinds in itertools.product("us", repeat=4):
        (a, na), (b, nb), (c, nc), (d, nd) = (forms[k] for k in kinds)
        name = "".join(kinds)
        np.testing.assert_array_equal((a + b).numpy(), na + nb, err_msg=name)
        np.testing.assert_allclose(ng.clamp(a, min=b, max=c).numpy(), np.minimum(np.maximum(na, nb), nc), err_msg=name)
        np.testing.assert_allclose(ng.addcmul(a, b, c, value=0.5).numpy(), na + np.float32(0.5) * nb * nc,
                                   rtol=1e-6, atol=1e-6, err_msg=name)
        out = a.clone() if kinds[0] == "u" else ng.empty(n)
        out.copy_(a).addcdiv_(b, d + 4, value=2.0)
        np.testing.assert_allclose(out.numpy(), na + 2 * nb / (nd + 4), rtol=1e-6, atol=1e-6, err_msg=name)


def test_elementwise_mixed_dtypes_and_float16():
    i = ng.tensor([1, 2, 3], dtype=ng.int32)
    f = ng.tensor([0.5, 0.25, 2.0], dtype=ng.float64)
    assert (i + f).dtype == ng.float64 and (i + f).tolist() == [1.5, 2.25, 5.0]
    h = ng.tensor([1.0, 2.0, 3.0], dtype=ng.float16)
    r = (h * 2 + 1)[::2]
    assert r.dtype == ng.float16 and r.tolist() == [3.0, 7.0]
    assert ng.zeros(0, 3).add(1).shape == (0, 3)


def test_reductions_parallel_and_layouts(parallel):
    a = RNG.standard_normal((16, 24, 3))
    t = ng.from_numpy(a)
    for x, v in ((t, a), (t.permute(2, 0, 1), a.transpose(2, 0, 1)), (t[::3, ::2], a[::3, ::2])):
        for dim in (None, 0, 1, 2, (0, 1), (1, 2)):
            np.testing.assert_allclose(x.sum(dim).numpy(), v.sum(axis=dim), rtol=1e-12, atol=1e-12)
            np.testing.assert_array_equal(x.amax(() if dim is None else dim).numpy(), v.max(axis=dim))
    # Enough rows over an outer dim for the parallel form's row split.
    b = RNG.standard_normal((80, 24))
    b[40, 5] = np.nan
    tb = ng.from_numpy(b)
    np.testing.assert_array_equal(tb.amax(0).numpy(), b.max(axis=0))
    np.testing.assert_array_equal(tb.amin(0).numpy(), b.min(axis=0))
    np.testing.assert_allclose(ng.from_numpy(b * 0.01 + 1).prod(0).numpy(), (b * 0.01 + 1).prod(axis=0), rtol=1e-12)
    k = (np.nan_to_num(b) * 100).astype(np.int64)
    np.testing.assert_array_equal(ng.from_numpy(k).sum(0).numpy(), k.sum(axis=0))


def test_long_sum_is_accurate():
    # Blocked accumulation keeps float32 error near NumPy's pairwise sum.
    a = (RNG.random(1 << 18) + 1.0).astype(np.float32)
    exact = a.astype(np.float64).sum()
    assert abs(ng.from_numpy(a).sum().item() - exact) / exact < 1e-6
    # Past a million elements the groups of blocks are themselves grouped.
    b = (np.random.default_rng(0).random((1 << 21) + 5) + 1.0).astype(np.float32)
    exact = b.astype(np.float64).sum()
    assert abs(ng.from_numpy(b).sum().item() - exact) / exact < 1e-7


def test_ieee_float_division_and_nan():
    x = ng.tensor([1.0, -1.0, 0.0])
    r = x / 0
    assert r[0].item() == float("inf") and r[1].item() == float("-inf") and r[2].item() != r[2].item()
    assert ng.tensor([1.0, float("nan")]).amax().item() != ng.tensor([1.0, float("nan")]).amax().item()
    assert (ng.tensor([1.0]) % 0).isnan().all().item()


@pytest.mark.parametrize("call", [
    lambda: ng.tensor([1, 2]) // 0,
    lambda: ng.tensor([1, 2]) % ng.tensor([1, 0]),
    lambda: ng.div(ng.tensor([4]), ng.tensor([0]), rounding_mode="trunc"),
    lambda: ng.floor_divide(ng.tensor([4], dtype=ng.int32), 0),
])
def test_integer_division_by_zero_raises(call):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        call()


def _run(code, env=None):
    e = dict(os.environ, PYTHONPATH=ROOT)
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, check=True,
                          cwd=ROOT).stdout


def test_import_compiles_nothing():
    out = _run(
        "import sys, numba.core.registry as r\n"
        "import numgrad\n"
        "from numba.core.dispatcher import Dispatcher\n"
        "import gc\n"
        "compiled = [d.py_func.__qualname__ for d in gc.get_objects() if isinstance(d, Dispatcher) and d.signatures]\n"
        "kernels = [m for m in sys.modules if m.startswith('_numgrad_kernel_')]\n"
        "print(len(compiled), len(kernels))\n")
    assert out.split() == ["0", "0"]


def test_one_compile_per_dtype_not_per_shape():
    a = ng.ones(3)
    ng.add(a, a)
    mod = ew.kernels(ng.ops.records.OPS["add"], np.dtype(np.float32), 2)
    before = len(mod.flat.signatures) + len(mod.nd.signatures)
    for shape in ((5,), (2, 3), (2, 3, 4), (1, 2, 3, 4, 5)):
        x = ng.ones(*shape)
        ng.add(x, x)
        ng.add(x.transpose(0, -1), x.transpose(0, -1).contiguous())
    assert len(mod.flat.signatures) + len(mod.nd.signatures) <= before + 1


def test_second_process_loads_kernels_from_disk(tmp_path):
    code = ("import numgrad as ng\n"
            "from numgrad.backends.cpu import elementwise as ew\n"
            "x = ng.ones(4, 3)\n"
            "(x + x).sum()\n"
            "m = ew.kernels(ng.ops.records.OPS['add'], x.dtype.numpy, 2)\n"
            "print(sum(m.flat.stats.cache_hits.values()), sum(m.flat.stats.cache_misses.values()))\n")
    env = {"NUMGRAD_CACHE_DIR": str(tmp_path)}
    first = _run(code, env).split()
    second = _run(code, env).split()
    assert first == ["0", "1"] and second == ["1", "0"]


def test_no_parallel_kernels_while_blas_threads_spin(monkeypatch):
    # Two thread pools on the same cores stall each other: after a threaded gemm, the
    # parallel kernels wait until OpenBLAS's workers have gone to sleep.
    from numgrad.backends.cpu import blas, parallel
    if not blas.available():
        pytest.skip("no BLAS library: products run on Numba's own loops")
    monkeypatch.setattr(parallel, "_state", [parallel.time.monotonic(), True, None, 0.0])
    monkeypatch.setattr(parallel, "_last_threaded_blas", [-1.0])
    assert parallel.use_parallel(1 << 22, 1 << 19)
    parallel.note_blas(64)  # small enough to run on the calling thread
    assert parallel.use_parallel(1 << 22, 1 << 19)
    ng.ones(256, 256) @ ng.ones(256, 256)
    assert not parallel.use_parallel(1 << 22, 1 << 19)
    assert not parallel.use_parallel(10, 1 << 19)


def test_threads_only_while_other_processes_leave_a_core_per_thread(monkeypatch):
    # Two cores, two threads: a neighbour keeping one core busy (the machine busy for 1.5 s of
    # the last 0.5 s, 0.5 s of it this process's own) stops the parallel kernels; once it is gone
    # they come back.
    from numgrad.backends.cpu import parallel
    monkeypatch.setattr(parallel, "CORES", 2)
    monkeypatch.setattr(parallel.numba, "get_num_threads", lambda: 2)
    samples = iter([(10.0, 1.0), (11.0, 1.5), (11.5, 2.0)])
    current = [None]

    def machine():
        current[0] = next(samples)
        return current[0][0]
    monkeypatch.setattr(parallel, "_machine_busy_seconds", machine)
    monkeypatch.setattr(parallel.time, "process_time", lambda: current[0][1])
    monkeypatch.setattr(parallel, "_state", [-1.0, True, None, 0.0])
    state = parallel._state  # a fresh list, put back after the test
    parallel._sample(0.0)
    state[0] = 0.0
    assert not parallel._sample(0.5)
    state[0] = 0.5
    assert parallel._sample(1.0)


def test_blas_runs_one_thread_while_the_machine_is_busy(monkeypatch):
    from numgrad.backends.cpu import blas, parallel
    if not blas.available() or parallel._blas_threads["set"] is None:
        pytest.skip("no OpenBLAS: the BLAS library keeps its own threads")
    real, calls = parallel._blas_threads["set"], []
    monkeypatch.setitem(parallel._blas_threads, "set", lambda n: (calls.append(n), real(n)))
    monkeypatch.setitem(parallel._blas_threads, "threaded", True)
    now = parallel.time.monotonic()
    monkeypatch.setattr(parallel, "_state", [now + 60, False, None, 0.0])
    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    np.testing.assert_allclose((ng.from_numpy(a) @ ng.from_numpy(a)).numpy(), a @ a, rtol=1e-4, atol=1e-4)
    monkeypatch.setattr(parallel, "_state", [now + 60, True, None, 0.0])
    np.testing.assert_allclose((ng.from_numpy(a) @ ng.from_numpy(a)).numpy(), a @ a, rtol=1e-4, atol=1e-4)
    assert calls == [1, parallel._blas_threads["default"]]
