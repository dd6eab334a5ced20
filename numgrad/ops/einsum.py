"""einsum: parsed into diagonals, sums, permutes and batched matrix products, left to right, so
gradients come from those ops' rules.
"""
from __future__ import annotations

from .. import shapes

__all__ = ["einsum"]

# Labels standing for the dims an ellipsis covers; outside the letters einsum accepts.
_ELL = [chr(0x100 + i) for i in range(64)]


def _parse(equation: str, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    n_ell = 0
    parsed = []
    for i, (term, x) in enumerate(zip(terms, operands)):
        has_ell = "..." in term
        letters = term.replace("...", "")
        for c in letters:
            if not c.isalpha() or not c.isascii():
                raise RuntimeError(f"einsum(): invalid subscript given at index {term.index(c)} in the equation "
                                   f"string, subscripts must be in [a-zA-Z]")
        if has_ell:
            k = x.ndim - len(letters)
            if k < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) is more "
                                   f"than the number of dimensions ({x.ndim}) for operand {i}")
            n_ell = max(n_ell, k)
            head, _, tail = term.partition("...")
            parsed.append((head, k, tail))
        else:
            if len(letters) != x.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) does not "
                                   f"match the number of dimensions ({x.ndim}) for operand {i} and no ellipsis "
                                   "was given")
            parsed.append((letters, 0, ""))
    # An ellipsis covers the trailing ones of the broadcast ellipsis dims.
    ell = _ELL[:n_ell]
    labels = [list(h) + ell[n_ell - k:] + list(t) for h, k, t in parsed]
    if arrow:
        head, dots, tail = rhs.partition("...")
        out = list(head) + (ell if dots else []) + list(tail)
        for c in head + tail:
            if not c.isalpha() or not c.isascii():
                raise RuntimeError("einsum(): invalid subscript given at index "
                                   f"{len(lhs) + 2 + rhs.index(c)} in the equation string, subscripts must be "
                                   "in [a-zA-Z]")
        seen = set()
        for c in out:
            if c in seen:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            seen.add(c)
            if not any(c in lab for lab in labels):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any "
                                   "input operand")
    else:
        counts = {}
        for lab in labels:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
    return labels, out


def _take_diagonals(x, lab, i):
    """Collapse a label repeated within one operand to its diagonal."""
    while len(set(lab)) != len(lab):
        for p, c in enumerate(lab):
            q = lab.index(c, p + 1) if c in lab[p + 1:] else -1
            if q >= 0:
                break
        if x._shape[p] != x._shape[q]:
            raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't match, "
                               f"{x._shape[q]} != {x._shape[p]}")
        x = x.diagonal(0, p, q)
        lab = [d for k, d in enumerate(lab) if k not in (p, q)] + [c]
    return x, lab


def _sum_labels(x, lab, drop):
    dims = [k for k, c in enumerate(lab) if c in drop]
    if not dims:
        return x, lab
    return x.sum(dims), [c for c in lab if c not in drop]


def _contract(a, la, b, lb, keep):
    """The product of two labelled operands, summed over shared labels not in ``keep``."""
    sa = dict(zip(la, a._shape))
    sb = dict(zip(lb, b._shape))
    shared = [c for c in la if c in sb]
    # A shared label of size 1 on one side broadcasts against the other.
    for c in shared:
        if sa[c] != sb[c]:
            if sa[c] == 1:
                a = a.expand(tuple(sb[c] if d == c else s for d, s in zip(la, a._shape)))
                sa[c] = sb[c]
            else:
                b = b.expand(tuple(sa[c] if d == c else s for d, s in zip(lb, b._shape)))
                sb[c] = sa[c]
    batch = [c for c in shared if c in keep]
    summed = [c for c in shared if c not in keep]
    left = [c for c in la if c not in sb]
    right = [c for c in lb if c not in sa]
    a = a.permute([la.index(c) for c in batch + left + summed])
    b = b.permute([lb.index(c) for c in batch + summed + right])
    nb = shapes.prod(sa[c] for c in batch)
    nl = shapes.prod(sa[c] for c in left)
    ns = shapes.prod(sa[c] for c in summed)
    nr = shapes.prod(sb[c] for c in right)
    r = a.reshape(nb, nl, ns).matmul(b.reshape(nb, ns, nr))
    r = r.reshape(tuple(sa[c] for c in batch + left) + tuple(sb[c] for c in right))
    return r, batch + left + right


def einsum(equation, *operands):
    """einsum(equation, *operands) -> Tensor: sums of products of operand elements described by
    Einstein notation, e.g. ``'bij,bjk->bik'``; ``...`` stands for broadcast dims and a label
    repeated within one operand takes its diagonal."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    labels, out = _parse(equation, operands)
    sizes = {}
    xs = []
    for i, (x, lab) in enumerate(zip(operands, labels)):
        x, lab = _take_diagonals(x, list(lab), i)
        for c, s in zip(lab, x._shape):
            seen = sizes.get(c)
            if seen is None or seen == 1:
                sizes[c] = s
            elif s != seen and s != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} which does not "
                                   f"broadcast with previously seen size {seen}")
        xs.append((x, lab))
    for k in range(len(xs)):
        # Labels nobody else needs are summed before any product, which keeps products small.
        elsewhere = set(out).union(*(set(lab) for j, (_, lab) in enumerate(xs) if j != k))
        x, lab = xs[k]
        xs[k] = _sum_labels(x, lab, set(lab) - elsewhere)
    acc, lab = xs[0]
    for k in range(1, len(xs)):
        keep = set(out).union(*(set(l2) for _, l2 in xs[k + 1:]))
        acc, lab = _contract(acc, lab, xs[k][0], xs[k][1], keep)
        acc, lab = _sum_labels(acc, lab, set(lab) - keep)
    return acc.permute([lab.index(c) for c in out])
