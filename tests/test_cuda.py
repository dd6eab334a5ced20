"""The CUDA device: device handling, the op table on CUDA against the CPU, autograd and interop.

Runs on Numba's CUDA simulator unless NUMBA_ENABLE_CUDASIM=0 is set (then on a real GPU); the
flag must be set before ``numba.cuda`` is first imported, which numgrad never does on import.
Skipped cleanly when the CUDA target cannot be imported.
"""
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
from numgrad.testing import OP_DB, assert_close, transposed_view  # noqa: E402

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(), reason="numba.cuda is not available")

CUDA = "cuda"


# ------------------------------------------------------------------------------------- devices
def test_device_management():
    assert numgrad.cuda.is_available()
    assert numgrad.cuda.device_count() >= 1
    assert numgrad.cuda.current_device() == 0
    numgrad.cuda.synchronize()
    assert isinstance(numgrad.cuda.get_device_name(), str)


def test_kernel_metadata_is_copied_once_per_layout():
    from numgrad.backends.cuda import runtime
    shape = runtime.int64s((3, 4))
    assert runtime.int64s((3, 4)) is shape and shape.copy_to_host().tolist() == [3, 4]
    strides = runtime.int64s(((4, 1), (0, 2)))
    assert strides.copy_to_host().tolist() == [[4, 1], [0, 2]]
    for k in range(runtime._METADATA_LIMIT + 1):  # the cache stays bounded
        runtime.int64s((k,))
    assert len(runtime._metadata) <= runtime._METADATA_LIMIT


def test_launch_signature_key_separates_what_numba_types_differently():
    # A launch reuses a compiled kernel only for arguments Numba would type the same way.
    from numgrad.backends.cuda import runtime
    key = runtime._argument_key
    assert key((1,)) != key((True,)) != key((1.0,)) != key((np.float32(1),))
    assert key((np.arange(4),)) == key((np.arange(5),))
    assert key((np.arange(4),)) != key((np.arange(4.0),))
    assert key((np.arange(8)[::2],)) != key((np.arange(4),))
    assert key((np.zeros((2, 2)),)) != key((np.zeros(4),))


@pytest.mark.parametrize("device", ["cuda", "cuda:0", numgrad.device("cuda", 0), 0])
def test_factories_on_device(device):
    for t in (numgrad.zeros(2, 3, device=device), numgrad.ones(4, device=device),
              numgrad.full((2,), 7, device=device), numgrad.arange(5, device=device),
              numgrad.linspace(0, 1, 5, device=device), numgrad.eye(3, device=device),
              numgrad.randn(3, device=device), numgrad.tensor([1, 2], device=device),
              numgrad.empty(2, device=device)):
        assert t.device == numgrad.device("cuda:0") and t.is_cuda
    assert numgrad.arange(5, device=device).tolist() == [0, 1, 2, 3, 4]
    assert numgrad.eye(2, device=device).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert numgrad.linspace(0, 1, 3, device=device).tolist() == [0.0, 0.5, 1.0]


def test_moves_between_devices():
    x = numgrad.arange(6.0).reshape(2, 3)
    for y in (x.to("cuda"), x.cuda(), x.to(device="cuda:0"), x.to(numgrad.zeros(1, device=CUDA))):
        assert y.device.type == "cuda" and y.tolist() == x.tolist()
    y = x.to("cuda", numgrad.float64)
    assert y.dtype is numgrad.float64 and y.is_cuda
    back = y.t().cpu()
    assert back.device.type == "cpu" and back.tolist() == x.t().tolist()
    assert x.cuda().cuda() is not None and x.cpu() is x


def test_printing_and_numpy():
    x = numgrad.tensor([1.0, 2.0], device=CUDA)
    assert repr(x) == "tensor([1., 2.], device='cuda:0')"
    assert x.type() == "torch.cuda.FloatTensor"
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.numpy()
    assert x.cpu().numpy().tolist() == [1.0, 2.0]
    assert x.sum().item() == 3.0 and float(x[1]) == 2.0


def test_mixing_devices():
    x = numgrad.ones(3, device=CUDA)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at "
                                           "least two devices, cuda:0 and cpu!"):
        x + numgrad.ones(3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        numgrad.ones(2, 3) @ numgrad.ones(3, device=CUDA)
    # 0-d CPU tensors are scalars, as in PyTorch.
    assert (x * numgrad.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]
    assert (x * numgrad.tensor(2.0)).is_cuda


def test_invalid_device_index():
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        numgrad.zeros(2, device="cuda:7")


# ------------------------------------------------------------------------------------- kernels
def _both(arr, noncontiguous=False):
    cpu = transposed_view(arr) if noncontiguous else numgrad.tensor(arr)
    return cpu, cpu.cuda() if not noncontiguous else transposed_view(arr).cuda() if arr.ndim < 2 else \
        numgrad.tensor(np.ascontiguousarray(np.swapaxes(arr, 0, -1)), device=CUDA).transpose(0, -1)


def test_elementwise_layouts():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 1)).astype(np.float32)
    (ac, ag), (bc, bg) = _both(a, True), _both(b)
    assert not ag.is_contiguous()
    assert_close((ag * bg + 1).cpu(), ac * bc + 1)          # nd kernel: broadcast + transposed
    assert_close(ag[:, 1].exp().cpu(), ac[:, 1].exp())       # one strided dim
    assert_close(numgrad.tensor(a, device=CUDA).sin().cpu(), numgrad.tensor(a).sin())  # contiguous
    h = numgrad.tensor(a, device=CUDA).half()
    assert h.dtype is numgrad.float16
    assert_close(h.cpu(), numgrad.tensor(a).half())
    assert_close((h * h).cpu(), numgrad.tensor(a).half() * numgrad.tensor(a).half())


@pytest.mark.parametrize("shape, dim", [((5,), None), ((100,), None), ((3, 70), 1), ((70, 3), 0),
                                        ((2, 3, 4), (0, 2)), ((4, 5), ()), ((0, 3), 1)])
def test_reductions(shape, dim):
    arr = np.random.default_rng(1).standard_normal(shape)
    cpu, gpu = numgrad.tensor(arr), numgrad.tensor(arr, device=CUDA)
    for name in ("sum", "prod", "amax", "amin", "any", "all", "mean"):
        if name in ("amax", "amin") and 0 in shape:
            continue
        fn = getattr(numgrad, name)
        expected = fn(cpu) if dim is None else fn(cpu, dim)
        actual = fn(gpu) if dim is None else fn(gpu, dim)
        assert actual.is_cuda
        assert_close(actual.cpu(), expected, rtol=1e-12, atol=1e-12)


# Under the simulator a block has 8 threads and a grid 2 blocks: 600 elements split one output
# into block partials, 40 rows of 3 columns split each column into thread partials, and rows of 2
# or 7 make threads carry across reduced rows.
@pytest.mark.parametrize("shape, dim", [((600,), None), ((3, 80), 1), ((40, 3), 0),
                                        ((40, 3, 2), (0, 2)), ((5, 2, 6, 2, 7), (0, 2, 4))])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_reduction_layouts(shape, dim, noncontiguous):
    arr = np.random.default_rng(4).standard_normal(shape)
    cpu, gpu = _both(arr, noncontiguous)
    for name in ("sum", "amax", "prod"):
        fn = getattr(numgrad, name)
        expected = fn(cpu) if dim is None else fn(cpu, dim)
        actual = fn(gpu) if dim is None else fn(gpu, dim)
        assert_close(actual.cpu(), expected, rtol=1e-12, atol=1e-12)
    expected, actual = cpu.float().sum(), gpu.float().sum()
    assert_close(actual.cpu(), expected, rtol=1e-5, atol=1e-5)
    wide = gpu[:, None].expand(shape[0], 3, *shape[1:])          # a stride-0 kept dim
    assert_close(wide.sum(0).cpu(), cpu[:, None].expand(shape[0], 3, *shape[1:]).sum(0))


def test_scans_and_select():
    arr = np.random.default_rng(2).integers(-3, 4, (3, 4))
    cpu, gpu = numgrad.tensor(arr), numgrad.tensor(arr, device=CUDA)
    for dim in (0, 1):
        assert_close(gpu.cumsum(dim).cpu(), cpu.cumsum(dim))
        assert_close(gpu.cumprod(dim).cpu(), cpu.cumprod(dim))
        assert_close(gpu.argmax(dim).cpu(), cpu.argmax(dim))
        assert_close(gpu.median(dim).values.cpu(), cpu.median(dim).values)
        values, indices = gpu.cummax(dim)
        assert values.is_cuda and indices.is_cuda
        assert_close(indices.cpu(), cpu.cummax(dim).indices)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_matmul(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (2, 5, 6)).astype(dtype)
    b = rng.integers(-3, 4, (6, 7)).astype(dtype)
    ac, bc = numgrad.tensor(a), numgrad.tensor(b)
    ag, bg = ac.cuda(), bc.cuda()
    assert_close((ag @ bg).cpu(), ac @ bc)
    assert_close((ag.mT @ ag).cpu(), ac.mT @ ac)           # transposed operand, no copy
    assert_close(numgrad.mv(ag[0], bg[:, 0]).cpu(), numgrad.mv(ac[0], bc[:, 0]))


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_matmul_edges(dtype):
    # Sizes straddle the simulator's tile (8 x 6, K step 4) so partial tiles and steps run.
    rng = np.random.default_rng(7)

    def pair(*shape):
        arr = rng.integers(-3, 4, shape).astype(dtype)
        return numgrad.tensor(arr), numgrad.tensor(arr, device=CUDA)

    for m, k, n in [(1, 1, 1), (9, 10, 13), (3, 0, 4), (8, 4, 6)]:
        (ac, ag), (bc, bg) = pair(m, k), pair(k, n)
        assert_close((ag @ bg).cpu(), ac @ bc)
    (ac, ag), (bc, bg) = pair(10, 9), pair(13, 10)
    assert_close((ag.mT @ bg.mT).cpu(), ac.mT @ bc.mT)    # column-major operands
    (ac, ag), (bc, bg) = pair(12, 11), pair(11, 15)
    assert_close((ag[1::2, 2:] @ bg[2:, 1::2]).cpu(), ac[1::2, 2:] @ bc[2:, 1::2])
    (ac, ag), (bc, bg) = pair(2, 1, 5, 7), pair(3, 7, 4)
    assert_close((ag @ bg).cpu(), ac @ bc)                # broadcast batch
    assert_close(numgrad.bmm(ag[0].expand(3, 5, 7), bg).cpu(), numgrad.bmm(ac[0].expand(3, 5, 7), bc))
    (ac, ag), (bc, bg) = pair(2, 3, 0), pair(1, 0, 5)
    assert_close((ag @ bg).cpu(), ac @ bc)
    (ac, ag), (bc, bg) = pair(9), pair(9)
    assert_close(numgrad.dot(ag, bg).cpu(), numgrad.dot(ac, bc))


def test_fallback_ops():
    arr = np.random.default_rng(4).standard_normal((3, 4))
    cpu, gpu = numgrad.tensor(arr), numgrad.tensor(arr, device=CUDA)
    idx = numgrad.tensor([2, 0])
    assert_close(gpu.sort(1).values.cpu(), cpu.sort(1).values)
    assert_close(gpu[idx.cuda()].cpu(), cpu[idx])
    assert_close(gpu[gpu > 0].cpu(), cpu[cpu > 0])
    y = gpu.clone()
    y[idx.cuda(), 1] = 5.0
    c = cpu.clone()
    c[idx, 1] = 5.0
    assert y.is_cuda
    assert_close(y.cpu(), c)
    g = numgrad.gather(gpu, 1, numgrad.tensor([[0], [1], [3]], device=CUDA))
    assert g.is_cuda
    assert_close(g.cpu(), numgrad.gather(cpu, 1, numgrad.tensor([[0], [1], [3]])))
    m = numgrad.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=numgrad.float64)
    assert_close(numgrad.linalg.inv(m.cuda()).cpu(), numgrad.linalg.inv(m))


# ----------------------------------------------------------------------------- index kernels
def _pair(arr):
    return numgrad.tensor(arr), numgrad.tensor(arr, device=CUDA)


def test_index_ops_run_cuda_kernels():
    for fn in (numgrad.gather, numgrad.scatter, numgrad.scatter_add, numgrad.index_select, numgrad.take,
               numgrad.Tensor.scatter_add_):
        assert not hasattr(fn, "__wrapped_for_cuda__"), fn
    rng = np.random.default_rng(6)
    xc, xg = _pair(rng.standard_normal((4, 5)))
    ic, ig = _pair(np.array([[3, 0, 0, 1, 3], [2, 2, 1, 0, 0]]))
    for dim, x_c, x_g, i_c, i_g in ((0, xc, xg, ic, ig), (1, xc.t(), xg.t(), ic.t()[:4], ig.t()[:4])):
        assert_close(numgrad.gather(x_g, dim, i_g).cpu(), numgrad.gather(x_c, dim, i_c))
        src_c, src_g = x_c[:i_c.shape[0]] * 10, x_g[:i_g.shape[0]] * 10
        # Repeated indices: the last write wins, as on the CPU; sums and products accumulate.
        assert_close(numgrad.scatter(x_g, dim, i_g, src_g).cpu(), numgrad.scatter(x_c, dim, i_c, src_c))
        assert_close(numgrad.scatter_add(x_g, dim, i_g, src_g).cpu(),
                     numgrad.scatter_add(x_c, dim, i_c, src_c))
        assert_close(numgrad.scatter(x_g, dim, i_g, src_g, reduce="multiply").cpu(),
                     numgrad.scatter(x_c, dim, i_c, src_c, reduce="multiply"))
        assert_close(numgrad.scatter(x_g, dim, i_g, 2.5).cpu(), numgrad.scatter(x_c, dim, i_c, 2.5))
    assert_close(numgrad.index_select(xg, 1, ig[0]).cpu(), numgrad.index_select(xc, 1, ic[0]))
    assert_close(numgrad.take(xg, ig).cpu(), numgrad.take(xc, ic))
    y = xg.clone()
    y.scatter_add_(0, ig, xg[:2])
    assert y.is_cuda
    assert_close(y.cpu(), xc.clone().scatter_add_(0, ic, xc[:2]))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float16", "bool"])
def test_scatter_add_dtypes(dtype):
    # int64/int32 add atomically; the others through the serial-dims kernel.
    arr = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    (xc, xg), (ic, ig) = _pair(arr), _pair(np.array([[0, 2, 2, 0], [2, 2, 2, 2]]))
    assert_close(numgrad.scatter_add(xg, 0, ig, xg[:2]).cpu(), numgrad.scatter_add(xc, 0, ic, xc[:2]))
    assert_close(numgrad.index_select(xg, 0, ig[1]).cpu(), numgrad.index_select(xc, 0, ic[1]))


def test_index_bounds_checked_before_launch():
    x = numgrad.zeros(3, 4, device=CUDA)
    bad = numgrad.tensor([[0, 1, 3, 0]], device=CUDA)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        numgrad.gather(x, 0, bad)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x.scatter_add_(0, bad, x[:1].clone())
    assert x.cpu().tolist() == [[0.0] * 4] * 3
    with pytest.raises(IndexError, match="index -1 is out of bounds for dimension 1 with size 4"):
        numgrad.index_select(x, 1, numgrad.tensor([0, -1, 2], device=CUDA))
    with pytest.raises(IndexError, match="out of range: tried to access index 12"):
        numgrad.take(x, numgrad.tensor([12], device=CUDA))


def test_index_gradients_on_cuda():
    rng = np.random.default_rng(7)
    arr, idx = rng.standard_normal((3, 4)), np.array([[2, 0, 2, 1], [2, 2, 0, 0]])
    grads = []
    for device in ("cpu", CUDA):
        x = numgrad.tensor(arr, device=device, requires_grad=True)
        i = numgrad.tensor(idx, device=device)
        (numgrad.gather(x, 0, i) * numgrad.index_select(x, 0, i[0, :2])[:, :4]).sum().backward()
        assert x.grad.device.type == device
        grads.append(x.grad.cpu())
    assert_close(grads[1], grads[0], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------- op table
def _dtype_for(info):
    for d in ("float32", "float64", "int64"):
        if d in info.dtypes:
            return d
    return info.dtypes[0]


def _call(info, args, kwargs):
    if not info.op:
        pytest.skip("no function form")
    return info.op(*args, **kwargs)


def _flatten(result):
    if isinstance(result, (tuple, list)):
        return [r for x in result for r in _flatten(x)]
    return [result] if isinstance(result, numgrad.Tensor) else []


@pytest.mark.parametrize("info", [pytest.param(i, id=i.id) for i in OP_DB])
def test_op_table_matches_cpu(info):
    """Every row of the op table gives the same values and dtypes on CUDA as on the CPU."""
    dtype = _dtype_for(info)
    samples = [s for s in info.samples(dtype) if not s.broadcasts][:4]
    for sample in samples:
        cpu_args = [numgrad.tensor(a) if isinstance(a, np.ndarray) else a for a in sample.args]
        gpu_args = [a.cuda() if isinstance(a, numgrad.Tensor) else a for a in cpu_args]
        try:
            expected = _call(info, cpu_args, sample.kwargs)
        except Exception as exc:  # the CPU rejects this sample: CUDA must raise the same
            with pytest.raises(type(exc)):
                _call(info, gpu_args, sample.kwargs)
            continue
        actual = _call(info, gpu_args, sample.kwargs)
        exp, act = _flatten(expected), _flatten(actual)
        assert len(exp) == len(act), sample
        for e, a in zip(exp, act):
            assert a.device.type == "cuda", sample
            rtol, atol = info.tolerance(e.dtype)
            assert_close(a.cpu(), e, rtol=max(rtol, 1e-5), atol=max(atol, 1e-5), msg=repr(sample))


# ----------------------------------------------------------------------------------- autograd
def test_backward_mlp_step():
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in ((4, 3), (3, 5), (5,), (5, 2))]
    grads = []
    for device in ("cpu", CUDA):
        x, w1, b1, w2 = [numgrad.tensor(a, device=device, requires_grad=i > 0) for i, a in enumerate(arrays)]
        h = (x @ w1 + b1).relu()
        loss = (h @ w2).log_softmax(1).sum() + (w1 * w1).mean()
        loss.backward()
        assert w1.grad.device.type == device
        grads.append([t.grad.cpu() for t in (w1, b1, w2)])
    for c, g in zip(*grads):
        assert_close(g, c, rtol=1e-10, atol=1e-10)


def test_higher_order_and_functional():
    x = numgrad.tensor([0.5, -1.0, 2.0], dtype=numgrad.float64, device=CUDA, requires_grad=True)
    (g,) = numgrad.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (gg,) = numgrad.autograd.grad(g.sum(), x)
    assert gg.is_cuda
    assert_close(gg.cpu(), 6 * x.detach().cpu())
    hooked = []
    y = x.exp()
    y.register_hook(lambda grad: hooked.append(grad.device.type))
    y.sum().backward()
    assert hooked == ["cuda"]
    assert_close(x.grad.cpu(), x.detach().cpu().exp())


def test_gradient_through_moves_and_fallbacks():
    x = numgrad.tensor([3.0, 1.0, 2.0], device=CUDA, requires_grad=True)
    (x.sort().values * numgrad.tensor([1.0, 2.0, 3.0], device=CUDA)).sum().backward()
    assert x.grad.is_cuda and x.grad.tolist() == [3.0, 1.0, 2.0]
    y = numgrad.tensor([1.0, 2.0], requires_grad=True)
    (y.cuda() * 3).sum().backward()
    assert y.grad.device.type == "cpu" and y.grad.tolist() == [3.0, 3.0]


# ------------------------------------------------------------------------------------ interop
class _Exporter:
    """A foreign array: under the simulator device memory is host memory, so a NumPy buffer."""

    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = {"shape": arr.shape, "typestr": arr.dtype.str, "version": 3,
                                         "data": (arr.__array_interface__["data"][0], False),
                                         "strides": arr.strides}


def test_cuda_array_interface():
    x = numgrad.arange(12.0, device=CUDA).reshape(3, 4)[:, 1:]
    cai = x.__cuda_array_interface__
    assert cai["shape"] == (3, 3) and cai["typestr"] == "<f4" and cai["strides"] == (16, 4)
    assert cai["data"][0] == x.data_ptr()
    y = numgrad.as_tensor(x.detach())
    assert y is x.detach() or y.tolist() == x.tolist()
    with pytest.raises(AttributeError):
        numgrad.ones(2).__cuda_array_interface__
    with pytest.raises(RuntimeError, match="requires grad"):
        numgrad.ones(2, device=CUDA, requires_grad=True).__cuda_array_interface__


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="host-memory exporter")
def test_as_tensor_shares_memory():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = numgrad.as_tensor(_Exporter(arr))
    assert t.is_cuda and t.tolist() == arr.tolist()
    t.mul_(2)
    assert arr.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    u = numgrad.as_tensor(_Exporter(arr[:, ::2]))
    assert u.tolist() == [[0.0, 4.0], [6.0, 10.0]]
