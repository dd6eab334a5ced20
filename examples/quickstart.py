"""Tensor basics: creation, views that share memory, broadcasting, the NumPy round trip and
printing. Written against the PyTorch API: swap the import for ``import torch`` and the output
is the same."""
import numpy as np

import numgrad as torch

# Creation ------------------------------------------------------------------------------------
x = torch.zeros(5, 3, dtype=torch.long)
print(x)
x = torch.tensor([5.5, 3])
print(x)
x = x.new_ones(5, 3, dtype=torch.float64)  # new_* keeps the dtype and device unless told
print(x)
print(x.size())
print(x.shape)
print(torch.arange(1, 3), torch.linspace(0, 1, 5), torch.eye(2))
print(torch.full((2, 2), 7), torch.ones(2, 3, dtype=torch.bool))

# Arithmetic: operators, functions, out= and in-place forms ------------------------------------
x = torch.arange(15.0).view(5, 3)
y = torch.ones(5, 3) / 4
print(x + y)
print(torch.add(x, y))
result = torch.empty(5, 3)
torch.add(x, y, out=result)
print(result)
y.add_(x)  # in-place ops end in an underscore
print(y)
print(x.sum(), x.mean(dim=0), x.amax(dim=1, keepdim=True))

# Views share memory with the tensor they come from ---------------------------------------------
y = x[0, :]
y += 1
print(y)
print(x[0, :])  # changed too
y = x.view(15)
z = x.view(-1, 5)  # -1 is inferred from the other dims
print(x.size(), y.size(), z.size())
x += 1
print(x)
print(y)  # also incremented: same storage
x_cp = x.clone().view(15)  # clone first for an independent copy
x -= 1
print(x)
print(x_cp)
t = x.t()
print(t.shape, t.stride(), t.is_contiguous(), t.contiguous().is_contiguous())
print(x[1:4:2, ::2])
print(x.unsqueeze(0).expand(2, 5, 3).stride())  # expanded dims have stride 0: no copy

# Scalars -------------------------------------------------------------------------------------
x = torch.tensor([2.5])
print(x)
print(x.item())

# Broadcasting ----------------------------------------------------------------------------------
x = torch.arange(1, 3).view(1, 2)
print(x)
y = torch.arange(1, 4).view(3, 1)
print(y)
print(x + y)
print(x * 0.5)  # an integer tensor times a Python float is a float tensor

# In-place updates keep the same object ----------------------------------------------------------
x = torch.tensor([1, 2])
y = torch.tensor([3, 4])
id_before = id(y)
y[:] = y + x
print(id(y) == id_before)
torch.add(x, y, out=y)
print(id(y) == id_before)
y += x
print(id(y) == id_before, y)

# The NumPy round trip ---------------------------------------------------------------------------
a = torch.ones(5)
b = a.numpy()  # shares memory
print(a, b)
a += 1
print(a, b)
a = np.ones(5)
b = torch.from_numpy(a)  # shares memory too
c = torch.tensor(a)  # always copies
a += 1
print(a, b, c)

# Printing -------------------------------------------------------------------------------------
print(torch.tensor([[1e-5, 1.0], [100.0, 2.0]]))
print(torch.tensor([1e10, 1.0]))
print(torch.tensor([1.0, float("nan"), float("inf")]))
print(torch.arange(2000.0))
print(torch.tensor(3, dtype=torch.int16), torch.tensor([True, False]))

# Devices ---------------------------------------------------------------------------------------
if torch.cuda.is_available():
    device = torch.device("cuda")
    y = torch.ones(5, device=device)
    print((torch.ones(5).to(device) + y).to("cpu", torch.double))
print(torch.ones(2).to("cpu", torch.double).device)
