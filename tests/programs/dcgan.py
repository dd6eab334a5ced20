"""DCGAN on synthetic 16x16 single-channel images (blurred blobs)."""
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(999)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

nz, ngf, ndf, nc, batch_size = 8, 8, 8, 1, 16

# Real images: a bright square at a random place over a dark background, scaled to [-1, 1].
real_images = -torch.ones(64, nc, 16, 16)
corners = torch.randint(0, 10, (64, 2))
for k in range(64):
    r, c = corners[k].tolist()
    real_images[k, :, r:r + 6, c:c + 6] = 1.0


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG = Generator().to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)
print(netD)

criterion = nn.BCELoss()
fixed_noise = torch.randn(4, nz, 1, 1, device=device)
real_label, fake_label = 1., 0.
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))

for epoch in range(3):
    for i in range(0, real_images.size(0), batch_size):
        netD.zero_grad()
        real_cpu = real_images[i:i + batch_size].to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(b_size, nz, 1, 1, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()

        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        print(f"[{epoch}/3][{i // batch_size}] Loss_D: {errD.item():.5f} Loss_G: {errG.item():.5f} "
              f"D(x): {D_x:.5f} D(G(z)): {D_G_z1:.5f} / {D_G_z2:.5f}")

with torch.no_grad():
    fake = netG(fixed_noise).detach().cpu()
print("fixed noise samples:", tuple(fake.shape), f"mean {fake.mean().item():.5f} std {fake.std().item():.5f}")
