"""Dive into DL 2.2: creating tensors, arithmetic, indexing, views, broadcasting, NumPy."""
import numpy as np
import torch

x = torch.empty(5, 3)
print(x.shape, x.dtype)
x = torch.zeros(5, 3, dtype=torch.long)
print(x)
x = torch.tensor([5.5, 3])
print(x)
x = x.new_ones(5, 3, dtype=torch.float64)
print(x)
x = torch.randn_like(x, dtype=torch.float)
print(x.dtype, x.shape)
print(x.size())
print(x.shape)

x = torch.arange(15.0).view(5, 3) / 7 - 1
y = torch.arange(15.0).view(5, 3).flip(0) / 5
print(x + y)
print(torch.add(x, y))
result = torch.empty(5, 3)
torch.add(x, y, out=result)
print(result)
y.add_(x)
print(y)

y = x[0, :]
y += 1
print(y)
print(x[0, :])

y = x.view(15)
z = x.view(-1, 5)
print(x.size(), y.size(), z.size())
x += 1
print(x)
print(y)
x_cp = x.clone().view(15)
x -= 1
print(x)
print(x_cp)

x = torch.tensor([2.3466382026672363])
print(x)
print(x.item())

x = torch.arange(1, 3).view(1, 2)
print(x)
y = torch.arange(1, 4).view(3, 1)
print(y)
print(x + y)

x = torch.tensor([1, 2])
y = torch.tensor([3, 4])
id_before = id(y)
y = y + x
print(id(y) == id_before)
x = torch.tensor([1, 2])
y = torch.tensor([3, 4])
id_before = id(y)
y[:] = y + x
print(id(y) == id_before)
x = torch.tensor([1, 2])
y = torch.tensor([3, 4])
id_before = id(y)
torch.add(x, y, out=y)
print(id(y) == id_before, y)

a = torch.ones(5)
b = a.numpy()
print(a, b)
a += 1
print(a, b)
b += 1
print(a, b)

a = np.ones(5)
b = torch.from_numpy(a)
print(a, b)
a += 1
print(a, b)
b += 1
print(a, b)
c = torch.tensor(a)
a += 1
print(a, c)

if torch.cuda.is_available():
    print("cuda")
x = torch.ones(2, 2)
print(x.to("cpu", torch.double))
