"""Variational autoencoder with fully-connected layers on synthetic binary 8x8 images."""
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)

# Images in [0, 1]: horizontal or vertical stripes with noise.
n = 128
stripes = torch.zeros(n, 8, 8)
stripes[: n // 2, :, ::2] = 0.9
stripes[n // 2:, ::2, :] = 0.9
images = (stripes + 0.1 * torch.rand(n, 8, 8)).clamp(0, 1)
loader = DataLoader(TensorDataset(images, torch.zeros(n)), batch_size=32, shuffle=True)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


for epoch in range(1, 6):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(loader.dataset):.5f}")
    model.eval()
    with torch.no_grad():
        recon, mu, logvar = model(images[:16])
        test_loss = loss_function(recon, images[:16], mu, logvar).item() / 16
        sample = model.decode(torch.randn(4, 4)).view(4, 1, 8, 8)
    print(f"====> Test set loss: {test_loss:.5f} sample mean {sample.mean().item():.5f}")
