"""``numgrad.utils``: activation checkpointing, interchange helpers and data loading, as
``torch.utils``."""
from . import checkpoint, data, dlpack  # noqa: F401
