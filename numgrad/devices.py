"""Device objects: where a tensor's storage lives ('cpu' or 'cuda:N')."""
from __future__ import annotations

__all__ = ["device"]


class device:
    """``numgrad.device('cpu')``, ``numgrad.device('cuda:0')`` or ``numgrad.device('cuda', 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device() expected a string or a device, got {type.__class__.__name__}")
        name = type
        if ":" in name:
            if index is not None:
                raise ValueError(f"type (string) must not include an index because index was passed explicitly: {name}")
            name, _, idx = name.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if name not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type = name
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")


def as_device(value) -> device:
    """Normalise a device argument; a CUDA device without an index means the current device."""
    if value is None:
        return CPU
    if isinstance(value, int):
        value = device("cuda", value)
    d = value if isinstance(value, device) else device(value)
    if d.type == "cpu":
        return CPU
    if d.index is None:
        d = device("cuda", 0)
    return d
