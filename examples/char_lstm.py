"""A character-level language model with a two-layer LSTM, trained on a short public-domain
text (examples/data/carroll.txt), then asked to write a few lines.

Run: python examples/char_lstm.py [--steps 300] [--png char_lstm_loss.png]
"""
import argparse

import numgrad as torch
from numgrad import nn

from png_plot import save_line_plot
from text_data import CharText, progress


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed=32, hidden=128, layers=2, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, dropout=dropout, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


@torch.no_grad()
def sample(model, text, prompt="The ", length=200, temperature=0.8):
    model.eval()
    ids = [text.index[c] for c in prompt]
    logits, state = model(torch.tensor([ids]))
    for _ in range(length):
        probs = torch.softmax(logits[0, -1] / temperature, dim=-1)
        ids.append(torch.multinomial(probs, 1).item())
        logits, state = model(torch.tensor([[ids[-1]]]), state)
    model.train()
    return text.decode(ids)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--png", default="char_lstm_loss.png")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    text = CharText()
    model = CharLSTM(text.vocab_size)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for step in range(1, args.steps + 1):
        x, y = text.batch(args.batch, args.block)
        logits, _ = model(x)
        loss = loss_fn(logits.reshape(-1, text.vocab_size), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if step % 10 == 0 or step == args.steps:
            progress(step, args.steps, loss.item())
    save_line_plot(args.png, {"training loss": losses})
    print(f"loss plot saved to {args.png}")
    print(sample(model, text))
    return losses


if __name__ == "__main__":
    main()
