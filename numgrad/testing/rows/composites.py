"""The table's rows for composite ops: differences, cumulative and statistical reductions,
distances, and the ops with two results."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES, NO_BOOL
from ..opinfo import OpInfo
from ..references import (_np_aminmax, _np_block_diag, _np_cosine_similarity, _np_cov, _np_cov_weighted,
                          _np_cumulative_trapezoid, _np_diff, _np_logcumsumexp, _np_nanmedian, _np_pairwise_distance,
                          _np_pdist, _np_quantile, _np_renorm, _np_trapezoid, _np_vander)
from ..samplers import (_sample_aminmax, _sample_block_diag, _sample_corrcoef, _sample_cosine_similarity, _sample_cov,
                        _sample_cov_weighted, _sample_diff, _sample_logcumsumexp, _sample_nanmedian,
                        _sample_pairwise_distance, _sample_pdist, _sample_quantile, _sample_renorm, _sample_trapezoid,
                        _sample_vander)
from .builders import _F16_COMPOSITE


def _cov_weighted(x, fweights, aweights, **kwargs):
    return numgrad.cov(x, fweights=fweights, aweights=aweights, **kwargs)


def _aminmax(x, *, out=None, **kwargs):
    if out is None:
        return numgrad.stack(numgrad.aminmax(x, **kwargs))
    # out=: both results written into fresh outs, which the pair returned must be
    pair = (numgrad.empty(0, dtype=out.dtype), numgrad.empty(0, dtype=out.dtype))
    r = numgrad.aminmax(x, **kwargs, out=pair)
    assert type(r).__name__ == "aminmax_out" and r.min is pair[0] and r.max is pair[1]
    return numgrad.stack(r, out=out)


def _nanmedian_values(x, *args, out=None, **kwargs):
    if out is None:
        return numgrad.nanmedian(x, *args, **kwargs).values
    indices = numgrad.empty(0, dtype=numgrad.int64)
    r = numgrad.nanmedian(x, *args, **kwargs, out=(out, indices))
    assert type(r).__name__ == "nanmedian_out" and r.indices is indices
    assert numgrad.equal(indices, numgrad.nanmedian(x, *args, **kwargs).indices)
    return r.values


_F = numgrad.nn.functional
_DIST_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}
# uint8 spacings (x's differences) wrap around in uint8, as PyTorch's do; the reference widens first.
_WRAPPING_SPACING = {"values-uint8": "uint8 differences of x wrap, as in PyTorch"}
ROWS = [
    OpInfo("diff", numgrad.diff, _np_diff, _sample_diff, inplace=None, kind="movement"),
    OpInfo("logcumsumexp", numgrad.logcumsumexp, _np_logcumsumexp, _sample_logcumsumexp, FLOAT_DTYPES,
           inplace=None, kind="reduction", tolerances={"float16": (5e-3, 5e-3)}),
    OpInfo("renorm", numgrad.renorm, _np_renorm, _sample_renorm, FLOAT_DTYPES, tolerances=_F16_COMPOSITE,
           kind="reduction"),
    OpInfo("vander", numgrad.vander, _np_vander, _sample_vander, method=None, inplace=None, supports_out=False,
           tolerances=_F16_COMPOSITE, kind="movement"),
    OpInfo("trapezoid", numgrad.trapezoid, _np_trapezoid, _sample_trapezoid, NO_BOOL, method=None,
           inplace=None, supports_out=False, tolerances=_F16_COMPOSITE, kind="reduction", xfails=_WRAPPING_SPACING),
    OpInfo("cumulative_trapezoid", numgrad.cumulative_trapezoid, _np_cumulative_trapezoid,
           partial(_sample_trapezoid, matrix_x=False), NO_BOOL, method=None, inplace=None, supports_out=False,
           tolerances=_F16_COMPOSITE, kind="reduction", xfails=_WRAPPING_SPACING),
    OpInfo("cov", numgrad.cov, _np_cov, _sample_cov, NO_BOOL, inplace=None, supports_out=False,
           tolerances=_DIST_TOL, kind="linalg"),
    OpInfo("cov", _cov_weighted, _np_cov_weighted, _sample_cov_weighted, FLOAT_DTYPES, variant="weights", method=None,
           inplace=None, supports_out=False, torch_name=None, tolerances=_DIST_TOL, kind="linalg"),
    OpInfo("corrcoef", numgrad.corrcoef, np.corrcoef, _sample_corrcoef, NO_BOOL, inplace=None,
           supports_out=False, tolerances=_DIST_TOL, kind="linalg"),
    OpInfo("quantile", numgrad.quantile, _np_quantile, partial(_sample_quantile, tensor_q=False),
           ("float32", "float64"), inplace=None, kind="reduction"),
    OpInfo("quantile", numgrad.quantile, _np_quantile, partial(_sample_quantile, tensor_q=True),
           ("float32", "float64"), variant="tensor_q", inplace=None, kind="reduction"),
    OpInfo("block_diag", numgrad.block_diag, _np_block_diag, _sample_block_diag, method=None, inplace=None,
           supports_out=False, kind="movement"),
    OpInfo("cosine_similarity", _F.cosine_similarity, _np_cosine_similarity, _sample_cosine_similarity,
           FLOAT_DTYPES, method=None, inplace=None, supports_out=False, tolerances=_DIST_TOL, kind="reduction"),
    OpInfo("pairwise_distance", _F.pairwise_distance, _np_pairwise_distance, _sample_pairwise_distance, NO_BOOL,
           method=None, inplace=None, supports_out=False, tolerances=_DIST_TOL, kind="reduction"),
    OpInfo("pdist", _F.pdist, _np_pdist, _sample_pdist, ("float32", "float64"), method=None, inplace=None,
           supports_out=False, tolerances=_DIST_TOL, kind="reduction"),
    # Ops with two results: the table checks them stacked (aminmax) or their values (nanmedian).
    OpInfo("aminmax", _aminmax, _np_aminmax, _sample_aminmax, method=None, inplace=None, torch_name=None,
           kind="reduction"),
    OpInfo("nanmedian", numgrad.nanmedian, _np_nanmedian, partial(_sample_nanmedian, dims=False), NO_BOOL,
           inplace=None, supports_out=False, kind="reduction"),
    # PyTorch's nanmedian has out= only over a dim.
    OpInfo("nanmedian", _nanmedian_values, _np_nanmedian, partial(_sample_nanmedian, dims=True), NO_BOOL,
           variant="dim", method=None, inplace=None, torch_name=None, kind="reduction"),
]
