"""A small ResNet on synthetic 3x16x16 images: SGD momentum + weight decay, CosineAnnealingLR."""
import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = 'cuda' if torch.cuda.is_available() else 'cpu'
if device == 'cuda':
    cudnn.benchmark = True
torch.backends.cudnn.benchmark = True

# Class k: a colour channel k brighter than the others, plus noise.
n = 96
labels = torch.arange(n) % 3
images = 0.5 * torch.randn(n, 3, 16, 16)
images[torch.arange(n), labels] += 0.7
train_loader = DataLoader(TensorDataset(images[:72], labels[:72]), batch_size=24, shuffle=True)
test_loader = DataLoader(TensorDataset(images[72:], labels[72:]), batch_size=24, shuffle=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=3):
        super().__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.linear = nn.Linear(16 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for s in strides:
            layers.append(block(self.in_planes, planes, s))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        out = torch.flatten(self.avgpool(out), 1)
        return self.linear(out)


net = ResNet(BasicBlock, [1, 1]).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
print("parameters:", sum(p.numel() for p in net.parameters() if p.requires_grad))

for epoch in range(4):
    net.train()
    train_loss, correct, total = 0.0, 0, 0
    for inputs, targets in train_loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    net.eval()
    test_loss, test_correct, test_total = 0.0, 0, 0
    with torch.no_grad():
        for inputs, targets in test_loader:
            outputs = net(inputs)
            test_loss += criterion(outputs, targets).item()
            test_correct += outputs.argmax(1).eq(targets).sum().item()
            test_total += targets.size(0)
    scheduler.step()
    print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.5f} | train loss {train_loss / len(train_loader):.5f} "
          f"acc {100. * correct / total:.3f}% | test loss {test_loss / len(test_loader):.5f} "
          f"acc {100. * test_correct / test_total:.3f}%")
