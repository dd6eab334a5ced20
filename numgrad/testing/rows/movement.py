"""The table's rows for ops that move or select data: indexing, flips and rolls, triangles, the split
family (checked as one joined tensor), ``scatter_reduce`` and ``index_reduce``."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import ALL_DTYPES, NO_BOOL
from ..opinfo import OpInfo, _SAME
from ..references import (_ints, _np_chunk, _np_diag_embed, _np_gather, _np_index_reduce, _np_index_select,
                          _np_masked_fill, _np_scatter_reduce, _np_split, _np_take, _np_tensor_split, _np_unbind,
                          _np_unfold)
from ..samplers import (_sample_gather, _sample_index_reduce, _sample_index_select, _sample_masked_fill,
                        _sample_scatter_reduce, _sample_shape_kw, _sample_take)


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
