"""The profiler example of the autograd tutorial: time 1000 rounds of z = (z / x) * y and print
the per-op table sorted by self CPU time; optionally write a Chrome trace.

Run: python examples/profile_ops.py [--iters 1000] [--trace trace.json]
"""
import argparse

import numgrad as ng
from numgrad.autograd import profiler


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--trace", default=None, help="also write a Chrome trace JSON here")
    args = parser.parse_args(argv)

    ng.manual_seed(0)
    x = ng.randn(2, 3, requires_grad=True)
    y = ng.rand(2, 3, requires_grad=True)
    z = ng.ones(2, 3, requires_grad=True)
    (z / x * y).sum().backward()  # compile the kernels before timing
    with profiler.profile() as prf:
        for _ in range(args.iters):
            z = (z / x) * y
        with profiler.record_function("backward"):
            z.sum().backward()
    print(prf.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
    if args.trace:
        prf.export_chrome_trace(args.trace)
        print(f"Chrome trace written to {args.trace}")
    return prf


if __name__ == "__main__":
    main()
