"""vmap over every row of the op table: the batched call equals the row's op applied to each
sample in turn, and ``LACKING_RULE`` counts the rows still run by the per-sample fallback (it
may only shrink)."""
import warnings

import numpy as np
import pytest

import numgrad
from numgrad.batched import dispatch
from numgrad.testing import OP_DB, assert_close

BATCH = 3


def _dtype(info):
    for d in ("float64", "float32", "int64", "bool"):
        if d in info.dtypes:
            return d
    return info.dtypes[0]


def _batch(info):
    """The first sample whose array shapes agree over three seeds: (args, in_dims, kwargs,
    per-sample args), or None."""
    dtype = _dtype(info)
    seeds = [info.samples(dtype, seed) for seed in range(BATCH)]
    for k in range(min(len(s) for s in seeds)):
        group = [s[k] for s in seeds]
        first = group[0]
        if any(len(g.args) != len(first.args) for g in group):
            continue
        arrays = [isinstance(a, np.ndarray) for a in first.args]
        if not any(arrays) or any(
                isinstance(a, np.ndarray) and any(np.shape(g.args[i]) != a.shape for g in group)
                for i, a in enumerate(first.args)):
            continue
        if info.invertible_inputs or info.name in _SAME_SAMPLE:
            group = [first] * BATCH
        args, dims = [], []
        for i, a in enumerate(first.args):
            if arrays[i]:
                args.append(numgrad.tensor(np.stack([g.args[i] for g in group])))
                dims.append(0)
            else:
                args.append(a)
                dims.append(None)
        per_sample = [[numgrad.tensor(np.array(g.args[i])) if arrays[i] else first.args[i]
                       for i in range(len(first.args))] for g in group]
        return args, tuple(dims), first.kwargs, per_sample
    return None


# Rows whose samples must keep a property across the batch (index ranges tied to values).
_SAME_SAMPLE = set()


def _run(info):
    batch = _batch(info)
    if batch is None:
        return None, None
    args, dims, kwargs, per_sample = batch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = [info.op(*a, **kwargs) for a in per_sample]
        before = set(dispatch.fallback_keys)
        dispatch.fallback_keys.clear()
        try:
            got = numgrad.vmap(lambda *xs: info.op(*xs, **kwargs), in_dims=dims)(*args)
        finally:
            fell_back = set(dispatch.fallback_keys)
            dispatch.fallback_keys.clear()
            dispatch.fallback_keys.update(before)
    return (got, expected), fell_back


def _compare(got, expected):
    if isinstance(expected[0], (tuple, list)):
        assert len(got) == len(expected[0])
        for j in range(len(got)):
            _compare(got[j], [e[j] for e in expected])
        return
    if not isinstance(expected[0], numgrad.Tensor):
        return
    assert_close(got, numgrad.stack(expected), check_dtype=True)


def _public(info) -> bool:
    """Rows of functions a program can call (the table also checks internal kernels, such as the
    ops backward passes run, which only ever see plain tensors)."""
    path = (info.torch_name or info.name).split(".")
    for space in (numgrad, numgrad.nn.functional, numgrad.Tensor):
        for part in path:
            space = getattr(space, part, None)
        if space is not None:
            return True
    return False


def _deterministic(info) -> bool:
    return info.kind != "sampling" and "dropout" not in info.name and info.name not in ("gumbel_softmax", "rrelu")


_ROWS = [pytest.param(i, id=i.id) for i in OP_DB if _public(i) and _deterministic(i)]


# Rows whose result's size depends on the values: vmap refuses them, as PyTorch's does.
_DYNAMIC_SHAPE = {"masked_select"}


@pytest.mark.parametrize("info", _ROWS)
def test_vmap_matches_per_sample_calls(info):
    if info.name in _DYNAMIC_SHAPE:
        with pytest.raises(RuntimeError, match="operators that can output dynamic shape"):
            _run(info)
        return
    outcome, _ = _run(info)
    if outcome is None:
        pytest.skip("no sample with the same shapes over the batch")
    _compare(*outcome)


# Rows whose op still runs once per sample under vmap, for want of a batching rule.
LACKING_RULE = [
    "renorm", "vander", "cov", "cov.weights", "corrcoef", "quantile.tensor_q", "block_diag", "pdist", "affine_grid",
    "embedding_bag", "ctc_loss", "multi_head_attention_forward", "as_strided_scatter", "index_put",
    "as_strided",
]


def test_rows_lacking_a_batching_rule():
    lacking = []
    for param in _ROWS:
        info = param.values[0]
        try:
            _, fell_back = _run(info)
        except Exception:  # reported by the test above
            continue
        if fell_back:
            lacking.append(info.id)
    assert sorted(lacking) == sorted(LACKING_RULE), sorted(lacking)
