"""The character-level text set the language-model examples train on: Lewis Carroll's
"Jabberwocky" and "The Walrus and the Carpenter" (public domain), shipped in examples/data."""
import pathlib

import numgrad as torch

TEXT_PATH = pathlib.Path(__file__).resolve().parent / "data" / "carroll.txt"


class CharText:
    """The text as a tensor of character ids, with the vocabulary to encode and decode."""

    def __init__(self, path=TEXT_PATH):
        self.text = pathlib.Path(path).read_text()
        self.chars = sorted(set(self.text))
        self.index = {c: i for i, c in enumerate(self.chars)}
        self.data = torch.tensor([self.index[c] for c in self.text], dtype=torch.long)

    @property
    def vocab_size(self):
        return len(self.chars)

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)

    def batch(self, batch_size, block_size, generator=None):
        """``batch_size`` random windows of ``block_size`` characters and the characters that
        follow each one (the targets)."""
        starts = torch.randint(len(self.data) - block_size - 1, (batch_size,), generator=generator)
        x = torch.stack([self.data[s:s + block_size] for s in starts.tolist()])
        y = torch.stack([self.data[s + 1:s + block_size + 1] for s in starts.tolist()])
        return x, y


def progress(step, steps, loss, width=30):
    """One line of a text progress bar, redrawn in place."""
    filled = width * step // steps
    bar = "=" * filled + "." * (width - filled)
    end = "\n" if step == steps else ""
    print(f"\rstep {step:4d}/{steps} [{bar}] loss {loss:.4f}", end=end, flush=True)
