"""Character-level name classifier: GRU over packed, unsorted-length sequences, Adam."""
import random
import string

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

torch.manual_seed(0)
rng = random.Random(7)

all_letters = string.ascii_lowercase
n_letters = len(all_letters)
# Three synthetic "languages", each with its own favourite letters and endings.
styles = [("aeiou", "o"), ("kstr", "sk"), ("lmnb", "ni")]


def make_name(category):
    favourite, ending = styles[category]
    length = rng.randint(2, 6)
    letters = [rng.choice(favourite) if rng.random() < 0.7 else rng.choice(all_letters) for _ in range(length)]
    return "".join(letters) + ending


def name_to_indices(name):
    return torch.tensor([all_letters.index(c) for c in name], dtype=torch.long)


data = [(make_name(c), c) for c in [rng.randrange(3) for _ in range(180)]]


class NameClassifier(nn.Module):
    def __init__(self, n_letters, emb, hidden, n_categories):
        super().__init__()
        self.embed = nn.Embedding(n_letters, emb)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_categories)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(self.embed(padded), lengths, batch_first=True, enforce_sorted=False)
        _, h_n = self.rnn(packed)
        return self.head(h_n[-1])


model = NameClassifier(n_letters, 8, 16, 3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)


def batches(items, size):
    for start in range(0, len(items), size):
        chunk = items[start:start + size]
        seqs = [name_to_indices(name) for name, _ in chunk]
        lengths = torch.tensor([len(s) for s in seqs])
        yield pad_sequence(seqs, batch_first=True), lengths, torch.tensor([c for _, c in chunk])


for epoch in range(1, 5):
    rng.shuffle(data)
    model.train()
    total_loss, correct = 0.0, 0
    for padded, lengths, labels in batches(data[:150], 25):
        optimizer.zero_grad()
        logits = model(padded, lengths)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * labels.size(0)
        correct += (logits.argmax(dim=1) == labels).sum().item()
    model.eval()
    with torch.no_grad():
        padded, lengths, labels = next(batches(data[150:], 30))
        val_acc = (model(padded, lengths).argmax(1) == labels).float().mean().item()
    print(f"epoch {epoch} loss {total_loss / 150:.5f} train acc {correct / 150:.4f} val acc {val_acc:.4f}")
