"""Memory layouts: ``numgrad.strided`` (the only one numgrad stores) and PyTorch's sparse names."""
from __future__ import annotations

from . import names

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]


class layout:
    """How a tensor's elements sit in memory; every numgrad tensor is ``numgrad.strided``."""

    __module__ = "numgrad"
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'numgrad.layout' instances")

    @classmethod
    def _named(cls, name: str) -> "layout":
        obj = object.__new__(cls)
        obj._name = name
        return obj

    def __repr__(self) -> str:
        return f"{names.package()}.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout._named("strided")
sparse_coo = layout._named("sparse_coo")
sparse_csr = layout._named("sparse_csr")
sparse_csc = layout._named("sparse_csc")
sparse_bsr = layout._named("sparse_bsr")
sparse_bsc = layout._named("sparse_bsc")


def check_layout(value, fn: str) -> None:
    """Accept ``layout=None`` or ``numgrad.strided``; numgrad has no sparse tensors."""
    if value is None or value is strided:
        return
    if not isinstance(value, layout):
        raise TypeError(f"{fn}(): argument 'layout' must be torch.layout, not {type(value).__name__}")
    raise RuntimeError(f"{fn}(...) is not implemented for sparse layout")
