"""Invalid arguments: each raises PyTorch's exception type (with its message) before any kernel
runs, never a crash, a hang or a silent result."""
import pytest

import numgrad
import numgrad.nn.functional as F

T = numgrad.tensor


def x34():
    return numgrad.arange(12.0).reshape(3, 4)


# ------------------------------------------------------------------ writes into expanded tensors

OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


@pytest.mark.parametrize("write", [
    lambda e: e.add_(1),
    lambda e: e.mul_(e),
    lambda e: e.exp_(),
    lambda e: e.clamp_(0, 1),
    lambda e: e.copy_(numgrad.ones(2, 3, 4)),
    lambda e: e.uniform_(),
    lambda e: numgrad.add(e, 1, out=e),
    lambda e: e.scatter_(0, numgrad.zeros(1, 3, 4, dtype=numgrad.int64), 1.0),
    lambda e: e.index_add_(0, T([0]), numgrad.ones(1, 3, 4)),
    lambda e: e.put_(T([0]), T([1.0])),
    lambda e: e.masked_scatter_(e > 1, numgrad.zeros(24)),
])
def test_write_into_expanded_tensor_raises(write):
    e = x34().expand(2, 3, 4)
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(e)
    assert e[0].tolist() == x34().tolist()


def test_fills_of_expanded_tensors_are_allowed():
    e = x34().expand(2, 3, 4)
    e.index_fill_(0, T([0]), 1.0)
    e.masked_fill_(e > 10, 0.0)
    e.fill_(2.0)
    assert e.sum().item() == 48.0


# ------------------------------------------------------------------ dtypes that must match

def test_index_put_requires_matching_dtypes():
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, "
                                           "got Float for the destination and Long for the source"):
        x34().index_put_((T([0]),), T(1))
    with pytest.raises(RuntimeError, match="dtypes match"):
        x34().index_put((T([0]),), T(1.0, dtype=numgrad.float64))
    y = x34()
    with pytest.raises(RuntimeError, match="dtypes match"):
        y[T([0])] = T(1)
    y[T([True, False, False])] = T(1)  # a 0-d value through a mask converts, as masked_fill does
    y[T([1])] = 2  # and so does a number
    assert y[0].tolist() == [1.0] * 4 and y[1].tolist() == [2.0] * 4


def test_masked_scatter_requires_matching_dtypes():
    with pytest.raises(RuntimeError, match="masked_scatter: expected self and source to have same dtypes"):
        x34().masked_scatter(T([True] * 4), numgrad.arange(20))


def test_narrow_integer_index_tensors_are_refused():
    for d in (numgrad.int8, numgrad.int16):
        with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
            x34()[T([0, 1], dtype=d)]
    assert x34()[T(1, dtype=numgrad.int8)].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert x34()[T([2], dtype=numgrad.int32)].shape == (1, 4)


@pytest.mark.parametrize("call, exc, match", [
    (lambda x: F.nll_loss(x, T([0, 0, 0], dtype=numgrad.int32)), RuntimeError, "Long or Byte, but got Int"),
    (lambda x: F.cross_entropy(x, T([0, 0, 0], dtype=numgrad.int16)), RuntimeError, "Long or Byte, but got Short"),
    (lambda x: F.embedding(T([0]), numgrad.zeros(3)), RuntimeError, "'weight' must be 2-D"),
    (lambda x: F.embedding(T([0], dtype=numgrad.int8), x), RuntimeError, "Long, Int; but got torch.CharTensor"),
    (lambda x: x.take(T([0.0])), RuntimeError, r"take\(\): Expected a long tensor for index, but got Float"),
    (lambda x: x.put_(T([0], dtype=numgrad.int32), T([1.0])), RuntimeError, "Expected a long tensor"),
    (lambda x: x.put_(T([0, 1]), T([1.0])), IndexError, "same number of elements"),
    (lambda x: x.index_fill(0, T([0], dtype=numgrad.int32), 1.0), IndexError, "Expected dtype int64 for index"),
    (lambda x: x.index_fill(0, T([[0]]), 1.0), RuntimeError, "Index has to be a vector/scalar"),
    (lambda x: x.index_copy(0, T([0.0]), numgrad.ones(1, 4)), RuntimeError, "Expected a long tensor for index"),
    (lambda x: x.index_copy(0, T([0]), numgrad.ones(2, 4)), IndexError, "Number of indices"),
    (lambda x: x.index_add(0, T([3]), numgrad.ones(1, 4)), RuntimeError, "index 3 is out of bounds"),
    (lambda x: numgrad.zeros(0, 2).index_select(0, T([0])), RuntimeError, "axis dim should be positive"),
])
def test_index_argument_checks(call, exc, match):
    with pytest.raises(exc, match=match):
        call(x34())


def test_index_fill_counts_negative_indices_from_the_end():
    assert x34().index_fill(0, T([-1]), 0.0)[2].tolist() == [0.0] * 4
    assert x34().index_fill(1, T([-4]), 0.0)[:, 0].tolist() == [0.0] * 3
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x34().index_fill(0, T([-4]), 0.0)


def test_take_along_dim_checks():
    x = x34()
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Int"):
        numgrad.take_along_dim(x, T([[0]], dtype=numgrad.int32), 1)
    with pytest.raises(RuntimeError, match="should have the same number of dimensions"):
        numgrad.take_along_dim(x, T([0]), 1)
    with pytest.raises(RuntimeError, match="index 12 is out of bounds for dimension 0 with size 12"):
        numgrad.take_along_dim(x, T([12]))
    assert numgrad.take_along_dim(x, T([[11, 0]])).tolist() == [11.0, 0.0]
    with pytest.raises(RuntimeError, match="index -1 is out of bounds"):
        numgrad.take_along_dim(x, T([-1]))


# ------------------------------------------------------------------ sorting and histograms

def test_searchsorted_sorter_and_empty_boundaries():
    v = numgrad.arange(5.0)
    with pytest.raises(RuntimeError, match="boundary and sorter must have the same size"):
        numgrad.searchsorted(v, v, sorter=T([0, 1]))
    with pytest.raises(RuntimeError, match="sorter must be a tensor of long dtype but got dtype Int"):
        numgrad.searchsorted(v, v, sorter=T([0, 1, 2, 3, 4], dtype=numgrad.int32))
    assert numgrad.searchsorted(numgrad.zeros(0), v).tolist() == [0] * 5
    assert numgrad.bucketize(v, numgrad.zeros(0)).tolist() == [0] * 5
    assert numgrad.searchsorted(numgrad.zeros(2, 0), numgrad.zeros(2, 3)).shape == (2, 3)


def test_histc_range_must_be_finite():
    with pytest.raises(RuntimeError, match=r"range of \[nan, nan\] is not finite"):
        numgrad.histc(T([1.0, float("nan")]))
    with pytest.raises(RuntimeError, match="is not finite"):
        numgrad.histc(T([1.0]), min=0, max=float("inf"))
    assert numgrad.histc(T([1.0, float("nan")]), bins=2, min=0, max=2).tolist() == [0.0, 1.0]


def test_kthvalue_of_empty_dim():
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        numgrad.zeros(0).kthvalue(1)


# ------------------------------------------------------------------ shapes and dims

@pytest.mark.parametrize("call, exc, match", [
    (lambda x: x.movedim((0, 1), (1, 1)), RuntimeError, r"repeated dim in `destination` \(\[1, 1\]\)"),
    (lambda x: x.movedim((0, 0), (1, 0)), RuntimeError, "repeated dim in `source`"),
    (lambda x: x.roll((), ()), RuntimeError, "`shifts` required"),
    (lambda x: x.unfold(1, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
    (lambda x: numgrad.cat(x), TypeError, "must be tuple of Tensors, not Tensor"),
    (lambda x: numgrad.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    (lambda x: numgrad.column_stack([]), RuntimeError, "column_stack expects a non-empty TensorList"),
    (lambda x: numgrad.tensor(1.0).narrow(0, 0, 1), RuntimeError, "cannot be applied to a 0-dim tensor"),
    (lambda x: numgrad.tensor(1.0).flatten(0, 1), IndexError, "Dimension out of range"),
    (lambda x: numgrad.tensor(1.0).softmax(1), IndexError, "Dimension out of range"),
    (lambda x: x["a"], TypeError, "invalid data type 'str'"),
    (lambda x: x.__setitem__(0, "a"), TypeError, "can't assign a str to a torch.FloatTensor"),
])
def test_shape_and_dim_checks(call, exc, match):
    with pytest.raises(exc, match=match):
        call(x34())


def test_out_dtypes_of_cat_and_products():
    x = x34()
    with pytest.raises(TypeError, match="can't be cast to the desired output type Long"):
        numgrad.cat([x, x], out=numgrad.zeros(6, 4, dtype=numgrad.int64))
    assert numgrad.cat([x.long(), x.long()], out=numgrad.zeros(6, 4)).dtype is numgrad.float32
    for call in (lambda o: numgrad.matmul(x, x.t(), out=o), lambda o: numgrad.mm(x, x.t(), out=o),
                 lambda o: numgrad.addmm(numgrad.zeros(3, 3), x, x.t(), out=o)):
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got long int"):
            call(numgrad.zeros(3, 3, dtype=numgrad.int64))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double"):
        numgrad.mv(x, numgrad.ones(4), out=numgrad.zeros(3, dtype=numgrad.float64))


# ------------------------------------------------------------------ nn.functional windows

@pytest.mark.parametrize("call, match", [
    (lambda: F.avg_pool2d(numgrad.zeros(1, 1, 4, 4), 2, divisor_override=0), "divisor must be not zero"),
    (lambda: F.conv2d(numgrad.zeros(1, 1, 4, 4), numgrad.zeros(1, 1, 3)), "Expected 4-dimensional weight"),
    (lambda: F.conv2d(numgrad.zeros(1, 1, 4, 4), numgrad.zeros(1, 1, 3, 3), padding="foo"),
     "Invalid padding string: 'foo'"),
    (lambda: F.max_pool2d(numgrad.zeros(1, 1, 4, 4), (2, 2, 2)), "kernel_size must either be a single int"),
    (lambda: F.pad(numgrad.zeros(3, 4), (-5, 0)), "length must be non-negative"),
    (lambda: F.unfold(numgrad.zeros(1, 1, 4, 4), 0), "kernel size should be greater than zero"),
    (lambda: F.fold(numgrad.zeros(1, 4, 4), (3, 3), 0), "kernel size should be greater than zero"),
    (lambda: F.fold(numgrad.zeros(1, 4, 4), (3, 3), 2, stride=0), "stride should be greater than zero"),
])
def test_window_argument_checks(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


# ------------------------------------------------------------------ factories and fills

@pytest.mark.parametrize("call, ctype", [
    (lambda: numgrad.full((2,), 300, dtype=numgrad.uint8), "uint8_t"),
    (lambda: numgrad.full((2,), 1e40, dtype=numgrad.float16), r"c10::Half"),
    (lambda: numgrad.full((2,), float("nan"), dtype=numgrad.int64), "int64_t"),
    (lambda: numgrad.full((2,), 1 + 2j, dtype=numgrad.float32), "float"),
    (lambda: numgrad.zeros(2, dtype=numgrad.int32).fill_(2.0 ** 31), "int"),
])
def test_fill_values_must_fit(call, ctype):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {ctype} without overflow"):
        call()


def test_fill_values_that_fit():
    assert numgrad.full((1,), -1, dtype=numgrad.uint8).tolist() == [255]
    assert numgrad.full((1,), float("inf"), dtype=numgrad.float16).tolist() == [float("inf")]
    assert numgrad.full((1,), 1.5, dtype=numgrad.int8).tolist() == [1]
    assert numgrad.zeros(0, dtype=numgrad.int64).median().item() == -2 ** 63


@pytest.mark.parametrize("args, match", [
    ((0, float("inf")), "unsupported range: 0 -> inf"),
    ((float("nan"),), "unsupported range: 0 -> nan"),
    ((0, 5, 1e-30), "invalid size, possible overflow"),
])
def test_arange_range_checks(args, match):
    with pytest.raises(RuntimeError, match=match):
        numgrad.arange(*args)


# ------------------------------------------------------------------ sizes kernels cannot count

def test_sizes_beyond_int64_are_refused():
    x = x34()
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        x.expand(2 ** 62, 3, 4)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        x.repeat(2 ** 40, 2 ** 40)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        numgrad.zeros(2 ** 62, 2 ** 62)
    assert x.expand(2 ** 59, 3, 4).shape == (2 ** 59, 3, 4)


def test_empty_strided_refuses_negative_strides():
    with pytest.raises(RuntimeError, match=r"overflowed with sizes=\[2, 2\] and strides=\[-1, 1\]"):
        numgrad.empty_strided((2, 2), (-1, 1))
    assert numgrad.empty_strided((1, 2), (-1, 1)).shape == (1, 2)


def test_norm_of_unknown_order():
    with pytest.raises(RuntimeError, match="Order foo not supported"):
        x34().norm(p="foo")


def test_matrix_order_needs_two_dims():
    for ord in ("fro", "nuc"):
        with pytest.raises(RuntimeError, match="linalg.matrix_norm: dim must be a 2-tuple. Got 0"):
            numgrad.linalg.norm(x34(), ord, dim=0)


def test_bincount_minlength_must_be_an_int():
    with pytest.raises(TypeError, match="bincount\\(\\): argument 'minlength' must be int, not float"):
        numgrad.bincount(T([1, 2]), minlength=1.5)
    assert numgrad.bincount(T([1, 2]), minlength=4).tolist() == [0, 1, 1, 0]


def test_integer_average_pooling_truncates():
    x = numgrad.arange(16).reshape(1, 1, 4, 4)
    r = F.avg_pool2d(x, 2)
    assert r.dtype is numgrad.int64 and r.tolist() == [[[[2, 4], [10, 12]]]]
    assert F.avg_pool2d(-x, 2).tolist() == [[[[-2, -4], [-10, -12]]]]


@pytest.mark.parametrize("write", [
    lambda a: a[1:].add_(a[:-1]),
    lambda a: a[:3].mul_(a[2:5]),
    lambda a: numgrad.add(a[1:], a[:-1], out=a[1:]),
    lambda a: a.reshape(2, 3).__iadd__(a.reshape(2, 3)[0]),
])
def test_inputs_overlapping_the_written_tensor_are_refused(write):
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer"):
        write(numgrad.arange(6.0))


def test_inputs_that_are_the_written_tensor_or_disjoint_are_allowed():
    a = numgrad.arange(6.0)
    a.add_(a)
    a[:3].add_(a[3:])
    numgrad.mul(a, 2, out=a)
    assert a.tolist() == [12.0, 20.0, 28.0, 12.0, 16.0, 20.0]
    s = numgrad.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        s.add_(s.t())


def test_overlapping_copies_read_the_values_before_the_write():
    a = numgrad.arange(5.0)
    a[1:] = a[:-1]
    assert a.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0]
    a = numgrad.arange(5.0)
    a[:-1].copy_(a[1:])
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0, 4.0]


def test_running_out_of_memory_is_a_runtime_error():
    # 256 TiB: more than a process can address, whatever the system's overcommit policy.
    with pytest.raises(RuntimeError, match="can.t allocate memory: you tried to allocate 281474976710656 bytes"):
        numgrad.empty(2 ** 46)
