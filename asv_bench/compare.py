"""Times the core benchmark cases in one process and prints numgrad's time as a ratio of NumPy's
and PyTorch's (below 1.0 means numgrad is faster).

    python asv_bench/compare.py [--quick]
"""
import argparse
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchmarks import cases  # noqa: E402


def _best(run, budget: float) -> float:
    """Best time of one call, in seconds, from repeats that fill about ``budget`` seconds."""
    run()
    timer = timeit.Timer(run)
    number, elapsed = timer.autorange()
    repeats = max(3, min(50, int(budget / max(elapsed, 1e-9))))
    return min(timer.repeat(repeat=repeats, number=number)) / number


def _times(make, budget):
    times = {}
    for library in cases.LIBRARIES:
        try:
            times[library] = _best(make(library), budget)
        except NotImplementedError:
            times[library] = None
    return times


def _fmt_time(t):
    if t is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def _row(label, times):
    ng, np_, th = times["numgrad"], times["numpy"], times["torch"]
    ratio_np = f"{ng / np_:.2f}" if np_ else "-"
    ratio_th = f"{ng / th:.2f}" if th else "-"
    print(f"{label:<34} {_fmt_time(ng):>10} {_fmt_time(np_):>10} {_fmt_time(th):>10} "
          f"{ratio_np:>8} {ratio_th:>8}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing runs")
    args = parser.parse_args(argv)
    budget = 0.05 if args.quick else 0.3
    print(f"{'case':<34} {'numgrad':>10} {'numpy':>10} {'torch':>10} {'ng/np':>8} {'ng/torch':>8}")
    for op in cases.ELEMENTWISE:
        for n in cases.SIZES:
            for layout in cases.LAYOUTS:
                _row(f"{op} {n:.0e} {layout}",
                     _times(lambda lib: cases.elementwise_case(lib, op, n, layout), budget))
    for op in cases.REDUCTIONS:
        for n in cases.SIZES:
            for dim in cases.REDUCE_DIMS:
                _row(f"{op} {n:.0e} dim={dim}", _times(lambda lib: cases.reduction_case(lib, op, n, dim), budget))
    for op in cases.SMALL_OPS:
        _row(f"{op} 16 elements", _times(lambda lib: cases.small_case(lib, op), budget))


if __name__ == "__main__":
    main()
