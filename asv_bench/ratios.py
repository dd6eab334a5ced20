"""Runs asv benchmark classes in one process and prints each case's time as a ratio of the
other libraries' times for the same parameters (NumPy, PyTorch when installed).

    python asv_bench/ratios.py [module ...]      # e.g. linalg indexing autograd training

One process and interleaved repeats keep the ratios meaningful on a shared, noisy machine,
where absolute times are not.
"""
import importlib
import inspect
import itertools
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_MODULES = ["core", "linalg", "indexing", "autograd", "functional", "training"]


def _best(fn, repeats=7) -> float:
    fn()
    number, _ = timeit.Timer(fn).autorange()
    return min(timeit.Timer(fn).repeat(repeat=repeats, number=number)) / number


def _cases(cls):
    params = getattr(cls, "params", None)
    names = getattr(cls, "param_names", None)
    if params is None:
        return [()], []
    if not isinstance(params, tuple) or (params and not isinstance(params[0], list)):
        params = (params,)
    return list(itertools.product(*params)), list(names or [f"p{i}" for i in range(len(params))])


def run(module_name: str):
    mod = importlib.import_module(f"benchmarks.{module_name}")
    for cls_name, cls in inspect.getmembers(mod, inspect.isclass):
        if cls.__module__ != mod.__name__:
            continue
        methods = [m for m in dir(cls) if m.startswith("time_")]
        combos, names = _cases(cls)
        if not methods or not names or "library" not in names[0]:
            continue
        rows = {}
        for combo in combos:
            bench = cls()
            try:
                if hasattr(bench, "setup"):
                    bench.setup(*combo)
            except NotImplementedError:
                continue
            for m in methods:
                rows[(m,) + tuple(combo)] = _best(lambda: getattr(bench, m)(*combo))
        for key, t in sorted(rows.items(), key=lambda kv: str(kv[0][2:])):
            m, library, rest = key[0], key[1], key[2:]
            if library != "numgrad":
                continue
            ratios = [f"/{other}={t / rows[(m, other) + rest]:.2f}" for other in ("numpy", "torch", "numpy-hand")
                      if (m, other) + rest in rows]
            print(f"{module_name}.{cls_name}.{m}{list(rest)}: {t * 1e6:.1f} us " + " ".join(ratios))


if __name__ == "__main__":
    for name in sys.argv[1:] or _MODULES:
        run(name)
