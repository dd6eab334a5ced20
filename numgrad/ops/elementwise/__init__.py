"""The elementwise ops, declared by family: in each family module, every op's scalar math,
derivative rules and (for a plain signature) public function, made by ``binding`` and exported
from ``ops.functional_elementwise``, where the functions written by hand live.

Importing this package declares them all; ``shared`` holds what several families' bodies call.
"""
from __future__ import annotations

from . import activations, arithmetic, comparisons, exponentials, minmax, rounding, special, trigonometric
