"""Seeded random numbers: after manual_seed, the factories, layer initialisation, shuffling
DataLoaders, random_split and dropout give PyTorch's numbers."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
x = torch.rand(5, 3)
print(x)
print(torch.randn_like(x, dtype=torch.float))
print(torch.randn(1), torch.randn(2, 2))
print(torch.randint(0, 10, (2, 5)), torch.randperm(10))
print(torch.randn(4, 5, dtype=torch.float64), torch.randn(2, 8))
print(torch.empty(3, 4).uniform_(-1, 1), torch.empty(2, 3).normal_(2.0, 0.5))
print(torch.bernoulli(torch.full((2, 6), 0.3)), torch.empty(8, dtype=torch.int32).random_(100))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 8, replacement=True), torch.empty(3).exponential_())

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
print(model[0].weight, model[0].bias, model[2].weight, sep="\n")
conv = nn.Conv2d(1, 2, 3)
print(conv.weight.flatten(), conv.bias)
print(nn.init.xavier_uniform_(torch.empty(2, 3)), nn.init.kaiming_normal_(torch.empty(2, 3)))

torch.manual_seed(2)
data = TensorDataset(torch.arange(10))
for epoch in range(2):
    print([batch[0].tolist() for batch in DataLoader(data, batch_size=4, shuffle=True)])
print([list(part.indices) for part in random_split(data, [3, 7])])
print(nn.functional.dropout(torch.ones(12), 0.5), nn.Dropout(0.25)(torch.ones(2, 4)))
