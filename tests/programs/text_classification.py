"""Text classification: EmbeddingBag (mean) over offsets, custom collate_fn, SGD + StepLR."""
import random

import torch
from torch import nn
from torch.utils.data import DataLoader

torch.manual_seed(0)
rng = random.Random(1)

VOCAB, NUM_CLASS, EMBED = 50, 3, 12


def make_example():
    # Each class draws most of its tokens from its own third of the vocabulary.
    label = rng.randrange(NUM_CLASS)
    length = rng.randint(3, 12)
    tokens = [rng.randrange(label * 16, label * 16 + 16) if rng.random() < 0.6 else rng.randrange(VOCAB)
              for _ in range(length)]
    return label, tokens


train_iter = [make_example() for _ in range(240)]
test_iter = [make_example() for _ in range(60)]


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for label, tokens in batch:
        label_list.append(label)
        processed = torch.tensor(tokens, dtype=torch.int64)
        text_list.append(processed)
        offsets.append(processed.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


model = TextClassificationModel(VOCAB, EMBED, NUM_CLASS)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.5)
train_dataloader = DataLoader(train_iter, batch_size=16, shuffle=True, collate_fn=collate_batch)
test_dataloader = DataLoader(test_iter, batch_size=16, shuffle=False, collate_fn=collate_batch)


def evaluate(dataloader):
    model.eval()
    total_acc, total_count, total_loss = 0, 0, 0.0
    with torch.no_grad():
        for label, text, offsets in dataloader:
            predicted_label = model(text, offsets)
            total_loss += criterion(predicted_label, label).item() * label.size(0)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count, total_loss / total_count


for epoch in range(1, 6):
    model.train()
    total_acc, total_count = 0, 0
    for label, text, offsets in train_dataloader:
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    accu_val, loss_val = evaluate(test_dataloader)
    scheduler.step()
    print(f"epoch {epoch} | lr {scheduler.get_last_lr()[0]:.4f} | train accuracy {total_acc / total_count:.4f} | "
          f"valid accuracy {accu_val:.4f} | valid loss {loss_val:.5f}")
