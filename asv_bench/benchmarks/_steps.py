"""What the benchmark modules setting numgrad beside PyTorch share: the library named by a
case's parameter, and cases that time one step built for their parameters."""
import numgrad

try:
    import torch
except ImportError:  # PyTorch is an optional comparison
    torch = None

LIBRARIES = ["numgrad", "torch"]


def library_module(name: str):
    """The module called ``name``, "numgrad" or "torch"; NotImplementedError (asv's way of
    skipping a case) when PyTorch is not installed."""
    if name == "torch" and torch is None:
        raise NotImplementedError("torch is not installed")
    return numgrad if name == "numgrad" else torch


class StepCase:
    """A case whose ``time_*`` methods run ``self.step``, the function ``make_step(*params)``
    builds; setup runs it once so that kernels compile outside the timed runs."""

    def setup(self, *params):
        self.step = self.make_step(*params)
        self.step()
