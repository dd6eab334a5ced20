"""Chen Yun's book: linear regression three ways (manual gradients, autograd, optim + MSELoss) on
the generator's noisy data, seeded as the book seeds it; the plotting is left out."""
import numpy as np
import torch as t
from torch import nn
from torch import optim

device = t.device('cpu')

# 设置随机数种子，保证在不同电脑上运行时下面的输出一致
t.manual_seed(1000)


def get_fake_data(batch_size=8):
    ''' 产生随机数据：y=x*2+3，加上了一些噪声'''
    x = t.rand(batch_size, 1, device=device) * 5
    y = x * 2 + 3 + t.randn(batch_size, 1, device=device)
    return x, y


# 随机初始化参数
w = t.rand(1, 1).to(device)
b = t.zeros(1, 1).to(device)
lr = 0.02  # 学习率
for ii in range(500):
    x, y = get_fake_data(batch_size=4)
    # forward：计算loss
    y_pred = x.mm(w) + b.expand_as(y)
    loss = 0.5 * (y_pred - y) ** 2  # 均方误差
    loss = loss.mean()
    # backward：手动计算梯度
    dloss = 1
    dy_pred = dloss * (y_pred - y)
    dw = x.t().mm(dy_pred)
    db = dy_pred.sum()
    # 更新参数
    w.sub_(lr * dw)
    b.sub_(lr * db)
    if ii % 50 == 0:
        x = t.arange(0, 6).view(-1, 1).to(device)
        x2, y2 = get_fake_data(batch_size=32)
print('w: ', w.item(), 'b: ', b.item())

# Printed rounded from here: a float32 sum of 32 terms may differ from PyTorch's in its last bit.
# The book's learning rate is too large for a summed loss: both libraries diverge alike.
w = t.rand(1, 1, requires_grad=True)
b = t.zeros(1, 1, requires_grad=True)
losses = np.zeros(500)
for ii in range(500):
    x, y = get_fake_data(batch_size=32)
    y_pred = x.mm(w) + b.expand_as(y)
    loss = 0.5 * (y_pred - y) ** 2
    loss = loss.sum()
    losses[ii] = loss.item()
    loss.backward()
    w.data.sub_(lr * w.grad.data)
    b.data.sub_(lr * b.grad.data)
    w.grad.data.zero_()
    b.grad.data.zero_()
    if ii % 100 == 0:
        print(round(w.item(), 4), round(b.item(), 4))
        x2, y2 = get_fake_data(batch_size=20)
print(w.item(), b.item(), np.isfinite(losses).sum())

w = t.rand(1, 1, requires_grad=True)
b = t.zeros(1, 1, requires_grad=True)
lr = 0.0005  # 学习率不能太大
losses = np.zeros(500)
opt = optim.SGD([w, b], lr=lr)
loss_func = nn.MSELoss()
for ii in range(500):
    x, y = get_fake_data(batch_size=32)
    y_pred = x.mm(w) + b.expand_as(y)
    loss = loss_func(y_pred, y)
    losses[ii] = loss.item()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if ii % 100 == 0:
        print(round(w.item(), 4), round(b.item(), 4))
        x2, y2 = get_fake_data(batch_size=20)
print(loss.grad_fn, w.grad.shape, b.grad.shape)
print(round(w.item(), 4), round(b.item(), 4), round(float(losses[-1]), 4))
