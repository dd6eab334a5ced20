"""The op table (one OpInfo row per public op) that drives the generic tests and benchmarks,
and numerical checks users can run on their own code (``assert_close``, ``make_tensor``).
"""
from .comparison import assert_close, default_tolerance
from .creation import _make_array, make_tensor, noncontiguous_view, transposed_view
from .dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, INTEGRAL_DTYPES
from .opinfo import OpInfo, SampleInput
from .references import _np_scatter_reduce
from .samplers import _scalar_for, sample_binary, sample_unary
from .table import OP_DB, op_db_by_id

# The test suite also takes the layouts (noncontiguous_view, transposed_view), the generic sample
# makers and the private helpers above from here.
__all__ = ["assert_close", "make_tensor", "OpInfo", "SampleInput", "OP_DB", "op_db_by_id",
           "ALL_DTYPES", "FLOAT_DTYPES", "INT_DTYPES", "INTEGRAL_DTYPES", "default_tolerance"]
