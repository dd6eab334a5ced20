"""What a fresh install must do: tensors and views, a backward (also create_graph), forward
mode, an nn/optim training step and a save/load round trip. Prints where numgrad was imported
from, then "smoke ok"."""
import os
import sys
import tempfile

import numgrad as torch
from numgrad import nn
import numgrad.autograd.forward_ad as fwAD

print("numgrad", torch.__version__, "from", os.path.dirname(torch.__file__), "on Python", sys.version.split()[0])

x = torch.arange(6.0).view(2, 3)
assert x.t().stride() == (1, 3)
assert torch.equal((x * 2 + torch.ones(3)).sum(dim=1), torch.tensor([9.0, 27.0]))

w = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad((w ** 3).sum(), w, create_graph=True)
assert torch.equal(g, torch.tensor([3.0, 12.0]))
g.sum().backward()
assert torch.equal(w.grad, torch.tensor([6.0, 12.0]))

with fwAD.dual_level():
    dual = fwAD.make_dual(torch.tensor([0.5, 1.0]), torch.ones(2))
    tangent = fwAD.unpack_dual(torch.sin(dual)).tangent
assert torch.allclose(tangent, torch.cos(torch.tensor([0.5, 1.0])))

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data, target = torch.randn(16, 4), torch.randn(16, 1)
losses = []
for _ in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(data), target)
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < losses[0], losses

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pt")
    torch.save(model.state_dict(), path)
    clone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    clone.load_state_dict(torch.load(path))
assert torch.equal(clone(data), model(data))
print("smoke ok")
