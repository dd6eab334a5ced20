"""``numgrad.compile`` and the compiler's controls (``numgrad.compiler``).

A compiled function is traced on its first call for a signature and replayed from kernels
generated for its whole graph: maximal elementwise chains become one Numba loop, forward and
backward each, computing exactly what eager numgrad computes.
"""
from __future__ import annotations

from .compiled import CompiledFunction
from .explain import ExplainOutput, explain
from .graph import GraphBreak
from .front import compile, is_compiling, reset

__all__ = ["compile", "explain", "reset", "is_compiling", "GraphBreak", "ExplainOutput", "CompiledFunction"]
