"""The op table's records: ``OpInfo``, one row (how to call an op, what it should compute, what
it supports), and ``SampleInput``, the arguments of one call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .comparison import default_tolerance
from .dtypes import ALL_DTYPES, _dtype_name


@dataclass
class SampleInput:
    """Arguments for one call: NumPy arrays (become tensors) or Python scalars, and kwargs.

    ``broadcasts`` marks samples whose operands differ in shape or dtype category; the generic
    tests run those for fewer dtypes to bound compilation time.
    """
    args: tuple
    kwargs: dict = field(default_factory=dict)
    broadcasts: bool = False

    def __repr__(self):
        def fmt(a):
            return f"array{a.shape}:{a.dtype}" if isinstance(a, np.ndarray) else repr(a)
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"SampleInput({', '.join(map(fmt, self.args))}{kw})"


_SAME = object()


@dataclass
class OpInfo:
    """One row of the op table: how to call an op, what it should compute, what it supports.

    ``ref`` is the NumPy reference, called with the sample's arguments (arrays are widened to
    float64 when the op's result is floating). ``sample_inputs(dtype, rng)`` yields
    :class:`SampleInput` s whose first argument is the tensor the method and in-place forms
    are called on. ``domain`` bounds the generated values (e.g. ``(0, None)`` for log).
    """
    name: str
    op: Callable
    ref: Callable
    sample_inputs: Callable
    dtypes: tuple = ALL_DTYPES
    variant: str = ""
    method: Optional[str] = _SAME            # Tensor method name; None if there is none
    inplace: Optional[str] = _SAME           # in-place method name; None if there is none
    supports_out: bool = True
    supports_grad: bool = True
    supports_gradgrad: bool = True
    supports_forward_ad: bool = True
    grad_dtypes: tuple = ("float64",)
    domain: tuple = (None, None)
    tolerances: dict = field(default_factory=dict)   # dtype name -> (rtol, atol)
    torch_name: Optional[str] = _SAME         # function in torch to compare dtypes with
    kind: str = "elementwise"
    invertible_inputs: bool = False  # repeating a matrix's rows would make it singular
    xfails: dict = field(default_factory=dict)   # "values", "values-int8", "out", ... -> reason

    def __post_init__(self):
        if self.method is _SAME:
            self.method = self.name
        if self.inplace is _SAME:
            self.inplace = self.name + "_"
        if self.torch_name is _SAME:
            self.torch_name = self.name

    @property
    def id(self) -> str:
        return f"{self.name}.{self.variant}" if self.variant else self.name

    def samples(self, dtype: str, seed: int = 0) -> list:
        """The sample inputs for ``dtype``, reproducibly generated."""
        return list(self.sample_inputs(dtype, np.random.default_rng(seed)))

    def tolerance(self, dtype) -> tuple:
        name = _dtype_name(dtype)
        return self.tolerances.get(name, default_tolerance(name))

    def __repr__(self):
        return f"OpInfo({self.id})"
