"""The op table's sample makers: ``sample(dtype, rng)`` yields the :class:`SampleInput` s a row
is called with, reproducibly from ``rng``. The generic makers first, then those of single ops.
"""
import math

import numpy as np

from .creation import _make_array
from .dtypes import FLOAT_DTYPES
from .opinfo import SampleInput


# ------------------------------------------------------------------------------ generic
_SHAPES = ((), (0,), (7,), (2, 3), (2, 1, 3, 1, 2))
_BROADCAST = (((3, 1), (1, 4)), ((2, 3), (3,)), ((2, 1, 2), ()))


def _arg(shape, dtype, rng, domain):
    return _make_array(shape, dtype, rng, *domain)


def _scalar_for(dtype: str, rng, domain):
    """A Python scalar of the same category as ``dtype``, inside ``domain``."""
    v = _make_array((), dtype, rng, *domain).item()
    return bool(v) if dtype == "bool" else v


def sample_unary(dtype, rng, *, domain=(None, None), kwargs=None):
    """Tensors of every shape in the generic list: 0-d, empty, 1-d, 2-d and 5-d."""
    for shape in _SHAPES:
        yield SampleInput((_arg(shape, dtype, rng, domain),), dict(kwargs or {}))


def sample_binary(dtype, rng, *, domains=((None, None), (None, None)), kwargs=None,
                  scalar_rhs=True, other_dtype_rhs=True):
    """Same-shape pairs, broadcasting pairs, a Python scalar on the right and a mixed-dtype pair."""
    da, db = domains
    kw = dict(kwargs or {})
    for shape in _SHAPES:
        yield SampleInput((_arg(shape, dtype, rng, da), _arg(shape, dtype, rng, db)), kw)
    for sa, sb in _BROADCAST:
        yield SampleInput((_arg(sa, dtype, rng, da), _arg(sb, dtype, rng, db)), kw, broadcasts=True)
    if scalar_rhs:
        yield SampleInput((_arg((2, 3), dtype, rng, da), _scalar_for(dtype, rng, db)), kw)
        if dtype != "float64" and other_dtype_rhs:
            # a Python float promotes an integer tensor to the default dtype
            yield SampleInput((_arg((3,), dtype, rng, da), float(_scalar_for("float32", rng, db))), kw,
                              broadcasts=True)
    if other_dtype_rhs:
        other = "float64" if dtype != "float64" else "int32"
        yield SampleInput((_arg((4,), dtype, rng, da), _arg((4,), other, rng, db)), kw, broadcasts=True)


def sample_ternary(dtype, rng, *, domains=((None, None),) * 3, kwargs=None, scalar_last=True):
    """Same-shape triples, a broadcasting triple and (optionally) a Python scalar last."""
    kw = dict(kwargs or {})
    for shape in ((), (0,), (7,), (2, 3)):
        yield SampleInput(tuple(_arg(shape, dtype, rng, d) for d in domains), kw)
    yield SampleInput(tuple(_arg(s, dtype, rng, d) for s, d in zip(((2, 3), (3,), (2, 1)), domains)), kw,
                      broadcasts=True)
    if scalar_last:
        yield SampleInput(tuple(_arg((2, 3), dtype, rng, d) for d in domains[:2])
                          + (_scalar_for(dtype, rng, domains[2]),), kw)


def sample_reduction(dtype, rng, *, domain=(None, None), empty=True, tuple_dims=True):
    """Full reductions, one dim, negative dim, tuples of dims, keepdim, 0-d and empty inputs.

    ``empty=False`` is for reductions without an identity (amax): only non-empty dims are reduced.
    """
    x5 = _arg((2, 3, 1, 2, 2), dtype, rng, domain)
    x2 = _arg((4, 5), dtype, rng, domain)
    e = _arg((0, 3), dtype, rng, domain)
    cases = [(_arg((), dtype, rng, domain),), (x2,), (x2, 1), (x2, -2, True), (x5,), (x5, 3), (e, 1)]
    if tuple_dims:
        cases += [(x5, (0, 3)), (x5, (-1, 1), True)]
    if empty:
        cases += [(e, 0), (e,)]
    for args in cases:
        yield SampleInput(args)


# ------------------------------------------------------------------------------ elementwise
def _sample_clamp(dtype, rng):
    x = _arg((2, 3), dtype, rng, (None, None))
    yield SampleInput((x,), {"min": _scalar_for(dtype, rng, (-3, 0))})
    yield SampleInput((x,), {"max": _scalar_for(dtype, rng, (0, 3))})
    yield SampleInput((_arg((7,), dtype, rng, (None, None)), _scalar_for(dtype, rng, (-3, 0)),
                       _scalar_for(dtype, rng, (0, 3))))
    yield SampleInput((_arg((), dtype, rng, (None, None)), -1, 1))
    yield SampleInput((_arg((0, 2), dtype, rng, (None, None)), -1, 1))
    if dtype != "bool":
        lo, hi = _arg((3,), dtype, rng, (-4, 0)), _arg((2, 1), dtype, rng, (0, 4))
        yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), lo, hi), broadcasts=True)
        yield SampleInput((x, None, hi), broadcasts=True)
        # Overlapping ranges: where lo > hi every element is hi.
        lo, hi = _arg((3,), dtype, rng, (-2, 2)), _arg((2, 1), dtype, rng, (-2, 2))
        yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), lo, hi), broadcasts=True)


def _sample_where(dtype, rng):
    for shape in _SHAPES:
        yield SampleInput((_arg(shape, "bool", rng, (None, None)), _arg(shape, dtype, rng, (None, None)),
                           _arg(shape, dtype, rng, (None, None))))
    yield SampleInput((_arg((2, 1), "bool", rng, (None, None)), _arg((3,), dtype, rng, (None, None)),
                       _arg((2, 3), dtype, rng, (None, None))), broadcasts=True)


def _sample_round_decimals(dtype, rng):
    for shape in ((), (0,), (2, 3)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), {"decimals": 2})
    yield SampleInput((_arg((7,), dtype, rng, (-300, 300)),), {"decimals": -1})


def _sample_addc(dtype, rng, *, nonzero_last=False):
    d3 = (0.5, 3) if nonzero_last else (None, None)
    domains = ((None, None), (None, None), d3)
    for kw in ({}, {"value": 0.5 if dtype in FLOAT_DTYPES else 2}):
        for shape in ((), (0,), (2, 3)):
            yield SampleInput(tuple(_arg(shape, dtype, rng, d) for d in domains), kw)
    yield SampleInput(tuple(_arg(s, dtype, rng, d) for s, d in zip(((2, 3), (3,), (2, 1)), domains)), {},
                      broadcasts=True)


def _sample_pow(dtype, rng):
    if dtype in FLOAT_DTYPES:
        base, exp = (0.25, 3.0), (-2.0, 2.0)
    else:
        base, exp = (-3, 4), (0, 4)
    yield from sample_binary(dtype, rng, domains=(base, exp), other_dtype_rhs=False)
    yield SampleInput((_arg((5,), dtype, rng, base), 2))
    if dtype in FLOAT_DTYPES:
        yield SampleInput((_arg((5,), dtype, rng, (-3, 3)), 3.0))


def _sample_pow_backward(dtype, rng):
    # (grad, base, Python-scalar exponent): squares, cubes, a root, a negative power, and 0 and 1,
    # whose rules are constant.
    for shape, exponent in (((), 2), ((0,), 3.0), ((7,), 0.5), ((2, 3), -1.5), ((2, 3), 0), ((2, 3), 1)):
        yield SampleInput((_arg(shape, dtype, rng, (-2, 2)), _arg(shape, dtype, rng, (0.25, 3.0)), exponent))
    yield SampleInput((_arg((2, 3), dtype, rng, (-2, 2)), _arg((3,), dtype, rng, (0.25, 3.0)), 3), broadcasts=True)


def _sample_clamp_bound(dtype, rng):
    # PyTorch clamps bool tensors only by bool tensors, not by Python scalars.
    yield from sample_binary(dtype, rng, scalar_rhs=dtype != "bool", other_dtype_rhs=False)


def _sample_shift(dtype, rng):
    yield from sample_binary(dtype, rng, domains=((None, None), (0, 3)), other_dtype_rhs=False)


def _sample_intdiv(dtype, rng, *, kwargs=None):
    # Integer divisors must not be 0 (that raises); negative divisors exercise the rounding.
    if dtype in FLOAT_DTYPES:
        yield from sample_binary(dtype, rng, kwargs=kwargs, domains=((None, None), (0.5, 4)))
        yield SampleInput((_arg((6,), dtype, rng, (-5, 5)), _arg((6,), dtype, rng, (-4, -0.5))), dict(kwargs or {}))
        return
    yield from sample_binary(dtype, rng, kwargs=kwargs, domains=((None, None), (1, 5)))
    if dtype != "uint8":
        yield SampleInput((_arg((6,), dtype, rng, (-9, 9)), _arg((6,), dtype, rng, (-5, -1))), dict(kwargs or {}))


def _sample_nan_to_num(dtype, rng):
    yield from sample_unary(dtype, rng)
    if dtype in FLOAT_DTYPES:
        x = _arg((2, 5), dtype, rng, (None, None))
        x[0, :3] = [np.nan, np.inf, -np.inf]
        x[1, 4] = np.nan
        yield SampleInput((x,), {"nan": 1.5, "posinf": 100.0, "neginf": -7.0})
        yield SampleInput((x.copy(), 0.5, 2.0, -3.0))


def _sample_polygamma(dtype, rng):
    # (input, n): the Tensor.polygamma(n) order.
    for shape, n in zip(_SHAPES, (0, 1, 1, 2, 3)):
        yield SampleInput((_arg(shape, dtype, rng, (0.1, 5)), n))


def _sample_heaviside(dtype, rng):
    yield from sample_binary(dtype, rng, scalar_rhs=False, other_dtype_rhs=False)
    x = _arg((2, 4), dtype, rng, (None, None))
    x[:, ::2] = 0
    yield SampleInput((x, _arg((4,), dtype, rng, (None, None))), broadcasts=True)


def _sample_specials(dtype, rng):
    """The generic shapes, then signed zeros, infinities and NaN for floating dtypes."""
    yield from sample_unary(dtype, rng)
    if dtype in FLOAT_DTYPES:
        yield SampleInput((np.array([-0.0, 0.0, -np.inf, np.inf, np.nan, -1.5, 2.0], dtype=dtype),))


# ------------------------------------------------------------------------------ data movement
def _sample_gather(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), 1, rng.integers(0, 4, (3, 2))))
    yield SampleInput((_arg((2, 3, 2), dtype, rng, (None, None)), 0, rng.integers(0, 2, (2, 3, 2))))
    yield SampleInput((_arg((0, 3), dtype, rng, (None, None)), 1, np.zeros((0, 2), dtype=np.int64)))


def _sample_index_select(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), 0, np.array([2, 0, 2])))
    yield SampleInput((_arg((2, 5, 3), dtype, rng, (None, None)), 1, np.array([4, 1])))
    yield SampleInput((_arg((2, 0), dtype, rng, (None, None)), 0, np.array([], dtype=np.int64)))


def _sample_take(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), np.array([[0, -1], [5, 11]])))
    yield SampleInput((_arg((7,), dtype, rng, (None, None)), np.array([3, -7])))


def _sample_shape_kw(dtype, rng, *, cases):
    for shape, args in cases:
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),) + args)


def _sample_masked_fill(dtype, rng):
    value = _scalar_for(dtype, rng, (None, None))
    yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), rng.random((2, 3)) < 0.5, value))
    yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), rng.random(3) < 0.5, value), broadcasts=True)
    yield SampleInput((_arg((0, 3), dtype, rng, (None, None)), np.zeros((0, 3), dtype=bool), value))


def _distinct_index(rng, shape, dim, size):
    """An index of ``shape`` whose entries along ``dim`` are distinct, in [0, size): each
    position is written once, so the result does not hang on the order of the writes."""
    index = np.empty(shape, dtype=np.int64)
    moved = np.moveaxis(index, dim, -1)
    for pos in np.ndindex(*moved.shape[:-1]):
        moved[pos] = rng.permutation(size)[:moved.shape[-1]]
    return index


def _sample_scatter(dtype, rng, *, add):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((3, 4)), 1, _distinct_index(rng, (3, 2), 1, 4), arg((3, 2))))
    yield SampleInput((arg((2, 3, 4)), 0, _distinct_index(rng, (2, 2, 3), 0, 2), arg((2, 3, 4))))
    # src larger than the index (its other elements are never read); an index narrower than self
    yield SampleInput((arg((4, 5)), 0, _distinct_index(rng, (2, 3), 0, 4), arg((3, 4))))
    if add:  # repeated indices sum
        yield SampleInput((arg((3, 4)), 1, rng.integers(0, 4, (3, 5)), arg((3, 5))))
    yield SampleInput((arg(()), 0, np.array(0), arg(())))
    yield SampleInput((arg((0, 3)), 1, np.zeros((0, 2), dtype=np.int64), arg((0, 2))))


def _sample_scatter_value(dtype, rng):
    value = _scalar_for(dtype, rng, (None, None))
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), 1, _distinct_index(rng, (3, 2), 1, 4)),
                      {"value": value})
    yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), 0, np.zeros((1, 2), dtype=np.int64)),
                      {"value": value})


def _sample_index_write(dtype, rng, *, distinct):
    """(self, dim, index, source) for index_add and index_copy: ``distinct`` indices for a copy."""
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))

    def index(n, size):
        return rng.permutation(size)[:n] if distinct else rng.integers(0, size, n)
    yield SampleInput((arg((4, 3)), 0, index(3, 4), arg((3, 3))))
    yield SampleInput((arg((2, 5, 3)), 1, index(2, 5), arg((2, 2, 3))))
    yield SampleInput((arg((3, 4)), -1, index(4, 4), arg((3, 4))))
    yield SampleInput((arg(()), 0, np.array(0), arg(())))
    yield SampleInput((arg((0, 3)), 1, index(2, 3), arg((0, 2))))


def _sample_index_fill(dtype, rng):
    value = _scalar_for(dtype, rng, (None, None))
    yield SampleInput((_arg((4, 3), dtype, rng, (None, None)), 0, np.array([2, 0, 2]), value))
    yield SampleInput((_arg((2, 5, 3), dtype, rng, (None, None)), -1, np.array(1), value))
    yield SampleInput((_arg((0, 3), dtype, rng, (None, None)), 1, np.array([1]), value))


def _sample_index_put(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    rows, cols = np.array([0, 2, 1]), np.array([3, 1, 1])
    yield SampleInput((arg((3, 4)), rows, cols, arg((3,))))
    yield SampleInput((arg((3, 4)), np.array([0, 2, 0]), np.array([1, 1, 1]), arg((3,))), {"accumulate": True})
    yield SampleInput((arg((3, 4)), np.array([[2], [0]]), np.array([0, 3]), arg((2,))), broadcasts=True)


def _sample_put(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((3, 4)), np.array([0, 11, 5]), arg((3,))))
    yield SampleInput((arg((2, 3)), np.array([[1, 1], [-1, 0]]), arg((2, 2))), {"accumulate": True})
    yield SampleInput((arg(()), np.array([0]), arg((1,))))
    yield SampleInput((arg((2, 2)), np.zeros(0, dtype=np.int64), arg((0,))))


def _sample_masked_select(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), rng.random((3, 4)) < 0.5))
    yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), rng.random(3) < 0.5), broadcasts=True)
    yield SampleInput((_arg((3,), dtype, rng, (None, None)), rng.random((2, 3)) < 0.5), broadcasts=True)
    yield SampleInput((_arg((), dtype, rng, (None, None)), np.array(True)))
    yield SampleInput((_arg((0, 3), dtype, rng, (None, None)), np.zeros((0, 3), dtype=bool)))


def _sample_scatter_reduce(dtype, rng, *, reduce):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((3, 4)), 0, rng.integers(0, 3, (2, 4)), arg((2, 4)), reduce))
    yield SampleInput((arg((2, 3, 4)), -1, rng.integers(0, 4, (2, 2, 5)), arg((2, 3, 5)), reduce),
                      {"include_self": False})
    yield SampleInput((arg((4, 2)), 1, rng.integers(0, 2, (3, 2)), arg((3, 3)), reduce), {"include_self": False})
    yield SampleInput((arg(()), 0, np.array(0), arg(()), reduce))
    yield SampleInput((arg((0, 3)), 1, np.zeros((0, 2), dtype=np.int64), arg((0, 2)), reduce))


def _sample_index_reduce(dtype, rng, *, reduce):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    # First a call that PyTorch refuses for bool too (it takes bool only in some layouts).
    yield SampleInput((arg((2, 3, 4)), -1, rng.integers(0, 4, 3), arg((2, 3, 3)), reduce), {"include_self": False})
    yield SampleInput((arg((3, 4)), 0, rng.integers(0, 3, 5), arg((5, 4)), reduce))
    yield SampleInput((arg((0, 3)), 1, np.zeros(2, dtype=np.int64), arg((0, 2)), reduce))


# ------------------------------------------------------------------------------ matrix products, linalg
def _sample_pairs(dtype, rng, *, cases):
    for sa, sb in cases:
        yield SampleInput((_arg(sa, dtype, rng, (None, None)), _arg(sb, dtype, rng, (None, None))),
                          broadcasts=len(sa) != len(sb))


def _sample_square(dtype, rng, *, rhs=None):
    for shape in ((3, 3), (2, 3, 3), (0, 2, 2)):
        # Diagonally dominant, so that every sample is well conditioned.
        a = _arg(shape, dtype, rng, (-1, 1)) + 4 * np.eye(shape[-1], dtype=dtype)
        yield SampleInput((a,) if rhs is None else (a, _arg(shape[:-1] + (rhs,), dtype, rng, (None, None))))


# ------------------------------------------------------------------------------ composites, statistics, distances
def _sample_diff(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)),))
    yield SampleInput((arg((7,)), 2))
    yield SampleInput((arg((2, 3)), 3, -1))
    yield SampleInput((arg((0, 3)), 1, 0))
    yield SampleInput((arg((2, 3, 2)), 1, 1, arg((2, 1, 2)), arg((2, 2, 2))), broadcasts=True)


def _sample_logcumsumexp(dtype, rng):
    for shape, dim in (((7,), 0), ((), 0), ((0,), 0), ((2, 3), 1), ((2, 3, 2), -2)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), dim))
    if dtype in FLOAT_DTYPES:
        yield SampleInput((np.array([-np.inf, -np.inf, 60.0, 2.0, -np.inf, 61.0], dtype=dtype), 0))


def _sample_renorm(dtype, rng):
    # maxnorms between the slices' norms, so that some slices are rescaled and some kept.
    for shape, p, dim, maxnorm in (((3, 4), 2, 0, 5.5), ((2, 3, 2), 1, 1, 8.0), ((2, 5), 3, -1, 5.0),
                                   ((0, 3), 2, 1, 1.0)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), p, dim, maxnorm))


def _sample_vander(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (-3, 3))
    yield SampleInput((arg((4,)),))
    yield SampleInput((arg((3,)), 5, True))
    yield SampleInput((arg((0,)),))
    yield SampleInput((arg((4,)), 0))


def _sample_trapezoid(dtype, rng, *, matrix_x=True):
    def arg(shape, domain=(None, None)):
        return _arg(shape, dtype, rng, domain)
    yield SampleInput((arg((2, 3)),))
    yield SampleInput((arg((7,)),), {"dx": 0.5})
    yield SampleInput((arg((2, 4, 3)),), {"dim": 1})
    yield SampleInput((arg((2, 0)),))
    yield SampleInput((arg((2, 4)), np.cumsum(arg((4,), (0, 3)))), broadcasts=True)
    yield SampleInput((arg((4, 2)), np.cumsum(arg((4,), (0, 3)))), {"dim": 0}, broadcasts=True)
    if matrix_x:
        yield SampleInput((arg((2, 3)), arg((2, 3))))


def _sample_cov(dtype, rng):
    for shape, kw in (((3, 5), {}), ((5,), {}), ((2, 4), {"correction": 0}), ((2, 6), {"correction": 2})):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), kw)


def _sample_cov_weighted(dtype, rng):
    yield SampleInput((_arg((3, 5), dtype, rng, (None, None)), rng.integers(1, 4, 5),
                       _arg((5,), dtype, rng, (0.5, 2))))
    yield SampleInput((_arg((6,), dtype, rng, (None, None)), rng.integers(0, 3, 6),
                       _arg((6,), dtype, rng, (0.5, 2))), {"correction": 0})


def _sample_corrcoef(dtype, rng):
    for shape in ((3, 5), (5,), (2, 4)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),))


def _sample_quantile(dtype, rng, *, tensor_q):
    def q(n):
        # Ranks q * (len - 1) away from whole numbers, where the derivative in q jumps.
        v = rng.uniform(0.05, 0.95, n if tensor_q else ())
        return v.astype(dtype) if tensor_q else float(v)
    yield SampleInput((_arg((7,), dtype, rng, (None, None)), q(3)))
    yield SampleInput((_arg((2, 3, 4), dtype, rng, (None, None)), q(2), 1, True))
    yield SampleInput((_arg((3, 5), dtype, rng, (None, None)), q(1), -1))
    for how in ("lower", "higher", "midpoint", "nearest"):
        yield SampleInput((_arg((3, 5), dtype, rng, (None, None)), q(2), 0), {"interpolation": how})
    yield SampleInput((_arg((), dtype, rng, (None, None)), q(1)))
    if dtype in FLOAT_DTYPES:
        nan_row = _arg((2, 4), dtype, rng, (None, None))
        nan_row[0, 2] = np.nan
        yield SampleInput((nan_row, q(2), 1))
    if tensor_q:
        yield SampleInput((_arg((5,), dtype, rng, (None, None)), np.zeros(0, dtype=dtype)))


def _sample_block_diag(dtype, rng):
    def arg(shape, dt=dtype):
        return _arg(shape, dt, rng, (None, None))
    yield SampleInput((arg((2, 3)), arg((1, 2))))
    yield SampleInput((arg(()), arg((3,)), arg((2, 2))), broadcasts=True)
    yield SampleInput((arg((0, 2)), arg((2, 0)), arg((1, 1))), broadcasts=True)
    yield SampleInput((arg((2, 2)), arg((1, 3), "float64" if dtype != "float64" else "int32")), broadcasts=True)


def _sample_cosine_similarity(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)), arg((2, 3))))
    yield SampleInput((arg((3, 4)), arg((3, 4)), 0))
    yield SampleInput((arg((5,)), arg((5,)), 0))
    yield SampleInput((arg((2, 1, 3)), arg((4, 3))), {"dim": -1}, broadcasts=True)
    zero_row = arg((2, 3))
    zero_row[1] = 0
    yield SampleInput((zero_row, arg((2, 3))), {"eps": 1e-3})


def _sample_pairwise_distance(dtype, rng):
    # x1 > x2 throughout: an unsigned difference would wrap (in PyTorch too).
    def pair(s1, s2):
        return _arg(s1, dtype, rng, (5, 9)), _arg(s2, dtype, rng, (0, 4))
    yield SampleInput(pair((2, 3), (2, 3)))
    yield SampleInput(pair((4,), (4,)), {"p": 1.0})
    yield SampleInput(pair((2, 2, 3), (2, 2, 3)), {"p": 3.0, "keepdim": True})
    yield SampleInput(pair((2, 3), (2, 3)), {"p": math.inf})
    yield SampleInput(pair((2, 3), (3,)), broadcasts=True)


def _sample_pdist(dtype, rng):
    for shape, args in (((4, 3), ()), ((5, 2), (1.0,)), ((3, 4), (math.inf,)), ((1, 3), ()), ((0, 3), ())):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),) + args)


def _sample_aminmax(dtype, rng):
    for shape, kw in (((4, 5), {}), ((4, 5), {"dim": 1}), ((2, 3, 2), {"dim": -1, "keepdim": True}),
                      ((2, 3), {"keepdim": True}), ((), {}), ((), {"dim": 0})):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), kw)


def _sample_nanmedian(dtype, rng, *, dims):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    cases = ([((7,), (0,)), ((2, 3, 2), (1, True)), ((4, 5), (-1,)), ((), (0,))] if dims else
             [((7,), ()), ((2, 3), ()), ((), ())])
    for shape, args in cases:
        yield SampleInput((arg(shape),) + args)
    if dtype in FLOAT_DTYPES:
        x = arg((3, 4))
        x[0, 1] = x[1, :] = x[2, 0] = np.nan
        yield SampleInput((x,) + ((1,) if dims else ()))
        if not dims:
            yield SampleInput((arg((0,)),))
