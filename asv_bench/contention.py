"""The nn MLP training step (64x784-256-10, Adam, CrossEntropyLoss) with and without a busy
neighbour process, with default threads and with one thread, in numgrad beside PyTorch. Run by
hand:

    python asv_bench/contention.py [--steps 1000]

Each configuration runs in a fresh process (thread counts are read at import), warms up for a
second, then times its steps. The neighbour is a second process that keeps one core busy; it is
started after the warm-up (a second before the timed steps), stopped after them, and ends on its
own after a minute in any case. Prints the median and 90th
percentile step time of each configuration, then, per library, default threads over one thread
under load (numgrad's targets: at most 1.3x in median and 2x at the 90th percentile).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

import numpy as np

_THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_NEIGHBOUR = "import time\nend = time.time() + 60\nwhile time.time() < end:\n    pass\n"


def _step(library):
    if library == "torch":
        import torch as lib
    else:
        import numgrad as lib
    lib.manual_seed(0)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 784)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))
    loss_fn = nn.CrossEntropyLoss()
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
    return step


def child(library, busy, steps):
    """Times ``steps`` steps in this process; prints the times (seconds) as JSON."""
    if library == "torch" and os.environ.get("OMP_NUM_THREADS") == "1":
        import torch
        torch.set_num_threads(1)
    step = _step(library)
    warm = time.perf_counter() + 1.0
    while time.perf_counter() < warm:
        step()
    neighbour = subprocess.Popen([sys.executable, "-c", _NEIGHBOUR]) if busy else None
    try:
        if neighbour is not None:
            time.sleep(1.0)  # let the scheduler and the load average see it
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
    print(json.dumps(times))


def _run(library, threads, busy, steps):
    env = dict(os.environ)
    for name in _THREAD_VARIABLES:
        env.pop(name, None)
        if threads == "1":
            env[name] = "1"
    out = subprocess.run([sys.executable, __file__, "--child", library, str(int(busy)), str(steps)],
                         env=env, capture_output=True, text=True, check=True).stdout
    times = np.array(json.loads(out.strip().splitlines()[-1])) * 1e3
    return float(np.median(times)), float(np.percentile(times, 90))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1] == "1", int(args.child[2]))
        return
    libraries = ["numgrad"] + (["torch"] if importlib.util.find_spec("torch") else [])
    print(f"{'library':<8} {'threads':<8} {'neighbour':<10} {'median ms':>10} {'p90 ms':>8}")
    results = {}
    for library in libraries:
        for busy in (False, True):
            for threads in ("default", "1"):
                median, p90 = results[library, threads, busy] = _run(library, threads, busy, args.steps)
                print(f"{library:<8} {threads:<8} {'busy' if busy else 'none':<10} {median:>10.2f} {p90:>8.2f}")
    for library in libraries:
        (dm, dp), (sm, sp) = results[library, "default", True], results[library, "1", True]
        print(f"{library}: under load, default / one thread: median {dm / sm:.2f}, p90 {dp / sp:.2f}")


if __name__ == "__main__":
    main()
