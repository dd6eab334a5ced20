"""The named tuples of ops with several results, as ``torch.return_types``: each is declared
here once, by name, and prints one field per line."""
from __future__ import annotations

from collections import namedtuple

from . import names

_declared: dict = {}


def return_type(name: str, fields=("values", "indices")):
    """The named tuple ``numgrad.return_types.<name>`` with ``fields`` (made on first use)."""
    cls = _declared.get(name)
    if cls is None:
        cls = namedtuple(name, fields)
        cls.__repr__ = lambda self: (f"{names.package()}.return_types.{name}(\n"
                                     + ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self)) + ")")
        cls.__module__ = __name__
        # A module attribute, so instances pickle by reference.
        _declared[name] = globals()[name] = cls
    elif cls._fields != tuple(fields):
        raise ValueError(f"return type {name} declared with fields {cls._fields} and {tuple(fields)}")
    return cls
