"""A convolutional variational autoencoder on a small synthetic image set (16x16 pictures of
bright squares and discs), trained for a few epochs; saves its loss curve and a grid of new
images decoded from random latent codes.

Run: python examples/vae.py [--epochs 8] [--png vae_samples.png]
"""
import argparse

import numpy as np

import numgrad as torch
from numgrad import nn
from numgrad.nn import functional as F
from numgrad.utils.data import DataLoader, TensorDataset

from png_plot import save_line_plot, write_png

SIZE = 16


def make_shapes(n, seed=0):
    """``n`` images of one square or disc each, at a random place and size."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:SIZE, :SIZE]
    images = np.zeros((n, 1, SIZE, SIZE), np.float32)
    for img in images:
        r = rng.integers(2, 5)
        cy, cx = rng.integers(r, SIZE - r, size=2)
        if rng.random() < 0.5:
            img[0] = (abs(yy - cy) <= r) & (abs(xx - cx) <= r)
        else:
            img[0] = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    return torch.from_numpy(images)


class VAE(nn.Module):
    def __init__(self, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 4, 2, 1), nn.ReLU(), nn.Flatten(),
            nn.Linear(32 * 4 * 4, 2 * latent))
        self.decoder = nn.Sequential(
            nn.Linear(latent, 32 * 4 * 4), nn.ReLU(), nn.Unflatten(1, (32, 4, 4)),
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 1, 4, 2, 1))
        self.latent = latent

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decoder(z), mu, logvar


def loss_fn(logits, x, mu, logvar):
    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum()
    return (reconstruction + kl) / x.shape[0]


def save_grid(images, path, rows=4):
    """Tiles (N, 1, H, W) images in [0, 1] into one greyscale PNG, scaled up 4x."""
    n = images.shape[0]
    cols = -(-n // rows)
    grid = np.zeros((rows * (SIZE + 2), cols * (SIZE + 2)), np.float32)
    for i, img in enumerate(images):
        r, c = divmod(i, cols)
        grid[r * (SIZE + 2) + 1:r * (SIZE + 2) + 1 + SIZE, c * (SIZE + 2) + 1:c * (SIZE + 2) + 1 + SIZE] = img[0]
    grid = np.kron(grid, np.ones((4, 4), np.float32))
    write_png(path, np.repeat((grid * 255).astype(np.uint8)[..., None], 3, axis=2))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--png", default="vae_samples.png")
    parser.add_argument("--loss-png", default="vae_loss.png")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(make_shapes(args.samples)), batch_size=64, shuffle=True)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    losses = []
    for epoch in range(1, args.epochs + 1):
        total = 0.0
        for (x,) in loader:
            logits, mu, logvar = model(x)
            loss = loss_fn(logits, x, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.shape[0]
        losses.append(total / args.samples)
        print(f"epoch {epoch:2d}/{args.epochs}  loss per image {losses[-1]:.2f}")
    with torch.no_grad():
        samples = torch.sigmoid(model.decoder(torch.randn(16, model.latent))).numpy()
    save_grid(samples, args.png)
    save_line_plot(args.loss_png, {"loss per image": losses})
    print(f"samples saved to {args.png}, loss curve to {args.loss_png}")
    return losses


if __name__ == "__main__":
    main()
