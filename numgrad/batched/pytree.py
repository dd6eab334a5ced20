"""Nested Python containers (tuples, lists, dicts, named tuples) of leaves, flattened to a list
and rebuilt: how vmap pairs ``in_dims`` and ``out_dims`` with arguments and results."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spec:
    """The structure of one node: ``kind`` is None for a leaf, else the container type, with its
    dict ``keys`` and one Spec per child."""
    kind: object = None
    keys: tuple = ()
    children: tuple = ()

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)

    def __str__(self):
        if self.kind is None:
            return "*"
        inner = ", ".join(str(c) for c in self.children)
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.keys, self.children)) + "}"
        return f"[{inner}]" if self.kind is list else f"({inner})"


LEAF = Spec()


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)`` of ``tree``."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(node, leaves) -> Spec:
    if isinstance(node, (tuple, list)):
        return Spec(type(node), (), tuple(_flatten(c, leaves) for c in node))
    if isinstance(node, dict):
        keys = tuple(node)
        return Spec(dict, keys, tuple(_flatten(node[k], leaves) for k in keys))
    leaves.append(node)
    return LEAF


def tree_unflatten(leaves, spec: Spec):
    """The tree of ``spec`` holding ``leaves`` in order."""
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec: Spec):
    if spec.kind is None:
        return next(it)
    children = [_build(it, c) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.keys, children))
    if spec.kind is list:
        return children
    if spec.kind is tuple:
        return tuple(children)
    return spec.kind(*children) if hasattr(spec.kind, "_fields") else spec.kind(children)


def broadcast_prefix(prefix, spec: Spec):
    """The leaves of ``prefix`` (a tree whose structure is a prefix of ``spec``'s: an int or None
    stands for every leaf below it), one per leaf of ``spec``; None when they do not match."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix, spec: Spec, out) -> bool:
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec.kind is None:
        return False
    if isinstance(prefix, dict):
        if spec.kind is not dict or set(prefix) != set(spec.keys):
            return False
        return all(_broadcast(prefix[k], c, out) for k, c in zip(spec.keys, spec.children))
    if spec.kind is dict or len(prefix) != len(spec.children):
        return False
    if isinstance(prefix, list) != (spec.kind is list) and not _same_sequence_kind(prefix, spec.kind):
        return False
    return all(_broadcast(p, c, out) for p, c in zip(prefix, spec.children))


def _same_sequence_kind(prefix, kind) -> bool:
    # A tuple of in_dims matches the tuple of arguments and any named tuple among them.
    return isinstance(prefix, tuple) and isinstance(kind, type) and issubclass(kind, tuple)
