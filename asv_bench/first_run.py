"""How long a program's first run takes, when no kernel is compiled yet. Run by hand:

    python asv_bench/first_run.py [--repeat 3]

Each run is a fresh process with empty kernel caches (fresh NUMGRAD_CACHE_DIR and
NUMBA_CACHE_DIR). Programs: examples/train_mlp.py, and the tutorial CNN (tutorial_cnn.py,
written for PyTorch) under ``python -m numgrad.compat`` beside the same file under PyTorch.
numgrad runs with the helper processes that compile ahead (the default) and without them
(NUMGRAD_PRECOMPILE=0), then once more with the caches the first run filled (warm). Prints the
median wall time of each (targets: train_mlp's first run at most 5 s; the CNN's at most 3x
PyTorch's).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
_PROGRAMS = {
    "train_mlp": [os.path.join(_ROOT, "examples", "train_mlp.py")],
    "tutorial_cnn": ["-m", "numgrad.compat", os.path.join(_HERE, "tutorial_cnn.py")],
}


def _wall(args, env):
    start = time.perf_counter()
    subprocess.run([sys.executable] + args, env=env, check=True, stdout=subprocess.DEVNULL, cwd=_ROOT)
    return time.perf_counter() - start


def _times(args, helpers, repeat):
    cold, warm = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as cache:
            env = dict(os.environ, NUMGRAD_CACHE_DIR=os.path.join(cache, "numgrad"),
                       NUMBA_CACHE_DIR=os.path.join(cache, "numba"), NUMGRAD_PRECOMPILE="1" if helpers else "0",
                       NUMGRAD_COMPILE_NOTICE="0")
            cold.append(_wall(args, env))
            time.sleep(1.0)  # helpers notice their program has ended
            warm.append(_wall(args, env))
            time.sleep(1.0)
    return statistics.median(cold), statistics.median(warm)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'program':14s} {'first run, helpers':>19s} {'no helpers':>11s} {'warm':>6s} {'PyTorch':>8s}")
    for name, cmd in _PROGRAMS.items():
        with_helpers, warm = _times(cmd, True, args.repeat)
        without, _ = _times(cmd, False, args.repeat)
        torch_time = ""
        if name == "tutorial_cnn":
            torch_time = f"{statistics.median(_wall(cmd[-1:], dict(os.environ)) for _ in range(args.repeat)):7.1f}s"
        print(f"{name:14s} {with_helpers:18.1f}s {without:10.1f}s {warm:5.1f}s {torch_time:>8s}", flush=True)


if __name__ == "__main__":
    main()
