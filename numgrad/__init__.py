"""numgrad: a PyTorch-style tensor library with autograd, whose arithmetic runs in Numba kernels."""
from __future__ import annotations

__version__ = "0.1.0"

from . import dtypes as _dtypes
from .dtypes import (bool, uint8, int8, int16, int32, int64, float16, float32, float64, long, int, short,
                     half, float, double, dtype, get_default_dtype, set_default_dtype, promote_types,
                     result_type as _result_type_impl)
from .devices import device
from .shapes import Size
from .tensor import Tensor
from .ops import elementwise as _elementwise_decls  # noqa: F401  (declares the ops)
from .ops.functional_elementwise import *  # noqa: F401,F403
from .ops.reductions import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403
from .ops.copying import clone
from .ops import methods as _methods  # noqa: F401  (binds Tensor methods)
from .creation import *  # noqa: F401,F403
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled
from . import cuda

FloatTensor = DoubleTensor = LongTensor = IntTensor = BoolTensor = ByteTensor = None


def result_type(tensor1, tensor2) -> dtype:
    """The dtype PyTorch's type promotion gives an op on ``tensor1`` and ``tensor2``."""
    return _result_type_impl(tensor1, tensor2)


def is_tensor(obj) -> bool:
    """True if ``obj`` is a numgrad tensor."""
    return isinstance(obj, Tensor)


def numel(input) -> int:
    return input.numel()


def is_floating_point(input) -> bool:
    return input.dtype.is_floating_point


del FloatTensor, DoubleTensor, LongTensor, IntTensor, BoolTensor, ByteTensor
