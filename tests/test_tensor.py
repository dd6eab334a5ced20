"""The Tensor surface: metadata, Python protocols, NumPy interop, devices and error messages."""
import numpy as np
import pytest

import numgrad


def test_metadata():
    x = numgrad.arange(24).view(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, numgrad.Size) and x.size() == x.shape
    assert repr(x.shape) == "numgrad.Size([2, 3, 4])" and x.size(-1) == 4 and x.size(0) == 2
    assert x.shape[1:] == numgrad.Size([3, 4]) and isinstance(x.shape[1:], numgrad.Size)
    assert x.shape.numel() == 24 and x.numel() == x.nelement() == 24
    assert x.stride() == (12, 4, 1) and x.stride(1) == 4
    assert x.dim() == x.ndim == 3 and len(x) == 2
    y = x[1:, 1:, ::2]
    assert y.storage_offset() == 16 and y.stride() == (12, 4, 2) and not y.is_contiguous()
    assert y.data_ptr() == x.data_ptr() + 16 * 8
    c = y.contiguous()
    assert c.is_contiguous() and c.stride() == (4, 2, 1) and c.tolist() == y.tolist()
    assert x.contiguous() is x
    assert x.T.shape == (4, 3, 2) and x[0].T.stride() == (1, 4)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(3)


def test_python_protocols():
    assert numgrad.tensor(3).item() == 3 and isinstance(numgrad.tensor(3).item(), int)
    assert numgrad.tensor([2.5]).item() == 2.5
    assert int(numgrad.tensor([2.7])) == 2 and float(numgrad.tensor(3)) == 3.0
    assert bool(numgrad.tensor([1])) and not bool(numgrad.tensor(0.0))
    assert numgrad.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert numgrad.tensor(2.5).tolist() == 2.5
    rows = [r.tolist() for r in numgrad.tensor([[1, 2], [3, 4]])]
    assert rows == [[1, 2], [3, 4]]
    assert list(range(10))[numgrad.tensor(3)] == 3
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        numgrad.tensor([1, 2]).item()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(numgrad.tensor([1, 2]))
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(numgrad.tensor(1))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(numgrad.tensor(1))


def test_numpy_shares_memory_and_array_protocol():
    x = numgrad.zeros(2, 3)
    a = x.numpy()
    a[0, 1] = 5
    assert x[0, 1].item() == 5
    t = x.t()
    assert np.shares_memory(t.numpy(), a) and t.numpy().shape == (3, 2)
    assert np.asarray(x).dtype == np.float32 and np.array(x, dtype=np.float64).dtype == np.float64
    assert np.add(np.asarray(x), 1).sum() == 11
    with pytest.raises(RuntimeError, match="Use tensor.detach\\(\\).numpy\\(\\) instead"):
        numgrad.ones(2, requires_grad=True).numpy()


def test_devices():
    x = numgrad.ones(2)
    assert x.device == numgrad.device("cpu") and x.device == "cpu"
    assert x.to("cpu") is x and x.cpu() is x and x.to(numgrad.device("cpu")) is x
    assert x.to("cpu", numgrad.double).dtype is numgrad.float64
    assert repr(numgrad.device("cpu")) == "device(type='cpu')"
    assert repr(numgrad.device("cuda:1")) == "device(type='cuda', index=1)"
    assert str(numgrad.device("cuda", 0)) == "cuda:0" and not x.is_cuda
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        numgrad.device("gpu")
    assert isinstance(numgrad.cuda.is_available(), bool)
    if not numgrad.cuda.is_available():
        assert numgrad.cuda.device_count() == 0
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            x.to("cuda")


def test_broadcast_mismatch_messages():
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(4\\) "
                                           "at non-singleton dimension 1"):
        numgrad.zeros(2, 3) + numgrad.zeros(4)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(2\\) "
                                           "at non-singleton dimension 1"):
        numgrad.zeros(2, 3) * numgrad.zeros(3, 2)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(5\\) "
                                           "at non-singleton dimension 0"):
        numgrad.broadcast_shapes((2, 1, 3), (5, 4, 1)) if hasattr(numgrad, "broadcast_shapes") else \
            numgrad.zeros(2, 1, 3) + numgrad.zeros(5, 4, 1)


def test_invalid_dtype_for_an_op():
    with pytest.raises(RuntimeError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        numgrad.ones(3) & numgrad.ones(3)
    with pytest.raises(NotImplementedError, match="\"bitwise_or_cpu\" not implemented for 'Float'"):
        numgrad.ones(3) | 1
    with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
        ~numgrad.ones(3)
    assert (numgrad.tensor([6]) & 3).tolist() == [2]


def test_bad_sizes():
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -2: \\[3, -2\\]"):
        numgrad.ones(3, -2)
    with pytest.raises(RuntimeError, match="shape '\\[4, 4\\]' is invalid for input of size 6"):
        numgrad.zeros(2, 3).view(4, 4)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        numgrad.zeros(2, 3).reshape(-1, -1)
    with pytest.raises(RuntimeError, match="the number of sizes provided \\(1\\) must be greater or equal"):
        numgrad.zeros(2, 3).expand(3)
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(3\\) must match the existing size "
                                           "\\(2\\) at non-singleton dimension 0"):
        numgrad.zeros(2, 3).expand(3, 3)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        numgrad.zeros(2, 2.5)


def test_requires_grad_only_for_floats():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        numgrad.zeros(2, dtype=numgrad.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        numgrad.zeros(2, dtype=numgrad.int64, requires_grad=True)
    x = numgrad.zeros(2).requires_grad_()
    assert x.requires_grad and x.is_leaf
