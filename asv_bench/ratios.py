"""Runs asv benchmark classes in one process and prints each case's time as a ratio of the
other libraries' times for the same parameters (NumPy, PyTorch when installed).

    python asv_bench/ratios.py [module ...]      # e.g. linalg indexing autograd training
    python asv_bench/ratios.py core.Reduction    # one class of a module

One process and interleaved repeats (each library's runs alternated with the others') keep the
ratios meaningful on a shared, noisy machine, where absolute times are not.
"""
import importlib
import inspect
import itertools
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_SETTLE_S = 0.3
_MODULES = ["core", "linalg", "indexing", "autograd", "functional", "training", "recurrent", "attention", "conv",
            "embedding", "sampling", "transcendental", "compiled"]


def _interleaved(fns: dict, repeats=9) -> dict:
    """Best time per call of each function, their repeats alternated so that a slow spell of the
    machine hits every library alike."""
    numbers = {}
    for key, fn in fns.items():
        fn()
        numbers[key], _ = timeit.Timer(fn).autorange()
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for key, fn in fns.items():
            # Thread pools keep spinning for a while after their last task; a pause lets the
            # previous library's workers sleep instead of competing with this one's.
            time.sleep(_SETTLE_S)
            t = timeit.Timer(fn).timeit(number=numbers[key]) / numbers[key]
            best[key] = min(best[key], t)
    return best


def _cases(cls):
    params = getattr(cls, "params", None)
    names = getattr(cls, "param_names", None)
    if params is None:
        return [()], []
    if not isinstance(params, tuple) or (params and not isinstance(params[0], list)):
        params = (params,)
    return list(itertools.product(*params)), list(names or [f"p{i}" for i in range(len(params))])


def _bound(cls, method, combo):
    """``time_*`` of a set-up instance for one parameter combination, or None if it cannot run."""
    bench = cls()
    try:
        if hasattr(bench, "setup"):
            bench.setup(*combo)
    except NotImplementedError:
        return None
    fn = getattr(bench, method)
    return lambda: fn(*combo)


def run(name: str):
    module_name, _, only = name.partition(".")
    mod = importlib.import_module(f"benchmarks.{module_name}")
    for cls_name, cls in inspect.getmembers(mod, inspect.isclass):
        if cls.__module__ != mod.__name__ or only and cls_name != only:
            continue
        methods = [m for m in dir(cls) if m.startswith("time_")]
        combos, names = _cases(cls)
        if not methods or not names or "library" not in names[0]:
            continue
        groups = {}  # the other parameters -> {library: combo}
        for combo in combos:
            groups.setdefault(combo[1:], {})[combo[0]] = combo
        for rest, by_library in sorted(groups.items(), key=lambda kv: str(kv[0])):
            if "numgrad" not in by_library:
                continue
            for m in methods:
                fns = {lib: _bound(cls, m, combo) for lib, combo in by_library.items()}
                times = _interleaved({lib: fn for lib, fn in fns.items() if fn is not None})
                t = times.pop("numgrad")
                ratios = [f"/{other}={t / times[other]:.2f}" for other in times]
                print(f"{module_name}.{cls_name}.{m}{list(rest)}: {t * 1e6:.1f} us " + " ".join(ratios))


if __name__ == "__main__":
    for name in sys.argv[1:] or _MODULES:
        run(name)
