"""DLPack interchange: zero-copy round trips with NumPy (and PyTorch when installed), capsules, and
on the simulator CUDA capsules and imports through ``__cuda_array_interface__``."""
import gc
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
from numgrad.utils.dlpack import from_dlpack, to_dlpack  # noqa: E402

try:
    import torch
except ImportError:  # torch is optional: only the interop checks need it
    torch = None


def test_device():
    assert numgrad.ones(2).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.uint8, np.float16, np.bool_])
def test_numpy_roundtrip_shares_memory(dtype):
    t = numgrad.tensor(np.arange(6).reshape(2, 3).astype(dtype))
    arr = np.from_dlpack(t)
    assert arr.dtype == dtype and arr.tolist() == t.tolist()
    assert arr.__array_interface__["data"][0] == t.data_ptr()
    back = numgrad.from_dlpack(arr)
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()


def test_strided_views_and_writes():
    t = numgrad.arange(12.0).reshape(3, 4)
    view = t.t()[1:, ::2]
    arr = np.from_dlpack(view)
    assert arr.tolist() == view.tolist()
    arr[0, 0] = -1.0                      # the tensor sees writes through the exported view
    assert t[0, 1].item() == -1.0
    a = np.zeros((2, 5))
    u = numgrad.from_dlpack(a[:, 1::2])
    u.add_(3)
    assert a.tolist() == [[0.0, 3.0, 0.0, 3.0, 0.0]] * 2
    assert numgrad.from_dlpack(np.array(2.5)).item() == 2.5   # 0-d


def test_capsules():
    t = numgrad.tensor([1, 2, 3])
    cap = to_dlpack(t)
    assert type(cap).__name__ == "PyCapsule"
    u = from_dlpack(cap)
    assert u.tolist() == [1, 2, 3] and u.data_ptr() == t.data_ptr()
    with pytest.raises(RuntimeError, match="consumed only once"):
        from_dlpack(cap)


def test_errors():
    x = numgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        x.__dlpack__()
    with pytest.raises(TypeError, match="expected an object implementing __dlpack__"):
        numgrad.from_dlpack([1, 2])
    y = numgrad.from_dlpack(x.detach())
    assert y.data_ptr() == x.data_ptr() and not y.requires_grad


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_torch_interop_shares_memory():
    t = numgrad.arange(6.0).reshape(2, 3)[:, 1:]
    pt = torch.from_dlpack(t)
    assert pt.tolist() == t.tolist() and pt.data_ptr() == t.data_ptr()
    pt.mul_(10)
    assert t.tolist() == [[10.0, 20.0], [40.0, 50.0]]
    src = torch.arange(4, dtype=torch.int32)
    u = numgrad.from_dlpack(src)
    assert u.dtype is numgrad.int32 and u.data_ptr() == src.data_ptr()
    v = numgrad.from_dlpack(torch.utils.dlpack.to_dlpack(src))
    assert v.tolist() == [0, 1, 2, 3]


# ------------------------------------------------------------------------------------------ CUDA
cuda_only = pytest.mark.skipif(not numgrad.cuda.is_available(), reason="numba.cuda is not available")


class _CudaExporter:
    """A foreign CUDA array: under the simulator device memory is host memory, so a NumPy buffer."""

    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = {"shape": arr.shape, "typestr": arr.dtype.str, "version": 3,
                                         "data": (arr.__array_interface__["data"][0], False),
                                         "strides": arr.strides}

    def __dlpack__(self, stream=None):
        raise AssertionError("CUDA memory must come through __cuda_array_interface__")

    def __dlpack_device__(self):
        return (2, 0)


class _CudaCapsuleExporter:
    """A CUDA producer that speaks DLPack only (no __cuda_array_interface__)."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


@cuda_only
@pytest.mark.parametrize("dtype", [numgrad.float32, numgrad.int64, numgrad.bool, numgrad.float16])
def test_cuda_capsules_roundtrip(dtype):
    x = numgrad.arange(12, device="cuda").reshape(3, 4).to(dtype).t()[1:]   # strided, offset view
    assert x.__dlpack_device__() == (2, 0)
    cap = numgrad.utils.dlpack.to_dlpack(x)
    y = numgrad.from_dlpack(cap)
    assert y.is_cuda and y.dtype is dtype and y.data_ptr() == x.data_ptr()
    assert y.shape == x.shape and y.stride() == x.stride() and y.tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="consumed only once"):
        numgrad.from_dlpack(cap)
    z = numgrad.from_dlpack(_CudaCapsuleExporter(x))
    assert z.data_ptr() == x.data_ptr() and z.tolist() == x.tolist()
    assert numgrad.from_dlpack(x).data_ptr() == x.data_ptr()


@cuda_only
def test_cuda_capsule_keeps_memory_alive():
    from numgrad.backends.cuda import dlpack as capsules
    gc.collect()
    live = len(capsules._live)
    x = numgrad.full((5,), 3.0, device="cuda")
    cap = x.__dlpack__()
    del x
    y = numgrad.from_dlpack(cap)
    del cap
    gc.collect()
    assert y.tolist() == [3.0] * 5 and len(capsules._live) == live + 1
    del y
    gc.collect()
    assert len(capsules._live) == live                # the consumer called the deleter
    numgrad.zeros(2, device="cuda").__dlpack__()      # an unconsumed capsule frees on its own
    gc.collect()
    assert len(capsules._live) == live


@cuda_only
@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="host-memory exporter")
def test_cuda_import_shares_memory():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = numgrad.from_dlpack(_CudaExporter(arr))
    assert t.is_cuda and t.tolist() == arr.tolist()
    t.mul_(2)
    assert arr.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
