"""Chen Yun's book, ch. 3, "Tensor internals": storages shared by views, data_ptr offsets, a
tensor built on another's storage, set_, the legacy type objects and layouts."""
import warnings

import torch as t

warnings.simplefilter("ignore")  # TypedStorage is deprecated (the book predates that)

# The book's arange gave floats; today's gives int64.
a = t.arange(0, 6).float()
print(a.storage())
b = a.view(2, 3)
print(b.storage())
print(id(b.storage()) == id(a.storage()))
a[1] = 100
print(b)
c = a[2:]
print(c.storage())
print(c.data_ptr() - a.data_ptr())
c[0] = -100
print(a)
d = t.Tensor(c.storage())
d[0] = 6666
print(b)
print(id(a.storage()) == id(b.storage()) == id(c.storage()) == id(d.storage()))
print(a.storage_offset(), c.storage_offset(), d.storage_offset())
e = b[::2, ::2]
print(id(e.storage()) == id(a.storage()))
print(b.stride(), e.stride())
print(e.is_contiguous())

# The storage as a sequence, and as raw bytes.
s = a.storage()
print(len(s), s[1], s[-1], s.tolist(), s.dtype, s.device, s.size(), s.element_size(), s.nbytes())
print(s.data_ptr() == a.data_ptr(), s.type(), isinstance(s, t.FloatStorage), isinstance(s, t.LongStorage))
s[0] = 7
print(a)
u = a.untyped_storage()
print(len(u), u.nbytes(), u[3], u.tolist()[:8])
print(t.arange(3).storage())
print(t.tensor([True, False]).storage())
print(t.tensor([0.1, -2.5]).double().storage())

# A storage of another dtype is refused; a tensor of that dtype shares it.
n = t.arange(0, 6)
try:
    t.Tensor(n.storage())
except RuntimeError as err:
    print("RuntimeError:", err)
m = t.LongTensor(n.storage())
m[5] = -1
print(n)

# set_ views a storage with any offset, size and stride.
x = t.zeros(1)
x.set_(a.storage(), 1, (2, 2), (2, 1))
print(x)
x[0, 0] = 42
print(a)

# The legacy type objects.
print(t.FloatTensor, t.cuda.DoubleTensor, t.FloatTensor.dtype, t.LongTensor.is_cuda)
print(t.FloatTensor(2, 3).shape, t.LongTensor([1, 2]), t.ByteTensor([1, 0]), t.BoolTensor([1, 0]))
print(t.DoubleTensor([[1, 2]]), t.IntTensor(t.Size([0])), t.HalfTensor([0.5]))
print(isinstance(a, t.FloatTensor), isinstance(a, t.DoubleTensor), isinstance(a, t.Tensor))
print(a.type(), a.type(t.DoubleTensor).type(), a.type('torch.IntTensor'))
print(a.type(t.FloatTensor) is a)
for bad in ("a", 2.5):
    try:
        t.LongTensor(bad)
    except TypeError as err:
        print("TypeError:", err)
t.set_default_tensor_type(t.DoubleTensor)
print(t.Tensor([1, 2]).dtype, t.get_default_dtype())
t.set_default_tensor_type('torch.FloatTensor')
print(t.Tensor([1, 2]).dtype)

# Layouts.
print(a.layout, t.strided, t.sparse_coo, a.layout == t.strided, type(t.strided))
print(t.zeros(2, layout=t.strided))
