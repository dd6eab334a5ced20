"""The table's rows for ops that move or select data: indexing, flips and rolls, triangles, the split
family (checked as one joined tensor), ``scatter_reduce`` and ``index_reduce``."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import ALL_DTYPES, NO_BOOL
from ..opinfo import OpInfo, SampleInput, _SAME
from ..references import (_ints, _np_chunk, _np_diag_embed, _np_gather, _np_index_add, _np_index_copy,
                          _np_index_fill, _np_index_put, _np_index_reduce, _np_index_select, _np_masked_fill,
                          _np_masked_select, _np_put, _np_scatter, _np_scatter_reduce, _np_split, _np_take,
                          _np_tensor_split, _np_unbind, _np_unfold)
from ..samplers import (_arg, _sample_gather, _sample_index_fill, _sample_index_put, _sample_index_reduce,
                        _sample_index_select, _sample_index_write, _sample_masked_fill, _sample_masked_select,
                        _sample_put, _sample_scatter, _sample_scatter_reduce, _sample_scatter_value,
                        _sample_shape_kw, _sample_take)


def _movement(name, ref, sample, *, grad=True, method=_SAME, inplace=None, dtypes=ALL_DTYPES, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, sample, dtypes, method=method, inplace=inplace,
                  supports_out=False, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  kind="movement", **kw)


def _tensor_unfold(x, *args):
    return x.unfold(*args)


def _split_row(name, np_split, cases, variant=""):
    """A row for split-family op ``name`` against ``np_split``. The table's ops return one tensor:
    pieces 0, 2, 4, ... flattened and joined; the odd ones, left out, check that unused outputs
    give zero gradients."""
    fn = getattr(numgrad, name)

    def op(x, *args, **kwargs):
        return numgrad.cat([p.reshape(-1) for p in fn(x, *args, **kwargs)[::2]])

    def ref(x, *args, **kwargs):
        args = [_ints(a)[0] if isinstance(a, np.ndarray) else a for a in args]
        return np.concatenate([p.reshape(-1) for p in np_split(x, *args, **kwargs)[::2]])
    return OpInfo(name, op, ref, partial(_sample_shape_kw, cases=cases), ALL_DTYPES, variant=variant,
                  method=None, inplace=None, supports_out=False, torch_name=None, kind="movement")


ROWS = [
    OpInfo("unfold", _tensor_unfold, _np_unfold,
           partial(_sample_shape_kw, cases=[((3, 5, 4), (1, 2, 1)), ((7,), (0, 3, 2)), ((2, 6), (-1, 3, 3)),
                                             ((0, 3), (1, 2, 1))]),
           ALL_DTYPES, inplace=None, supports_out=False, torch_name=None, kind="movement"),
    _movement("gather", _np_gather, _sample_gather),
    _movement("index_select", _np_index_select, _sample_index_select),
    _movement("take", _np_take, _sample_take),
    _movement("flip", np.flip, partial(_sample_shape_kw, cases=[((3, 4), ((0,),)), ((2, 3, 2), ((2, 0),)),
                                                                   ((0, 2), ((1,),))])),
    _movement("roll", lambda x, s, d=None: np.roll(x, s, d),
              partial(_sample_shape_kw, cases=[((3, 4), (1, 0)), ((2, 3, 2), ((2, -1), (1, 2))),
                                                 ((5,), (7,)), ((0, 2), (1, 1))])),
    _movement("tril", np.tril, partial(_sample_shape_kw, cases=[((3, 4), ()), ((2, 3, 3), (-1,)),
                                                                   ((0, 2), (1,))]), inplace="tril_"),
    _movement("triu", np.triu, partial(_sample_shape_kw, cases=[((3, 4), ()), ((2, 3, 3), (1,)),
                                                                   ((4, 2), (-2,))]), inplace="triu_"),
    _movement("diag_embed", _np_diag_embed, partial(_sample_shape_kw, cases=[((3,), ()), ((2, 3), (1,)),
                                                                               ((2, 2), (-1,))])),
    _movement("repeat_interleave", lambda x, r, dim=None: np.repeat(x, r, axis=dim),
              partial(_sample_shape_kw, cases=[((2, 3), (2, 1)), ((3,), (3,)), ((0, 2), (2, 0))])),
    _movement("msort", lambda x: np.sort(x, axis=0),
              partial(_sample_shape_kw, cases=[((5,), ()), ((4, 3), ()), ((0, 2), ())])),
    _movement("argsort", lambda x, dim=-1: np.argsort(x, axis=dim, kind="stable"),
              partial(_sample_shape_kw, cases=[((6,), ()), ((4, 3), (0,)), ((2, 0), ())]), grad=False,
              torch_name=None),
    _movement("masked_fill", _np_masked_fill, _sample_masked_fill, inplace="masked_fill_"),
]


ROWS += [
    _split_row("split", _np_split, [((5, 3), (2,)), ((2, 3, 4), (2, -1)), ((4, 3), (4, 1)), ((0, 3), (2,))]),
    _split_row("split", _np_split, [((5, 3), ([2, 0, 3],)), ((2, 3, 4), ([1, 2], 1)), ((0, 2), ([0, 0],))],
               variant="sizes"),
    _split_row("chunk", _np_chunk, [((5, 3), (3,)), ((2, 3, 4), (2, -1)), ((6, 2), (4,)), ((0, 3), (2,))]),
    _split_row("unbind", _np_unbind, [((3, 4), ()), ((2, 3, 2), (1,)), ((0, 2), (1,))]),
    _split_row("tensor_split", _np_tensor_split,
               [((5, 3), (3,)), ((2, 3, 4), ([1, -1, 2], 2)), ((4, 3), (np.array([1, 3]),)), ((3, 2), (5, 1)),
                ((0, 3), (2, 1))]),
    _split_row("hsplit", np.hsplit, [((4, 6), (2,)), ((2, 4, 3), ([1, 3],)), ((6,), (3,)), ((0, 4), (2,))]),
    _split_row("vsplit", np.vsplit, [((4, 3), (2,)), ((3, 2, 4), ([1],)), ((0, 2), ([0],))]),
    _split_row("dsplit", np.dsplit, [((2, 3, 4), (2,)), ((1, 2, 6, 2), ([2, 5],))]),
]


ROWS += [
    OpInfo("scatter_reduce", numgrad.scatter_reduce, _np_scatter_reduce,
           partial(_sample_scatter_reduce, reduce=reduce), NO_BOOL if reduce == "mean" else ALL_DTYPES,
           variant=reduce, kind="movement")
    for reduce in ("sum", "prod", "mean", "amax", "amin")]


ROWS += [
    OpInfo("index_reduce", numgrad.index_reduce, _np_index_reduce, partial(_sample_index_reduce, reduce=reduce),
           NO_BOOL, variant=reduce, kind="movement")
    for reduce in ("prod", "mean", "amax", "amin")]


def _index_put(x, rows, cols, values, accumulate=False):
    return numgrad.index_put(x, (rows, cols), values, accumulate=accumulate)


# Indexed writes: the function, method and in-place forms of each.
ROWS += [
    _movement("scatter", _np_scatter, partial(_sample_scatter, add=False), inplace="scatter_"),
    _movement("scatter", _np_scatter, _sample_scatter_value, inplace="scatter_", variant="value"),
    _movement("scatter_add", partial(_np_scatter, add=True), partial(_sample_scatter, add=True),
              inplace="scatter_add_"),
    _movement("index_add", _np_index_add, partial(_sample_index_write, distinct=False), inplace="index_add_"),
    _movement("index_copy", _np_index_copy, partial(_sample_index_write, distinct=True), inplace="index_copy_"),
    _movement("index_fill", _np_index_fill, _sample_index_fill, inplace="index_fill_"),
    OpInfo("index_put", _index_put, _np_index_put, _sample_index_put, ALL_DTYPES, method=None, inplace=None,
           supports_out=False, torch_name=None, kind="movement"),
    _movement("put", _np_put, _sample_put, inplace="put_"),
    _movement("masked_select", _np_masked_select, _sample_masked_select),
]


def _np_squeeze(x, dim=None):
    dims = range(x.ndim) if dim is None else [d % max(x.ndim, 1) for d in ((dim,) if isinstance(dim, int) else dim)]
    return np.squeeze(x, tuple(d for d in dims if x.ndim and x.shape[d] == 1))


def _np_expand(x, *sizes):
    lead = len(sizes) - x.ndim
    return np.broadcast_to(x, tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes)))


def _np_repeat(x, *sizes):
    return np.tile(x.reshape((1,) * (len(sizes) - x.ndim) + x.shape), sizes)


def _np_as_strided(x, size, stride, offset=0):
    flat = np.ascontiguousarray(x).reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[offset:], size, [s * flat.itemsize for s in stride])


def _repeat(x, *sizes):
    return x.repeat(*sizes)


def _joined(join):
    """``join`` (cat or stack) of its positional tensors: the table passes arrays, not a list."""
    def fn(*tensors, dim=0):
        return join(list(tensors), dim)
    fn.__name__ = join.__name__
    return fn


def _np_joined(join):
    def ref(*arrays, dim=0):
        return join(arrays, dim)
    return ref


def _copy_into(x, src):
    return x.clone().copy_(src)


def _sample_joined(dtype, rng, *, stack):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)), arg((2, 3)), arg((2, 3))))
    if stack:
        yield SampleInput((arg((2, 3)), arg((2, 3))), {"dim": -1})
        yield SampleInput((arg(()), arg(())))
    else:
        yield SampleInput((arg((2, 3)), arg((2, 1)), arg((2, 0))), {"dim": 1})
        yield SampleInput((arg((2, 3, 2)), arg((1, 3, 2))), {"dim": -3})
    yield SampleInput((arg((0, 3)), arg((0, 3))))


def _sample_copy(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)), arg((2, 3))))
    yield SampleInput((arg((2, 3)), arg((3,))), broadcasts=True)
    yield SampleInput((arg(()), arg(())))
    yield SampleInput((arg((0, 2)), arg((0, 2))))


_NEEDS_STRIDES = "view needs strides compatible with the shape: PyTorch refuses transposed inputs too"
_READS_STORAGE = "as_strided reads the storage, which a strided or expanded input shares with other elements"

# Views and joins: the function and method forms of each.
ROWS += [
    _movement("view", lambda x, *shape: np.reshape(x, shape),
              partial(_sample_shape_kw, cases=[((2, 3), (3, 2)), ((2, 3, 4), (-1, 4)), ((6,), (1, 2, 3)), ((), (1,)),
                                               ((0, 3), (3, 0))]),
              method="view", torch_name=None, xfails={"noncontiguous": _NEEDS_STRIDES}),
    _movement("permute", lambda x, dims: np.transpose(x, dims),
              partial(_sample_shape_kw, cases=[((2, 3, 4), ((2, 0, 1),)), ((2, 3), ((-1, 0),)), ((), ((),)),
                                               ((0, 2), ((1, 0),))])),
    _movement("transpose", np.swapaxes,
              partial(_sample_shape_kw, cases=[((2, 3, 4), (0, 2)), ((3, 4), (-1, 0)), ((5,), (0, 0)),
                                               ((0, 2), (0, 1))])),
    _movement("t", lambda x: x.T, partial(_sample_shape_kw, cases=[((2, 3), ()), ((4,), ()), ((), ()),
                                                                   ((0, 3), ())])),
    _movement("squeeze", _np_squeeze,
              partial(_sample_shape_kw, cases=[((2, 1, 3, 1), ()), ((2, 1, 3), (1,)), ((2, 3), (0,)),
                                               ((1, 2, 1), ((0, 2),)), ((), ()), ((0, 1), ())])),
    _movement("unsqueeze", np.expand_dims,
              partial(_sample_shape_kw, cases=[((2, 3), (0,)), ((2, 3), (-1,)), ((), (0,)), ((0, 2), (1,))])),
    _movement("expand", _np_expand,
              partial(_sample_shape_kw, cases=[((2, 1), (2, 3)), ((3,), (2, 3)), ((1, 3), (4, -1)), ((), (2, 2)),
                                               ((0, 1), (0, 4))]),
              method="expand", torch_name=None),
    _movement("select", lambda x, dim, index: np.take(x, index, axis=dim),
              partial(_sample_shape_kw, cases=[((3, 4), (0, 1)), ((2, 3, 4), (-1, -2)), ((5,), (0, 4)),
                                               ((0, 3), (1, 2))])),
    _movement("diagonal", lambda x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2),
              partial(_sample_shape_kw, cases=[((3, 4), ()), ((3, 4), (1,)), ((2, 3, 4), (-1, 2, 0)),
                                               ((3, 3), (-5,)), ((0, 3), ())])),
    _movement("as_strided", _np_as_strided,
              partial(_sample_shape_kw, cases=[((3, 4), ((2, 2), (4, 1))), ((3, 4), ((3, 3), (1, 1), 2)),
                                               ((6,), ((2, 2), (0, 2), 1)), ((2, 3), ((0, 2), (1, 1)))]),
              xfails={"noncontiguous": _READS_STORAGE}),
    OpInfo("repeat", _repeat, _np_repeat,
           partial(_sample_shape_kw, cases=[((2, 3), (2, 1)), ((3,), (2, 2)), ((), (3,)), ((2, 0), (1, 3))]),
           method="repeat", inplace=None, supports_out=False, torch_name=None, kind="movement"),
    _movement("rot90", lambda x, k=1, dims=(0, 1): np.rot90(x, k, dims),
              partial(_sample_shape_kw, cases=[((2, 3), ()), ((2, 3, 4), (2, (1, 2))), ((3, 4), (-1, (1, 0))),
                                               ((2, 2), (4,)), ((0, 3), (1,))])),
    OpInfo("cat", _joined(numgrad.cat), _np_joined(np.concatenate), partial(_sample_joined, stack=False), ALL_DTYPES,
           method=None, inplace=None, supports_out=False, torch_name=None, kind="movement"),
    OpInfo("stack", _joined(numgrad.stack), _np_joined(np.stack), partial(_sample_joined, stack=True), ALL_DTYPES,
           method=None, inplace=None, supports_out=False, torch_name=None, kind="movement"),
    _movement("clone", np.copy, partial(_sample_shape_kw, cases=[((2, 3), ()), ((), ()), ((0, 2), ())])),
    OpInfo("copy_", _copy_into, lambda x, src: np.broadcast_to(src, x.shape), _sample_copy, ALL_DTYPES,
           method=None, inplace=None, supports_out=False, torch_name=None, kind="movement"),
]
