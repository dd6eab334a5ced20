"""The function tables of Dive into DL 2.2 and Chen Yun's book: creation, selection, linear
algebra and in-place forms, on fixed data; random factories are checked by shape and dtype."""
import torch

print(torch.Tensor(2, 3).shape, torch.tensor([[1, 2], [3, 4]]))
print(torch.ones(2, 3), torch.zeros(2, 3), torch.eye(3), torch.eye(2, 3))
print(torch.arange(1, 4, 0.5), torch.linspace(-1, 1, 5), torch.arange(5, dtype=torch.float64))
print(torch.rand(2, 3).shape, torch.randn(2, 3, dtype=torch.float64).dtype)
print(torch.normal(0.0, 1.0, size=(2, 2)).shape, torch.normal(torch.zeros(3), torch.ones(3)).shape)
print(torch.empty(3).uniform_(2, 3).shape, sorted(torch.randperm(6).tolist()), torch.randperm(3).dtype)
print(torch.randint(0, 10, (2, 3)).dtype, torch.full((2, 2), 7), torch.full((2,), 1.5))

x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
print(torch.index_select(x, 0, torch.tensor([1, 0])), x.index_select(1, torch.tensor([2])))
print(torch.masked_select(x, x > 0), x[x > 0], x[x < 0])
print(torch.nonzero(x > 0), torch.nonzero(torch.tensor([0, 1, 0, 2])))
print(torch.gather(x, 1, torch.tensor([[2, 0], [1, 1]])), x.gather(0, torch.tensor([[1, 0, 1]])))
print(x.abs_(), x)

m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
b3 = torch.arange(8.0).view(2, 2, 2)
print(torch.trace(m), torch.diag(m), torch.diag(torch.tensor([1.0, 2.0])), torch.triu(m, 1), torch.tril(m))
print(torch.mm(m, m), torch.bmm(b3, b3), torch.matmul(m, torch.tensor([1.0, 1.0])), m @ m)
print(torch.addmm(m, m, m, beta=0.5, alpha=2), torch.addbmm(m, b3, b3), torch.baddbmm(b3, b3, b3))
print(torch.addmv(torch.ones(2), m, torch.tensor([1.0, -1.0])), torch.addr(m, torch.ones(2), torch.ones(2)))
print(m.t(), torch.dot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print(torch.cross(torch.tensor([[1.0, 0.0, 0.0]]), torch.tensor([[0.0, 1.0, 0.0]]), dim=1))
print(torch.inverse(torch.tensor([[2.0, 0.0], [0.0, 4.0]])), torch.det(m))
u, s, v = torch.svd(torch.tensor([[3.0, 0.0], [0.0, 2.0]]))
print(s, u.abs(), v.abs())
y = m.clone()
y.t_()
print(y, y.is_contiguous())
y.copy_(torch.tensor([5, 6]))
print(y)
print(m.expand(2, 2, 2).shape, m.narrow(1, 1, 1), m.repeat(1, 2), m.unsqueeze(0).expand_as(b3).shape)
try:
    torch.device('gpu')
except RuntimeError as e:
    print("RuntimeError:", str(e).endswith("device type at start of device string: gpu"))
try:
    m.view(3)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    m + torch.ones(3)
except RuntimeError as e:
    print("RuntimeError:", e)
