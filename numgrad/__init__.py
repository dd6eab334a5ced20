"""numgrad: a PyTorch-style tensor library with autograd, whose arithmetic runs in Numba kernels."""
from __future__ import annotations

import builtins as _builtins
import importlib as _importlib
import sys as _sys
import warnings as _warnings

import numba as _numba

from .version import __version__

from . import dtypes as _dtypes
from .dtypes import (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, long, int, short,
                     half, float, double, dtype, get_default_dtype, set_default_dtype, promote_types,
                     finfo, iinfo, result_type as _result_type_impl)
from .devices import device, set_default_device, get_default_device
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
from .ops.scatter_reduce import *  # noqa: F401,F403
from .ops.movement import *  # noqa: F401,F403
from .ops.grids import meshgrid, cartesian_prod, rot90
from .ops.distances import cdist
from .ops.composites import *  # noqa: F401,F403
from .ops.index_sets import *  # noqa: F401,F403
from .ops.quantiles import *  # noqa: F401,F403
from .ops.covariance import *  # noqa: F401,F403
from .ops.sorting import *  # noqa: F401,F403
from .ops.comparisons import *  # noqa: F401,F403
from .ops.signal_windows import *  # noqa: F401,F403
from .ops.scatter_views import *  # noqa: F401,F403
from .ops.number_theory import *  # noqa: F401,F403
from .ops.tensor_queries import *  # noqa: F401,F403
from .ops.conjugation import *  # noqa: F401,F403
from .ops.aliases import *  # noqa: F401,F403
from .ops.unravel import *  # noqa: F401,F403
from .ops.matrix_extras import *  # noqa: F401,F403
from .ops.histograms import *  # noqa: F401,F403
from .ops.differences import *  # noqa: F401,F403
from .ops.buffers import *  # noqa: F401,F403
from .ops.constants import *  # noqa: F401,F403
from . import tensor_methods as _tensor_methods  # noqa: F401  (binds Tensor methods)
from .tensor_methods import *  # noqa: F401,F403  (torch.sin_ and the other unary in-place functions)
from .ops.numpy_names import accepts_numpy_names as _accepts_numpy_names
from .creation import *  # noqa: F401,F403
from .printing import set_printoptions, get_printoptions, printoptions
from . import random
from .random import (Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
                     default_generator, rand, randn, randint, randperm, normal, bernoulli, rand_like,
                     randn_like, randint_like, multinomial, poisson)
from . import autograd
from . import profiler
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled
from .autograd.anomaly_mode import is_anomaly_enabled, is_anomaly_check_nan_enabled, set_anomaly_enabled
from . import accelerator
from . import amp
from . import cuda
from .amp.autocast_mode import (autocast, clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype,
                                get_autocast_gpu_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled,
                                is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype,
                                set_autocast_enabled)
from .amp import cuda_amp as _cuda_amp
from .backends import cudnn as _cudnn, mps as _mps  # noqa: F401  (numgrad.backends.cudnn and .mps)
from .backends import compile_notice as _compile_notice
from .backends import shared_compile as _shared_compile
from . import utils
from .utils.dlpack import from_dlpack
from . import linalg
from . import special
from . import func
from . import batched as _batched
from .batched import vmap
from . import version
from .ops.nn import softmax, log_softmax
from .serialization import save, load
from . import optim
from . import distributed

from .layouts import layout, strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc
from .storage import UntypedStorage
from .typed_storage import TypedStorage
from .legacy import (BoolTensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, HalfTensor,
                     BFloat16Tensor, FloatTensor, DoubleTensor, BoolStorage, ByteStorage, CharStorage, ShortStorage,
                     IntStorage, LongStorage, HalfStorage, BFloat16Storage, FloatStorage, DoubleStorage,
                     set_default_tensor_type)

# ``axis=`` and ``keepdims=`` wherever a function takes ``dim=`` and ``keepdim=``, as PyTorch's.
globals().update({_name: _accepts_numpy_names(_value) for _name, _value in list(globals().items())
                  if not _name.startswith("_") and callable(_value)})

# ``numgrad.cuda.amp``: a module of the library layer, hung under ``numgrad.cuda`` (of the ops
# layer) here so that ``import numgrad.cuda.amp`` finds it.
cuda.amp = _sys.modules[__name__ + ".cuda.amp"] = _cuda_amp
_compile_notice.install()
_shared_compile.install()


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


# Process-wide settings PyTorch programs make before training. numgrad's kernels give the same
# result on every run and its matmuls always compute in full float32, so these record the choice
# and report it back, as PyTorch's getters do.
_settings = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}
_DEBUG_MODES = ("default", "warn", "error")


def use_deterministic_algorithms(mode: _builtins.bool, *, warn_only: _builtins.bool = False) -> None:
    """Sets whether ops must use deterministic algorithms (numgrad's always are)."""
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, _builtins.bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}' must be bool, "
                            f"not {type(value).__name__}")
    _settings["deterministic"], _settings["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> _builtins.bool:
    """True if :func:`use_deterministic_algorithms` turned deterministic mode on."""
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> _builtins.bool:
    """True if deterministic mode is on with ``warn_only=True``."""
    return _settings["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """Deterministic mode as a level: 0 or ``"default"`` off, 1 or ``"warn"``, 2 or ``"error"``."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> _builtins.int:
    """The level :func:`set_deterministic_debug_mode` sets: 0, 1 (warn) or 2 (error)."""
    return 0 if not _settings["deterministic"] else 1 if _settings["warn_only"] else 2


def set_float32_matmul_precision(precision: str) -> None:
    """Records ``"highest"``, ``"high"`` or ``"medium"``; numgrad's float32 matmuls stay exact."""
    if precision not in ("highest", "high", "medium"):
        _warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      f"set_float32_matmul_precision call has no effect.")
        return
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The value last given to :func:`set_float32_matmul_precision` (``"highest"`` at start)."""
    return _settings["matmul_precision"]


def set_num_threads(num: _builtins.int) -> None:
    """Sets how many threads numgrad's parallel kernels use (at most the cores Numba started with)."""
    if not isinstance(num, _builtins.int) or isinstance(num, _builtins.bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _numba.set_num_threads(_builtins.min(num, _numba.config.NUMBA_NUM_THREADS))


def get_num_threads() -> _builtins.int:
    """The number of threads numgrad's parallel kernels use."""
    return _numba.get_num_threads()


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
    if name in ("compile", "compiler"):
        compiler_module = _importlib.import_module(__name__ + ".compiler")
        globals()["compiler"], globals()["compile"] = compiler_module, compiler_module.compile
        return globals()[name]
    if name == "nn" or name in _NN_ACTIVATIONS or _nn_deferred:
        # import_module, not ``from . import nn``: that would look nn up here first, recursing.
        nn_module = _importlib.import_module(__name__ + ".nn")  # waits for the thread importing it
        if name == "nn":
            value = nn_module
        elif name in _NN_ACTIVATIONS:
            value = getattr(nn_module.functional.activation, name)
        elif name in _importlib.import_module(__name__ + ".nn.functional.toplevel").__all__:
            value = getattr(_sys.modules[__name__ + ".nn.functional.toplevel"], name)
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = _batched.intercept("torch." + name, value)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_nn_deferred = _nn_importing_elsewhere()
if _nn_deferred:
    Tensor.hardshrink = lambda self, lambd=0.5: __getattr__("hardshrink")(self, lambd)
    Tensor.prelu = lambda self, weight: __getattr__("prelu")(self, weight)
else:
    from . import nn
    from .nn.functional.toplevel import *  # noqa: F401,F403
    from .nn.functional.activation import (selu, selu_, celu, celu_, hardshrink, threshold, threshold_, prelu,
                                          rrelu, rrelu_)
    # The activations PyTorch also binds as Tensor methods.
    Tensor.hardshrink, Tensor.prelu = hardshrink, prelu
    from . import compiler
    from .compiler import compile

# Every public function, routed by its batching rule inside vmap.
_batched.intercept_namespace(globals(), "torch", [_name for _name in list(globals()) if not _name.startswith("_")])
