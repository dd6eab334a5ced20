"""Legacy tensor types (FloatTensor & co.), layouts, and storages shared with tensors."""
import pickle
import warnings

import pytest

import numgrad as ng

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

TYPES = {"BoolTensor": ng.bool, "ByteTensor": ng.uint8, "CharTensor": ng.int8, "ShortTensor": ng.int16,
         "IntTensor": ng.int32, "LongTensor": ng.int64, "HalfTensor": ng.float16, "FloatTensor": ng.float32,
         "DoubleTensor": ng.float64}


@pytest.fixture(autouse=True)
def _quiet_and_restore_default_dtype():
    before = ng.get_default_dtype()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    ng.set_default_dtype(before)


# ------------------------------------------------------------------ legacy tensor types
@pytest.mark.parametrize("name", sorted(TYPES))
def test_legacy_type_constructs_its_dtype(name):
    cls = getattr(ng, name)
    assert cls.dtype is TYPES[name] and not cls.is_cuda
    assert repr(cls) == f"<class 'numgrad.{name}'>"
    assert cls(2, 3).shape == (2, 3) and cls(2, 3).dtype is TYPES[name]
    assert cls(ng.Size([4])).shape == (4,)
    assert cls().shape == (0,)
    t = cls([1, 0])
    assert t.dtype is TYPES[name] and t.tolist() in ([1, 0], [True, False])
    assert isinstance(t, cls) and isinstance(t, ng.Tensor)
    assert t.type() == f"torch.{name}"
    other = ng.DoubleTensor if name != "DoubleTensor" else ng.FloatTensor
    assert not isinstance(t, other) and not isinstance(3, cls)
    cuda_cls = getattr(ng.cuda, name)
    assert cuda_cls.is_cuda and cuda_cls.dtype is TYPES[name] and not isinstance(t, cuda_cls)


def test_legacy_constructor_errors():
    with pytest.raises(TypeError, match="new\\(\\): invalid data type 'str'"):
        ng.FloatTensor("a")
    with pytest.raises(TypeError, match="data must be a sequence \\(got float\\)"):
        ng.LongTensor(2.5)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        ng.LongTensor(-1)
    with pytest.raises(TypeError, match="invalid combination of arguments - got \\(int, dtype=torch.dtype\\)"):
        ng.FloatTensor(2, dtype=ng.float64)
    with pytest.raises(TypeError, match="expected TensorOptions\\(dtype=float,"):
        ng.FloatTensor(ng.arange(3))
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu but device type: cuda"):
        ng.FloatTensor(2, device="cuda")
    assert ng.LongTensor([2.5]).tolist() == [2]


def test_legacy_constructor_aliases_a_tensor_of_its_type():
    x = ng.arange(3.0)
    y = ng.FloatTensor(x)
    assert y is not x
    y[0] = 5
    assert x[0].item() == 5


def test_cuda_types_need_cuda(monkeypatch):
    monkeypatch.setattr(ng.legacy, "cuda_available", lambda: False)
    with pytest.raises(TypeError, match="torch.cuda.FloatTensor not available"):
        ng.cuda.FloatTensor(2)


def test_type_converts_by_class_name_or_dtype():
    x = ng.arange(3)
    assert x.type(ng.FloatTensor).dtype is ng.float32
    assert x.type("torch.DoubleTensor").dtype is ng.float64
    assert x.type(ng.float16).dtype is ng.float16
    assert x.type(ng.LongTensor) is x and x.type("torch.LongTensor") is x
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        x.type("foo")
    with pytest.raises(ValueError, match="invalid type: 'torch.FooTensor'"):
        x.type("torch.FooTensor")
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(3)


def test_legacy_types_expose_tensor_methods():
    assert ng.FloatTensor.abs_ is ng.Tensor.abs_


def test_set_default_tensor_type():
    with pytest.warns(UserWarning, match="deprecated"):
        ng.set_default_tensor_type(ng.DoubleTensor)
    assert ng.get_default_dtype() is ng.float64 and ng.Tensor(2).dtype is ng.float64
    ng.set_default_tensor_type("torch.FloatTensor")
    assert ng.get_default_dtype() is ng.float32
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        ng.set_default_tensor_type(ng.LongTensor)
    with pytest.raises(TypeError, match="invalid type object"):
        ng.set_default_tensor_type(ng.float64)


# ------------------------------------------------------------------ layouts
def test_layouts():
    assert repr(ng.strided) == "numgrad.strided" and repr(ng.sparse_coo) == "numgrad.sparse_coo"
    assert isinstance(ng.strided, ng.layout) and ng.strided != ng.sparse_coo
    assert ng.zeros(2).layout is ng.strided
    assert pickle.loads(pickle.dumps(ng.strided)) is ng.strided
    with pytest.raises(TypeError, match="cannot create"):
        ng.layout()


@pytest.mark.parametrize("call", ["zeros(2, layout=L)", "empty(2, layout=L)", "ones(2, layout=L)",
                                  "full((2,), 1.0, layout=L)", "arange(2, layout=L)", "rand(2, layout=L)",
                                  "zeros_like(ng.zeros(2), layout=L)", "eye(2, layout=L)"])
def test_factories_take_strided_and_refuse_sparse(call):
    assert eval(call, {"ng": ng, "L": ng.strided}, vars(ng)).layout is ng.strided
    with pytest.raises(RuntimeError, match="not implemented for sparse layout"):
        eval(call, {"ng": ng, "L": ng.sparse_coo}, vars(ng))
    with pytest.raises(TypeError, match="must be torch.layout, not str"):
        eval(call, {"ng": ng, "L": "strided"}, vars(ng))


# ------------------------------------------------------------------ storages
def test_typed_storage_sequence():
    a = ng.arange(6)
    s = a.storage()
    assert isinstance(s, ng.TypedStorage) and isinstance(s, ng.LongStorage)
    assert not isinstance(s, ng.FloatStorage)
    assert len(s) == s.size() == 6 and s.tolist() == list(s) == [0, 1, 2, 3, 4, 5]
    assert s[1] == 1 and s[-1] == 5
    assert s.dtype is ng.int64 and s.device == ng.device("cpu") and not s.is_cuda
    assert s.element_size() == 8 and s.nbytes() == 48 and s.data_ptr() == a.data_ptr()
    assert s.type() == "torch.LongStorage"
    assert repr(s) == (" 0\n 1\n 2\n 3\n 4\n 5\n"
                       "[numgrad.storage.TypedStorage(dtype=numgrad.int64, device=cpu) of size 6]")
    assert repr(ng.zeros(0).storage()) == \
        " \n[numgrad.storage.TypedStorage(dtype=numgrad.float32, device=cpu) of size 0]"
    for bad, exc in ((6, IndexError), (-7, IndexError), (slice(1, 3), RuntimeError), ("a", RuntimeError)):
        with pytest.raises(exc):
            s[bad]
    version = a._version
    s[1] = 100
    assert a.tolist() == [0, 100, 2, 3, 4, 5] and a._version > version
    assert a[2:].storage().size() == 6  # a view sees its whole storage
    assert s.float().tolist() == [0.0, 100.0, 2.0, 3.0, 4.0, 5.0] and s.float().dtype is ng.float32


def test_typed_storage_warns_once_it_is_deprecated():
    from numgrad import typed_storage
    typed_storage._warned[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ng.zeros(1).storage()
        ng.zeros(1).storage()
    assert [str(w.message)[:24] for w in caught] == ["TypedStorage is deprecat"]


def test_untyped_storage_is_bytes():
    a = ng.tensor([1, 256], dtype=ng.int32)
    u = a.untyped_storage()
    assert isinstance(u, ng.UntypedStorage) and u is a.untyped_storage()
    assert len(u) == u.nbytes() == u.size() == 8
    assert u.tolist() == [1, 0, 0, 0, 0, 1, 0, 0] and u[4] == 0 and u[5] == 1
    assert repr(u).endswith("[numgrad.storage.UntypedStorage(device=cpu) of size 8]")
    assert ng.IntTensor(u).tolist() == [1, 256]


def test_legacy_storage_constructors():
    s = ng.FloatStorage([1, 2])
    assert isinstance(s, ng.FloatStorage) and s.tolist() == [1.0, 2.0]
    assert ng.LongStorage(3).size() == 3 and ng.LongStorage.dtype is ng.int64
    assert repr(ng.FloatStorage) == "<class 'numgrad.FloatStorage'>"
    assert ng.FloatTensor(ng.FloatStorage([1, 2, 3])).tolist() == [1.0, 2.0, 3.0]


def test_tensor_from_storage_shares_memory():
    a = ng.arange(0, 6).float()
    b = a.view(2, 3)
    c = a[2:]
    d = ng.Tensor(c.storage())
    d[0] = 6666
    assert b[0, 0].item() == 6666 and d.storage_offset() == 0 and d.shape == (6,)
    a[5] = -1
    assert d[5].item() == -1
    assert d.untyped_storage() is a.untyped_storage()
    with pytest.raises(RuntimeError, match="Expected a Storage of type Float or an UntypedStorage, but got "
                                           "type Long for argument 1 'storage'"):
        ng.Tensor(ng.arange(3).storage())
    n = ng.arange(3)
    m = ng.LongTensor(n.storage())
    m[0] = 9
    assert n[0].item() == 9


def test_set_views_a_storage():
    x = ng.zeros(6)
    y = ng.zeros(1)
    assert y.set_(x.storage(), 1, (2, 2), (2, 1)) is y
    assert y.shape == (2, 2) and y.stride() == (2, 1) and y.storage_offset() == 1
    y[1, 1] = 5
    assert x.tolist() == [0, 0, 0, 0, 5, 0]
    assert ng.zeros(1).set_(x.storage()).shape == (6,)
    assert ng.zeros(1).set_(x[2:]).storage_offset() == 2
    assert ng.zeros(1).set_(x.untyped_storage(), 1, (2,)).shape == (2,)
    assert ng.zeros(1).set_().shape == (0,)
    with pytest.raises(RuntimeError, match="Expected a Storage of type float or an UntypedStorage"):
        ng.zeros(1).set_(ng.arange(3).storage(), 0, (2,))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        ng.zeros(1).set_(x.storage(), -1, (2,))
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        ng.zeros(1).set_(x.storage(), 5, (2,))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        ng.zeros(1, requires_grad=True).set_(x.storage())


# ------------------------------------------------------------------ against PyTorch
@needs_torch
@pytest.mark.parametrize("expr", ["arange(6).storage()", "tensor([1.5, -2.25]).storage()",
                                  "tensor([True, False]).storage()", "tensor([0.5]).half().storage()",
                                  "tensor([1, 2], dtype=T.int16).untyped_storage()", "strided", "sparse_coo",
                                  "FloatTensor", "cuda.LongTensor", "DoubleStorage", "arange(3).type()",
                                  "arange(3).type(T.FloatTensor)", "LongTensor([[1, 2]])", "layout"])
def test_prints_as_torch(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = repr(eval(expr, {"T": ng}, vars(ng))).replace("numgrad", "torch")
        theirs = repr(eval(expr, {"T": torch}, vars(torch)))
    assert ours == theirs


@needs_torch
@pytest.mark.parametrize("call", ["Tensor(T.arange(3).storage())", "FloatTensor('a')", "LongTensor(2.5)",
                                  "zeros(1).set_(T.arange(3).storage(), 0, (2,))", "arange(3).type('foo')",
                                  "set_default_tensor_type(T.LongTensor)", "layout()"])
def test_errors_as_torch(call):
    def error(mod):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                eval(call, {"T": mod}, vars(mod))
            except Exception as e:  # noqa: BLE001  (the point is to compare whatever is raised)
                return type(e).__name__, str(e).replace("numgrad", "torch")
        return None
    assert error(ng) == error(torch)
