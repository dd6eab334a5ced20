"""numgrad: a PyTorch-style tensor library with autograd, whose arithmetic runs in Numba kernels."""
from __future__ import annotations

import importlib as _importlib
import sys as _sys

__version__ = "0.1.0"

from . import dtypes as _dtypes
from .dtypes import (bool, uint8, int8, int16, int32, int64, float16, float32, float64, long, int, short,
                     half, float, double, dtype, get_default_dtype, set_default_dtype, promote_types,
                     finfo, iinfo, result_type as _result_type_impl)
from .devices import device
from .shapes import Size
from .tensor import Tensor
from .ops import elementwise as _elementwise_decls  # noqa: F401  (declares the ops)
from .ops.functional_elementwise import *  # noqa: F401,F403
from .ops.reductions import *  # noqa: F401,F403
from .ops.selection import max, min, argmax, argmin, median, mode
from .ops.scans import cumsum, cumprod, cummax, cummin
from .ops.statistics import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403
from .ops.slice_views import narrow, select, diagonal, as_strided, as_strided_
from .ops.splitting import *  # noqa: F401,F403
from .ops.copying import clone
from .ops.linalg import *  # noqa: F401,F403
from .ops.einsum import einsum
from .ops.matrix_functions import *  # noqa: F401,F403
from .ops.advanced import *  # noqa: F401,F403
from .ops.gather import *  # noqa: F401,F403
from .ops.movement import *  # noqa: F401,F403
from .ops.grids import meshgrid, cartesian_prod, rot90
from .ops.distances import cdist
from .ops.composites import *  # noqa: F401,F403
from .ops.index_sets import *  # noqa: F401,F403
from .ops.quantiles import *  # noqa: F401,F403
from .ops.covariance import *  # noqa: F401,F403
from .ops.sorting import *  # noqa: F401,F403
from .ops.comparisons import *  # noqa: F401,F403
from .ops import methods as _methods  # noqa: F401  (binds Tensor methods)
from .ops.methods import *  # noqa: F401,F403  (torch.sin_ and the other unary in-place functions)
from .creation import *  # noqa: F401,F403
from .printing import set_printoptions, get_printoptions, printoptions
from . import random
from .random import (Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
                     default_generator, rand, randn, randint, randperm, normal, bernoulli, rand_like,
                     randn_like, randint_like, multinomial, poisson)
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled
from . import cuda
from . import utils
from .utils.dlpack import from_dlpack
from . import linalg
from . import special
from . import func
from .ops.nn import softmax, log_softmax
from .serialization import save, load
from . import optim

from .layouts import layout, strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc
from .storage import TypedStorage, UntypedStorage
from .legacy import (BoolTensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, HalfTensor,
                     FloatTensor, DoubleTensor, BoolStorage, ByteStorage, CharStorage, ShortStorage, IntStorage,
                     LongStorage, HalfStorage, FloatStorage, DoubleStorage, set_default_tensor_type)


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


# numgrad.nn comes last. Its modules import this package, so a thread that imports
# numgrad.nn.functional while this package is initialising holds nn's import locks and waits for
# us: importing nn here would then deadlock, and Python breaks that by handing one thread a
# partially initialised module. In that case nn is left to that thread, which finishes it once
# this package is initialised, and the names below resolve on first use.
_NN_ACTIVATIONS = ("selu", "selu_", "celu", "celu_", "hardshrink", "threshold", "threshold_", "prelu",
                   "rrelu", "rrelu_")


def _nn_importing_elsewhere() -> bool:
    nn_module = _sys.modules.get(__name__ + ".nn")
    # This thread creates nn only after its parent package has finished initialising.
    return nn_module is not None and getattr(getattr(nn_module, "__spec__", None), "_initializing", False)


def __getattr__(name: str):
    if name == "nn" or name in _NN_ACTIVATIONS:
        # import_module, not ``from . import nn``: that would look nn up here first, recursing.
        nn_module = _importlib.import_module(__name__ + ".nn")  # waits for the thread importing it
        value = nn_module if name == "nn" else getattr(nn_module.functional.activation, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if _nn_importing_elsewhere():
    Tensor.hardshrink = lambda self, lambd=0.5: __getattr__("hardshrink")(self, lambd)
    Tensor.prelu = lambda self, weight: __getattr__("prelu")(self, weight)
else:
    from . import nn
    from .nn.functional.activation import (selu, selu_, celu, celu_, hardshrink, threshold, threshold_, prelu,
                                          rrelu, rrelu_)
    # The activations PyTorch also binds as Tensor methods.
    Tensor.hardshrink, Tensor.prelu = hardshrink, prelu
