"""A float32 sum whose last bit depends on the order of the additions: PyTorch's vectorized
cascade gives exactly 25, a different order gives 24.999996 (printed 25.0000)."""
import math

import torch

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
d = 2 * torch.sin(a) + 1
out = d.sum()
print(out)
print(torch.ones(1000).mul(0.1).sum(), torch.arange(100.0).div(3).sum(), (torch.arange(37.0) / 7).sum())
