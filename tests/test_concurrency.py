"""numgrad used from several Python threads at once: parallel kernels on every threading layer
Numba offers here, and importing the package while another thread imports a submodule.

Each check runs in a fresh interpreter: a threading layer is chosen once per process, and a
failure on the workqueue layer aborts the whole process.
"""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PARALLEL_WORKER = textwrap.dedent("""
    import importlib, os, sys, threading
    layer = os.environ["NUMBA_THREADING_LAYER"]
    try:
        importlib.import_module("numba.np.ufunc." + {"tbb": "tbbpool", "omp": "omppool"}.get(layer, layer))
    except (ImportError, OSError):
        print("UNAVAILABLE")
        sys.exit(0)
    # The parallel forms must run however busy the machine is.
    os.getloadavg = lambda: (0.0, 0.0, 0.0)
    import numba
    import numpy as np
    import numgrad

    numgrad.manual_seed(0)
    x = numgrad.randn(1 << 21)
    m = numgrad.randn(1024, 2048)
    idx = numgrad.randint(0, 1024, (1024, 2048))

    def work():
        y = x.clone()
        y.add_(1.5)
        out = [((x * 2 + 1).relu() * x),   # flat elementwise kernels
               y,                          # in place
               m.t() * 3 - m.t(),          # strided elementwise kernels
               m.amax(1), m.amin(0),       # row and column reductions
               (x > 0).sum(),              # one long integer reduction
               m.sort(1)[0],               # radix sort of many rows
               m.softmax(1),
               m.gather(0, idx)]
        return [t.numpy() for t in out]

    expected = work()
    for n_threads in (2, 4):
        barrier = threading.Barrier(n_threads)
        results, errors = [], []

        def run():
            try:
                barrier.wait()
                for _ in range(3):
                    results.append(work())
            except BaseException as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=run) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(results) == 3 * n_threads
        for got in results:
            for a, b in zip(got, expected):
                assert np.array_equal(a, b), (n_threads, a, b)
    # threading_layer() answers only once a parallel region has run.
    assert numba.threading_layer() == layer, numba.threading_layer()
    print("OK", layer)
""")


@pytest.mark.parametrize("layer", ["tbb", "omp", "workqueue"])
def test_parallel_kernels_from_several_threads(layer):
    env = dict(os.environ, NUMBA_THREADING_LAYER=layer, NUMBA_NUM_THREADS="2")
    r = subprocess.run([sys.executable, "-c", _PARALLEL_WORKER], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    if r.stdout.strip() == "UNAVAILABLE":
        pytest.skip(f"Numba's {layer} threading layer is not installed")
    assert r.returncode == 0, f"exit status {r.returncode}\n{r.stdout}\n{r.stderr[-3000:]}"
    assert f"OK {layer}" in r.stdout


_IMPORT_WORKER = textwrap.dedent("""
    import importlib, sys, threading, time
    delay, form = float(sys.argv[1]), sys.argv[2]
    errors = []

    def import_package():
        try:
            import numgrad
            x = numgrad.tensor([-1.0, 0.25, 2.0])
            # Names from numgrad.nn, whichever thread finished importing it.
            assert numgrad.selu(x).shape == (3,) and x.hardshrink().tolist() == [-1.0, 0.0, 2.0]
            assert numgrad.celu is numgrad.nn.functional.celu and numgrad.nn.Linear is not None
        except BaseException as e:
            errors.append(f"numgrad: {e!r}")

    def import_functional():
        time.sleep(delay)
        try:
            if form == "statement":
                import numgrad.nn.functional as F
            else:
                F = importlib.import_module("numgrad.nn.functional")
            assert F.relu is not None
        except BaseException as e:
            errors.append(f"numgrad.nn.functional: {e!r}")

    threads = [threading.Thread(target=import_package), threading.Thread(target=import_functional)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(errors or "OK")
""")


@pytest.mark.parametrize("delay, form", [(0.0, "import_module"), (0.05, "statement"), (0.3, "import_module")])
def test_importing_the_package_while_another_thread_imports_nn_functional(delay, form):
    r = subprocess.run([sys.executable, "-c", _IMPORT_WORKER, str(delay), form], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "OK", r.stdout
