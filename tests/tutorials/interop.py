"""Around the tutorials: NumPy conversion as matplotlib does it, save/load with map_location,
reproducible seeding, the legacy Variable wrapper and the profiler's use_cuda flag."""
import os
import tempfile

import numpy as np
import torch
from torch.autograd import Variable

a = torch.linspace(0., 1., steps=5, requires_grad=True)
print(np.asarray(a.detach()), np.asarray(a.detach()).dtype)
try:
    a.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(np.array(torch.tensor([[1, 2], [3, 4]])), torch.tensor([1.5]).numpy().dtype)
print(a.detach().numpy().tolist() == a.tolist(), a.tolist())

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 'a.pth')
    x = torch.arange(6.0).view(2, 3)
    torch.save(x, path)
    print(torch.load(path))
    print(torch.load(path, map_location=lambda storage, loc: storage))
    print(torch.load(path, map_location='cpu').shape)
    torch.save({'w': x, 'step': 3}, path)
    print(torch.load(path))

torch.manual_seed(1000)
r1 = torch.rand(3)
torch.manual_seed(1000)
r2 = torch.rand(3)
print(torch.equal(r1, r2), bool((r1 >= 0).all() and (r1 < 1).all()))

v = Variable(torch.ones(2), requires_grad=True)
print(v, isinstance(v, torch.Tensor))
(v * 3).sum().backward()
print(v.grad)

x = torch.ones(2, 3, requires_grad=True)
with torch.autograd.profiler.profile(use_cuda=False) as prf:
    y = (x * 2).sum()
print(type(prf.key_averages().table()).__name__)

a = torch.tensor([1.0, float('nan'), float('inf'), 2.0])
b = torch.tensor([1.0, float('nan'), float('inf'), 2.0001])
print(torch.isclose(a, b), torch.isclose(a, b, equal_nan=True), torch.allclose(a, a), torch.equal(a, a))
print(torch.allclose(a[:1], b[:1] + 1e-9), a[3:].isclose(b[3:], rtol=1e-3), torch.equal(a[:1], a[:1].long()))
