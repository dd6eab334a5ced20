"""Device objects: where a tensor's storage lives ('cpu' or 'cuda:N')."""
from __future__ import annotations

__all__ = ["device", "set_default_device", "get_default_device"]


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

    # ``with numgrad.device('cuda'):`` makes it the default device for the block.
    def __enter__(self):
        _outer_defaults.append(_default_device)
        set_default_device(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        set_default_device(_outer_defaults.pop())
        return False


CPU = device("cpu")
_default_device = CPU
_outer_defaults = []  # the defaults that enclosing ``with device(...)`` blocks replaced


def set_default_device(device) -> None:
    """Sets the device factories allocate on when they are given ``device=None``.

    ``None`` restores the CPU. The device is not checked until a factory allocates on it."""
    global _default_device
    _default_device = CPU if device is None else as_device(device)


def get_default_device() -> device:
    """The device factories allocate on when they are given ``device=None``."""
    return _default_device


def as_device(value) -> device:
    """Normalise a device argument; None is the default device and a CUDA device without an
    index means the current device."""
    if value is None:
        return _default_device
    if isinstance(value, int):
        value = device("cuda", value)
    d = value if isinstance(value, device) else device(value)
    if d.type == "cpu":
        return CPU
    if d.index is None:
        d = device("cuda", 0)
    return d
