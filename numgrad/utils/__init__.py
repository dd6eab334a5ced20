"""``numgrad.utils``: interchange helpers, as ``torch.utils``."""
from . import dlpack  # noqa: F401
