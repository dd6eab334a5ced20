"""Word-level language model: Embedding + 2-layer LSTM + tied decoder, truncated BPTT."""
import math
import random

import torch
import torch.nn as nn

torch.manual_seed(0)
rng = random.Random(0)

VOCAB, EMB, BPTT, BATCH = 30, 16, 6, 4
# A synthetic corpus with structure: each token is usually followed by token + 1.
tokens = [0]
for _ in range(600):
    tokens.append((tokens[-1] + 1) % VOCAB if rng.random() < 0.8 else rng.randrange(VOCAB))
data = torch.tensor(tokens, dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


train_data = batchify(data[:480], BATCH)
val_data = batchify(data[480:], BATCH)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, ninp, nlayers, dropout=dropout)
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight
        self.nlayers = nlayers
        self.nhid = ninp
        self.init_weights()

    def init_weights(self):
        initrange = 1.0
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return torch.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


model = RNNModel(VOCAB, EMB, 2)
criterion = nn.NLLLoss()
print("parameters:", sum(p.numel() for p in model.parameters()))


def evaluate(source):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(BATCH)
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, BPTT):
            data, targets = get_batch(source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(source) - 1)


lr = 2.0
best_val = None
for epoch in range(1, 7):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(BATCH)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        data, targets = get_batch(train_data, i)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
    train_loss = total_loss / (batch + 1)
    val_loss = evaluate(val_data)
    print(f"epoch {epoch:2d} | lr {lr:.2f} | train loss {train_loss:.5f} | "
          f"valid loss {val_loss:.5f} | valid ppl {math.exp(val_loss):.5f}")
    if best_val is None or val_loss < best_val:
        best_val = val_loss
    else:
        lr /= 4.0
