"""The classic two-convolution image classifier of PyTorch's tutorials, on random CIFAR-sized
images (2 epochs of 64 batches of 4): a program written for PyTorch, as first_run.py times it
(run with numgrad by ``python -m numgrad.compat``)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
images = torch.randn(256, 3, 32, 32)
labels = torch.randint(0, 10, (256,))
for epoch in range(2):
    running_loss = 0.0
    for i in range(0, 256, 4):
        inputs, targets = images[i:i + 4], labels[i:i + 4]
        optimizer.zero_grad()
        loss = criterion(net(inputs), targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(f"[{epoch + 1}] loss: {running_loss / 64:.3f}")
with torch.no_grad():
    correct = (net(images).argmax(1) == labels).sum().item()
print(f"accuracy: {correct / 256:.2f}")
