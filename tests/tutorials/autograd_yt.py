"""PyTorch "The Fundamentals of Autograd": sin graph, next_functions, a tiny model trained by SGD,
switching autograd off, detach, in-place on leaves, functional jacobian/vjp."""
import math

import torch

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a)
b = torch.sin(a)
print(b)
c = 2 * b
print(c)
d = c + 1
print(d)
out = d.sum()
print(out.detach().round(decimals=4), out.grad_fn)  # print(out): see sum_order.py

print('d:')
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
print('\nc:')
print(c.grad_fn)
print('\nb:')
print(b.grad_fn)
print('\na:')
print(a.grad_fn)

out.backward()
print(a.grad)
print(c.grad)

BATCH_SIZE = 4
DIM_IN = 12
HIDDEN_SIZE = 6
DIM_OUT = 3


class TinyModel(torch.nn.Module):

    def __init__(self):
        super(TinyModel, self).__init__()

        self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
        self.relu = torch.nn.ReLU()
        self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)

    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x


some_input = torch.linspace(-1, 1, BATCH_SIZE * DIM_IN).view(BATCH_SIZE, DIM_IN)
ideal_output = torch.linspace(0, 1, BATCH_SIZE * DIM_OUT).view(BATCH_SIZE, DIM_OUT)
model = TinyModel()
print(model)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).view(p.shape).cos() * (i + 1) / 10)
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad)

optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
prediction = model(some_input)
loss = (ideal_output - prediction).pow(2).sum()
print(loss)
loss.backward()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])
optimizer.step()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])
for i in range(0, 5):
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    loss.backward()
print(model.layer2.weight.grad[0][0:10])
optimizer.zero_grad(set_to_none=False)
print(model.layer2.weight.grad[0][0:10])
optimizer.zero_grad()
print(model.layer2.weight.grad)

a = torch.ones(2, 3, requires_grad=True)
print(a)
b1 = 2 * a
print(b1)
a.requires_grad = False
b2 = 2 * a
print(b2)

a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = a + b
print(c1)
with torch.no_grad():
    c2 = a + b
print(c2)
c3 = a * b
print(c3)


def add_tensors1(x, y):
    return x + y


@torch.no_grad()
def add_tensors2(x, y):
    return x + y


@torch.enable_grad()
def add_tensors3(x, y):
    return x + y


c1 = add_tensors1(a, b)
print(c1)
c2 = add_tensors2(a, b)
print(c2)
with torch.no_grad():
    c3 = add_tensors3(a, b)
print(c3)

x = torch.tensor([0.5345, 0.1485, 0.1025, 0.4849, 0.2943], requires_grad=True)
y = x.detach()
print(x)
print(y)
try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
try:
    torch.sin_(a)
except RuntimeError as e:
    print("RuntimeError:", e)

x = torch.tensor([0.1932, 1.5906, -0.5913], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.tensor([0.9773]), torch.tensor([0.8007]))
print(inputs)
print(torch.autograd.functional.jacobian(exp_adder, inputs))
inputs = (torch.tensor([0.5580, 0.7055, 0.4242]), torch.tensor([0.6580, 0.4605, 0.3707]))
print(inputs)
print(torch.autograd.functional.jacobian(exp_adder, inputs))


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


inputs = torch.tensor([0.3498, 1.0547, -1.5105])
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
print(torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients))
print(torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0])))
