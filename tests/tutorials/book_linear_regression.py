"""Chen Yun's book: linear regression three ways (manual gradients, autograd, optim + MSELoss),
with deterministic noisy data in place of the random generator."""
import numpy as np
import torch as t
from torch import nn
from torch import optim

device = t.device('cpu')


def get_fake_data(batch_size=8, step=[0]):
    step[0] += 1
    x = (t.arange(batch_size, dtype=t.float32).view(batch_size, 1) * 0.37 + step[0] * 0.11) % 5
    y = x * 2 + 3 + t.sin(x * 7 + step[0]) * 0.5
    return x.to(device), y.to(device)


w = t.full((1, 1), 0.5).to(device)
b = t.zeros(1, 1).to(device)
lr = 0.02
for ii in range(200):
    x, y = get_fake_data(batch_size=4)
    y_pred = x.mm(w) + b.expand_as(y)
    loss = 0.5 * (y_pred - y) ** 2
    loss = loss.mean()
    dloss = 1
    dy_pred = dloss * (y_pred - y)
    dw = x.t().mm(dy_pred)
    db = dy_pred.sum()
    w.sub_(lr * dw)
    b.sub_(lr * db)
    if ii % 50 == 0:
        xs = t.arange(0, 6).view(-1, 1).to(device)
        ys = xs.mm(w) + b.expand_as(xs) if xs.dtype == w.dtype else xs.float().mm(w) + b.expand_as(xs)
        print(xs.cpu().numpy().shape, ys.cpu().numpy().shape)
print('w: ', round(w.item(), 3), 'b: ', round(b.item(), 3))

w = t.full((1, 1), 0.5, requires_grad=True)
b = t.zeros(1, 1, requires_grad=True)
losses = np.zeros(200)
for ii in range(200):
    x, y = get_fake_data(batch_size=8)
    y_pred = x.mm(w) + b.expand_as(y)
    loss = 0.5 * (y_pred - y) ** 2
    loss = loss.sum()
    losses[ii] = loss.item()
    loss.backward()
    w.data.sub_(0.005 * w.grad.data)
    b.data.sub_(0.005 * b.grad.data)
    w.grad.data.zero_()
    b.grad.data.zero_()
    if ii % 50 == 0:
        print(round(w.item(), 3), round(b.item(), 3))
print(round(w.item(), 3), round(b.item(), 3), round(float(losses[-1]), 3))

w = t.full((1, 1), 0.5, requires_grad=True)
b = t.zeros(1, 1, requires_grad=True)
opt = optim.SGD([w, b], lr=0.02)
loss_func = nn.MSELoss()
for ii in range(300):
    x, y = get_fake_data(batch_size=8)
    y_pred = x.mm(w) + b.expand_as(y)
    loss = loss_func(y_pred, y)
    losses[ii % 200] = loss.item()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.grad_fn, w.grad.shape, b.grad.shape)
print(round(w.item(), 2), round(b.item(), 2))
