"""``numgrad.utils``: interchange helpers and data loading, as ``torch.utils``."""
from . import data, dlpack  # noqa: F401
