"""Differentially private SGD on a small synthetic classification task: per-sample gradients
from torch.func (vmap of grad through functional_call), each clipped to norm 1, summed, noised
and averaged."""
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
n, d, classes = 256, 10, 3
centers = torch.randn(classes, d) * 0.6
y = torch.randint(0, classes, (n,))
x = centers[y] + torch.randn(n, d)
model = nn.Sequential(nn.Linear(d, 32), nn.Tanh(), nn.Linear(32, classes))
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_of(p, xi, yi):
    logits = functional_call(model, p, (xi.unsqueeze(0),))
    return nn.functional.cross_entropy(logits, yi.unsqueeze(0))


per_sample_grads = vmap(grad(loss_of), in_dims=(None, 0, 0))
clip, sigma, lr, batch = 1.0, 0.5, 0.5, 64
for epoch in range(5):
    perm = torch.randperm(n)
    for start in range(0, n, batch):
        idx = perm[start:start + batch]
        g = per_sample_grads(params, x[idx], y[idx])
        norms = torch.sqrt(sum(v.reshape(len(idx), -1).pow(2).sum(1) for v in g.values()))
        scale = (clip / (norms + 1e-6)).clamp(max=1.0)
        for k in params:
            s = scale.reshape((-1,) + (1,) * (g[k].dim() - 1))
            noisy = (g[k] * s).sum(0) + sigma * clip * torch.randn_like(params[k])
            params[k] = params[k] - lr * noisy / len(idx)
    with torch.no_grad():
        logits = functional_call(model, params, (x,))
        loss = nn.functional.cross_entropy(logits, y)
        accuracy = (logits.argmax(1) == y).float().mean()
    print(f"epoch {epoch}: loss {loss.item():.4f} accuracy {accuracy.item():.3f} "
          f"mean clipped norm {norms.clamp(max=clip).mean().item():.4f}")
