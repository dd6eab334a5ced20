"""Seq2seq GRU encoder / attention decoder with teacher forcing on a sequence-reversal task."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

random.seed(0)
torch.manual_seed(0)

SOS_token, EOS_token = 0, 1
N_SYMBOLS, MAX_LENGTH, HIDDEN = 8, 7, 24
teacher_forcing_ratio = 0.5


def random_pair():
    length = random.randint(2, MAX_LENGTH - 2)
    seq = [random.randrange(2, N_SYMBOLS) for _ in range(length)]
    return seq, seq[::-1]


def tensor_from_seq(seq):
    return torch.tensor(seq + [EOS_token], dtype=torch.long).view(-1, 1)


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        output, hidden = self.gru(embedded, hidden)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1, max_length=MAX_LENGTH):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attn = nn.Linear(hidden_size * 2, max_length)
        self.attn_combine = nn.Linear(hidden_size * 2, hidden_size)
        self.dropout = nn.Dropout(dropout_p)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input).view(1, 1, -1))
        attn_weights = F.softmax(self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1)
        attn_applied = torch.bmm(attn_weights.unsqueeze(0), encoder_outputs.unsqueeze(0))
        output = torch.cat((embedded[0], attn_applied[0]), 1)
        output = F.relu(self.attn_combine(output).unsqueeze(0))
        output, hidden = self.gru(output, hidden)
        output = F.log_softmax(self.out(output[0]), dim=1)
        return output, hidden, attn_weights


def train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    encoder_hidden = encoder.initHidden()
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    input_length, target_length = input_tensor.size(0), target_tensor.size(0)
    encoder_outputs = torch.zeros(MAX_LENGTH, encoder.hidden_size)
    loss = 0
    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)
        encoder_outputs[ei] = encoder_output[0, 0]
    decoder_input = torch.tensor([[SOS_token]])
    decoder_hidden = encoder_hidden
    use_teacher_forcing = random.random() < teacher_forcing_ratio
    for di in range(target_length):
        decoder_output, decoder_hidden, _ = decoder(decoder_input, decoder_hidden, encoder_outputs)
        loss += criterion(decoder_output, target_tensor[di])
        if use_teacher_forcing:
            decoder_input = target_tensor[di]
        else:
            topv, topi = decoder_output.topk(1)
            decoder_input = topi.squeeze().detach()
            if decoder_input.item() == EOS_token:
                break
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item() / target_length


def evaluate(encoder, decoder, seq):
    with torch.no_grad():
        input_tensor = tensor_from_seq(seq)
        encoder_hidden = encoder.initHidden()
        encoder_outputs = torch.zeros(MAX_LENGTH, encoder.hidden_size)
        for ei in range(input_tensor.size(0)):
            encoder_output, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)
            encoder_outputs[ei] += encoder_output[0, 0]
        decoder_input = torch.tensor([[SOS_token]])
        decoder_hidden = encoder_hidden
        decoded = []
        for _ in range(MAX_LENGTH):
            decoder_output, decoder_hidden, _ = decoder(decoder_input, decoder_hidden, encoder_outputs)
            topv, topi = decoder_output.data.topk(1)
            if topi.item() == EOS_token:
                break
            decoded.append(topi.item())
            decoder_input = topi.squeeze().detach()
        return decoded


encoder = EncoderRNN(N_SYMBOLS, HIDDEN)
decoder = AttnDecoderRNN(HIDDEN, N_SYMBOLS, dropout_p=0.1)
encoder_optimizer = optim.SGD(encoder.parameters(), lr=0.05)
decoder_optimizer = optim.SGD(decoder.parameters(), lr=0.05)
criterion = nn.NLLLoss()
pairs = [random_pair() for _ in range(80)]
for epoch in range(1, 4):
    encoder.train()
    decoder.train()
    total = 0.0
    for src, tgt in pairs:
        total += train(tensor_from_seq(src), tensor_from_seq(tgt), encoder, decoder,
                       encoder_optimizer, decoder_optimizer, criterion)
    print(f"epoch {epoch} average loss {total / len(pairs):.5f}")
encoder.eval()
decoder.eval()
for src, tgt in pairs[:3]:
    print(src, "->", evaluate(encoder, decoder, src), "expected", tgt)
