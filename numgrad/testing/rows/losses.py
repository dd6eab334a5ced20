"""The table's rows for the losses of ``numgrad.nn.functional`` (divergences, likelihoods, margin
and ranking losses, CTC) and for gumbel_softmax, with NumPy references."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES, INT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg

_F = numgrad.nn.functional
_REDUCTIONS = ("none", "mean", "sum")


def _np_reduce(loss, reduction):
    if reduction == "none":
        return loss
    return np.mean(loss) if reduction == "mean" else np.sum(loss)


def _np_pairwise(x, y, p=2.0, eps=1e-6):
    return np.sum(np.abs(x - y + eps) ** p, axis=-1) ** (1.0 / p)


def _np_log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _np_kl_div(x, t, reduction="mean", log_target=False):
    if log_target:
        loss = np.exp(t) * (t - x)
    else:
        loss = np.where(t > 0, t * np.log(np.where(t > 0, t, 1.0)), 0.0) - t * x
    if reduction == "batchmean":
        return np.sum(loss) / x.shape[0]
    return _np_reduce(loss, reduction)


def _np_poisson_nll(x, t, log_input=True, full=False, eps=1e-8, reduction="mean"):
    loss = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        safe = np.where(t > 1, t, 2.0)
        loss = loss + np.where(t > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0.0)
    return _np_reduce(loss, reduction)


def _np_gaussian_nll(x, t, var, full=False, eps=1e-6, reduction="mean"):
    if var.shape != x.shape and var.shape == x.shape[:-1]:
        var = var[..., None]
    var = np.maximum(var, eps)
    loss = 0.5 * (np.log(var) + (x - t) ** 2 / var) + (0.5 * np.log(2 * np.pi) if full else 0.0)
    return _np_reduce(loss, reduction)


def _np_soft_margin(x, t, reduction="mean"):
    return _np_reduce(np.log1p(np.exp(-x * t)), reduction)


def _np_multilabel_soft_margin(x, t, weight=None, reduction="mean"):
    loss = -(t * _np_log_sigmoid(x) + (1 - t) * _np_log_sigmoid(-x))
    loss = loss * weight if weight is not None else loss
    return _np_reduce(loss.mean(-1), reduction)


def _np_margin_ranking(x1, x2, t, margin=0.0, reduction="mean"):
    return _np_reduce(np.maximum(-t * (x1 - x2) + margin, 0.0), reduction)


def _np_hinge_embedding(x, t, margin=1.0, reduction="mean"):
    return _np_reduce(np.where(t != 1, np.maximum(margin - x, 0.0), 0.0) + np.where(t != -1, x, 0.0), reduction)


def _np_cosine_embedding(x1, x2, t, margin=0.0, reduction="mean"):
    d = t.ndim
    cos = (x1 * x2).sum(d) / np.sqrt(((x1 * x1).sum(d) + 1e-12) * ((x2 * x2).sum(d) + 1e-12))
    return _np_reduce(np.where(t == 1, 1 - cos, 0.0) + np.where(t == -1, np.maximum(cos - margin, 0.0), 0.0),
                      reduction)


def _np_triplet(a, p, n, margin=1.0, p_norm=2.0, eps=1e-6, swap=False, reduction="mean"):
    to_negative = _np_pairwise(a, n, p_norm, eps)
    if swap:
        to_negative = np.minimum(to_negative, _np_pairwise(p, n, p_norm, eps))
    return _np_reduce(np.maximum(margin + _np_pairwise(a, p, p_norm, eps) - to_negative, 0.0), reduction)


def _np_triplet_margin(a, p, n, margin=1.0, p_norm=2.0, eps=1e-6, swap=False, reduction="mean"):
    return _np_triplet(a, p, n, margin, p_norm, eps, swap, reduction)


def _triplet_margin(a, p, n, margin=1.0, p_norm=2.0, eps=1e-6, swap=False, reduction="mean"):
    # The table names its kwargs as the reference does: p is the norm's order there.
    return _F.triplet_margin_loss(a, p, n, margin=margin, p=p_norm, eps=eps, swap=swap, reduction=reduction)


def _np_triplet_with_distance(a, p, n, margin=1.0, swap=False, reduction="mean"):
    return _np_triplet(a, p, n, margin, swap=swap, reduction=reduction)


def _np_multi_margin(x, y, p=1, margin=1.0, weight=None, reduction="mean"):
    y = y.astype(np.int64)
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    picked = np.take_along_axis(x2, y.reshape(-1, 1), 1)
    hinge = np.maximum(margin - picked + x2, 0.0) ** p
    if weight is not None:
        hinge = hinge * weight[y.reshape(-1, 1)]
    hinge[np.arange(x2.shape[0]), y.reshape(-1)] = 0.0
    return _np_reduce((hinge.sum(1) / x2.shape[1]).reshape(y.shape), reduction)


def _np_multilabel_margin(x, y, reduction="mean"):
    y = y.astype(np.int64)
    x2, y2 = x.reshape(-1, x.shape[-1]), y.reshape(-1, x.shape[-1])
    loss = np.zeros(x2.shape[0])
    for n, (row, labels) in enumerate(zip(x2, y2)):
        listed = labels[:np.argmax(labels == -1)] if (labels == -1).any() else labels
        others = [i for i in range(len(row)) if i not in set(listed)]
        loss[n] = sum(max(0.0, 1 - row[j] + row[i]) for j in listed for i in others) / len(row)
    return _np_reduce(loss.reshape(x.shape[:-1]), reduction)


def _np_ctc(lp, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    targets = targets.astype(np.int64)
    losses = []
    for n, (frames, length) in enumerate(zip(input_lengths, target_lengths)):
        labels = [blank]
        for c in targets[n, :length]:
            labels += [int(c), blank]
        alpha = np.full(len(labels), -np.inf)
        alpha[:2] = lp[0, n, labels[:2]]
        for t in range(1, frames):
            prev = alpha.copy()
            for s in range(len(labels)):
                terms = [prev[s]] + ([prev[s - 1]] if s else [])
                if s >= 2 and labels[s] != blank and labels[s] != labels[s - 2]:
                    terms.append(prev[s - 2])
                alpha[s] = np.logaddexp.reduce(terms) + lp[t, n, labels[s]]
        nll = -np.logaddexp.reduce(alpha[-2:] if length else alpha[-1:])
        losses.append(0.0 if zero_infinity and np.isinf(nll) else nll)
    losses = np.array(losses)
    if reduction == "mean":
        return np.mean(losses / np.maximum(np.array(target_lengths), 1))
    return _np_reduce(losses, reduction)


def _seeded_gumbel_softmax(logits, **kwargs):
    # Seeded so that the op is a function of its input (for gradcheck) and the reference sees its noise.
    numgrad.manual_seed(0)
    return _F.gumbel_softmax(logits, **kwargs)


def _np_gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    numgrad.manual_seed(0)
    noise = numgrad.empty(logits.shape, dtype=numgrad.float64).exponential_().numpy()
    z = (logits - np.log(noise)) / tau
    soft = np.exp(z - z.max(dim, keepdims=True))
    soft = soft / soft.sum(dim, keepdims=True)
    if not hard:
        return soft
    return (soft == soft.max(dim, keepdims=True)).astype(soft.dtype)


def _pair(shape, dtype, rng, domains=((None, None), (None, None))):
    return [_arg(shape, dtype, rng, d) for d in domains]


def _signs(shape, dtype, rng):
    return np.where(rng.random(shape) < 0.5, -1, 1).astype(dtype)


def _sample_kl_div(dtype, rng):
    for shape, kw in (((3, 4), {"reduction": "batchmean"}), ((5,), {"reduction": "sum"}),
                      ((2, 3), {"reduction": "none", "log_target": True}), ((0, 3), {"reduction": "sum"})):
        target = _arg(shape, dtype, rng, (-2, 0) if kw.get("log_target") else (0.05, 1))
        yield SampleInput((_arg(shape, dtype, rng, (-3, 0)), target), kw)


def _sample_poisson_nll(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (-2, 2)), _arg((3, 4), dtype, rng, (0, 4))), {})
    yield SampleInput((_arg((5,), dtype, rng, (0.1, 3)), _arg((5,), dtype, rng, (0, 4))),
                      {"log_input": False, "full": True, "reduction": "sum"})
    yield SampleInput((_arg((2, 3), dtype, rng, (-2, 2)), _arg((2, 3), dtype, rng, (0, 4))),
                      {"full": True, "reduction": "none"})


def _sample_gaussian_nll(dtype, rng):
    for shape, var_shape, kw in (((3, 4), (3, 4), {}), ((3, 4), (3,), {"full": True, "reduction": "sum"}),
                                 ((2, 3, 2), (2, 1, 2), {"reduction": "none"}), ((0, 2), (0, 2), {"reduction": "sum"})):
        yield SampleInput((*_pair(shape, dtype, rng), _arg(var_shape, dtype, rng, (0.2, 2))), kw)


def _sample_input_sign_target(dtype, rng, target_dtype=None):
    # Integral targets where the loss only compares them with 1 and -1: not perturbed by the checks.
    for shape, kw in (((3, 4), {}), ((5,), {"reduction": "sum"}), ((2, 3), {"reduction": "none"})):
        yield SampleInput((_arg(shape, dtype, rng, (-3, 3)), _signs(shape, target_dtype or dtype, rng)), kw)


def _sample_multilabel_soft_margin(dtype, rng):
    for shape, kw in (((3, 4), {}), ((2, 5), {"reduction": "none"}), ((4,), {"reduction": "sum"})):
        yield SampleInput((_arg(shape, dtype, rng, (-3, 3)), (rng.random(shape) < 0.5).astype(dtype)), kw)
    yield SampleInput((_arg((2, 3), dtype, rng, (-3, 3)), (rng.random((2, 3)) < 0.5).astype(dtype),
                       _arg((3,), dtype, rng, (0.5, 2))), {"reduction": "sum"})


def _sample_margin_ranking(dtype, rng):
    for shape, kw in (((6,), {"margin": 0.5}), ((2, 3), {"reduction": "none"}), ((4,), {"reduction": "sum"})):
        yield SampleInput((*_pair(shape, dtype, rng), _signs(shape, dtype, rng)), kw)


def _sample_cosine_embedding(dtype, rng):
    yield SampleInput((*_pair((3, 4), dtype, rng), _signs((3,), "int64", rng)), {"margin": 0.2})
    yield SampleInput((*_pair((2, 5), dtype, rng), _signs((2,), "int64", rng)), {"reduction": "none"})
    yield SampleInput((*_pair((4, 2), dtype, rng), _signs((4,), "int64", rng)), {"reduction": "sum", "margin": -0.3})


def _sample_triplet(dtype, rng, kwargs):
    for shape, kw in zip(((3, 4), (5,), (2, 3)), kwargs):
        yield SampleInput(tuple(_pair(shape, dtype, rng, ((None, None),) * 3)), kw)


def _sample_multi_margin(dtype, rng):
    yield SampleInput((_arg((4, 5), dtype, rng, (-2, 2)), rng.integers(0, 5, (4,))), {})
    yield SampleInput((_arg((3, 4), dtype, rng, (-2, 2)), rng.integers(0, 4, (3,))),
                      {"p": 2, "margin": 0.7, "reduction": "none"})
    yield SampleInput((_arg((4,), dtype, rng, (-2, 2)), np.array(2)), {"reduction": "sum"})
    yield SampleInput((_arg((3, 4), dtype, rng, (-2, 2)), rng.integers(0, 4, (3,)), 1, 0.5,
                       _arg((4,), dtype, rng, (0.5, 2))), {"reduction": "sum"})


def _sample_multilabel_margin(dtype, rng):
    targets = np.array([[3, 0, -1, 1], [1, 1, 2, 0], [-1, 2, 2, 2]])
    yield SampleInput((_arg((3, 4), dtype, rng, (-2, 2)), targets), {})
    yield SampleInput((_arg((3, 4), dtype, rng, (-2, 2)), targets), {"reduction": "none"})
    yield SampleInput((_arg((4,), dtype, rng, (-2, 2)), targets[0]), {"reduction": "sum"})


def _sample_ctc(dtype, rng):
    targets = rng.integers(1, 5, (3, 4))
    targets[0, 1] = targets[0, 0]
    for kw in ({}, {"reduction": "none"}, {"reduction": "sum", "blank": 4}):
        lp = _arg((7, 3, 5), dtype, rng, (-3, 0))
        yield SampleInput((lp, targets, (7, 5, 2), (4, 2, 0)), kw)
    # The third sample cannot align its 3 labels with 2 frames: an infinite loss, zeroed.
    yield SampleInput((_arg((6, 3, 5), dtype, rng, (-3, 0)), targets, (6, 4, 2), (3, 1, 3)),
                      {"reduction": "none", "zero_infinity": True})


def _sample_gumbel(dtype, rng):
    for shape, kw in (((3, 5), {}), ((2, 3, 4), {"tau": 0.5, "dim": 1}), ((4, 3), {"hard": True})):
        yield SampleInput((_arg(shape, dtype, rng, (-2, 2)),), kw)


def _np_mse(x, t, reduction="mean"):
    return _np_reduce((x - t) ** 2, reduction)


def _np_huber(x, t, reduction="mean", delta=1.0):
    d = np.abs(x - t)
    return _np_reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def _np_smooth_l1(x, t, reduction="mean", beta=1.0):
    d = np.abs(x - t)
    if beta == 0:
        return _np_reduce(d, reduction)
    return _np_reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def _np_bce(x, t, weight=None, reduction="mean"):
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    return _np_reduce(loss if weight is None else loss * np.asarray(weight), reduction)


def _np_bce_with_logits(x, t, weight=None, pos_weight=None, reduction="mean"):
    softplus = np.logaddexp(0.0, -x)
    loss = (1 - t) * x + (softplus if pos_weight is None else (1 + (np.asarray(pos_weight) - 1) * t) * softplus)
    return _np_reduce(loss if weight is None else loss * np.asarray(weight), reduction)


def _np_nll(x, target, weight=None, ignore_index=-100, reduction="mean"):
    target = target.astype(np.int64)
    classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    w = np.ones(classes) if weight is None else np.asarray(weight)
    xs = np.moveaxis(x, 1, -1) if x.ndim > 1 else x[None]
    ts = target if x.ndim > 1 else target[None]
    keep = ts != ignore_index
    safe = np.where(keep, ts, 0)
    picked = np.take_along_axis(xs, safe[..., None], -1)[..., 0]
    wt = np.where(keep, w[safe], 0.0)
    loss = -picked * wt
    if reduction == "none":
        return loss if x.ndim > 1 else loss[0]
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def _sample_regression(dtype, rng, *, extra=()):
    for shape, kw in (((3, 4), {}), ((5,), {"reduction": "sum"}), ((2, 3, 2), {"reduction": "none"}),
                      ((), {}), ((0, 3), {"reduction": "sum"})) + tuple(extra):
        yield SampleInput(tuple(_pair(shape, dtype, rng, ((-3, 3), (-3, 3)))), kw)


def _sample_bce(dtype, rng, *, logits=False):
    for shape, kw in (((3, 4), {}), ((5,), {"reduction": "sum"}), ((2, 3), {"reduction": "none"}),
                      ((0, 2), {"reduction": "sum"})):
        x = _arg(shape, dtype, rng, (-3, 3) if logits else (0.05, 0.95))
        yield SampleInput((x, _arg(shape, dtype, rng, (0, 1))), kw)


def _weights(n, rng):
    # A list, not an array: the table's gradient checks leave it constant, as PyTorch requires.
    return [float(w) for w in rng.uniform(0.5, 2, n)]


def _sample_weighted_bce(dtype, rng, *, logits=False):
    # weight broadcast over the batch; pos_weight (with logits) per class
    x = _arg((3, 4), dtype, rng, (-3, 3) if logits else (0.05, 0.95))
    args = (x, _arg((3, 4), dtype, rng, (0, 1)))
    for kw in ({}, {"reduction": "none"}):
        kw["weight"] = _weights(4, rng)
        if logits:
            kw["pos_weight"] = _weights(4, rng)
        yield SampleInput(args, kw)


def _as_weight(weight, like):
    return None if weight is None else numgrad.tensor(weight, dtype=like.dtype, device=like.device)


def _weighted_bce(x, t, weight=None, reduction="mean"):
    return _F.binary_cross_entropy(x, t, weight=_as_weight(weight, x), reduction=reduction)


def _weighted_bce_with_logits(x, t, weight=None, pos_weight=None, reduction="mean"):
    return _F.binary_cross_entropy_with_logits(x, t, weight=_as_weight(weight, x), pos_weight=_as_weight(pos_weight, x),
                                               reduction=reduction)


def _sample_nll(dtype, rng, *, weighted=False):
    cases = (((4, 3), (4,), {}), ((3,), (), {"reduction": "sum"}), ((2, 3, 2, 2), (2, 2, 2), {"reduction": "none"}),
             ((5, 4), (5,), {"ignore_index": 1}), ((0, 3), (0,), {"reduction": "sum"}))
    for shape, tshape, kw in cases:
        classes = shape[1] if len(shape) > 1 else shape[0]
        args = (_arg(shape, dtype, rng, (-3, 0)), rng.integers(0, classes, tshape))
        yield SampleInput(args, {**kw, "weight": _weights(classes, rng)} if weighted else kw)


def _weighted_nll(x, target, weight=None, **kw):
    return _F.nll_loss(x, target, weight=_as_weight(weight, x), **kw)


_LOSS = dict(method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction",
             tolerances={"float16": (2e-2, 2e-2)})
_INTEGRAL_INPUTS = {f"unsupported-{d}": "integral inputs compute, as in PyTorch" for d in INT_DTYPES}


def _loss(name, ref, sampler, op=None, **kw):
    return OpInfo(name, op or getattr(_F, name), ref, sampler, kw.pop("dtypes", FLOAT_DTYPES), **{**_LOSS, **kw})


ROWS = [
    _loss("kl_div", _np_kl_div, _sample_kl_div),
    _loss("poisson_nll_loss", _np_poisson_nll, _sample_poisson_nll, xfails=_INTEGRAL_INPUTS),
    _loss("gaussian_nll_loss", _np_gaussian_nll, _sample_gaussian_nll),
    _loss("soft_margin_loss", _np_soft_margin, partial(_sample_input_sign_target, target_dtype="int64")),
    _loss("multilabel_soft_margin_loss", _np_multilabel_soft_margin, _sample_multilabel_soft_margin),
    _loss("margin_ranking_loss", _np_margin_ranking, _sample_margin_ranking, xfails=_INTEGRAL_INPUTS),
    _loss("hinge_embedding_loss", _np_hinge_embedding, partial(_sample_input_sign_target, target_dtype="int64")),
    _loss("cosine_embedding_loss", _np_cosine_embedding, _sample_cosine_embedding,
          xfails={**_INTEGRAL_INPUTS, "unsupported-bool": "integral inputs compute, as in PyTorch"}),
    _loss("triplet_margin_loss", _np_triplet_margin,
          partial(_sample_triplet, kwargs=({}, {"swap": True, "reduction": "none"}, {"p_norm": 1.0, "margin": 2.0})),
          op=_triplet_margin, xfails=_INTEGRAL_INPUTS),
    _loss("triplet_margin_with_distance_loss", _np_triplet_with_distance,
          partial(_sample_triplet,
                  kwargs=({}, {"swap": True, "reduction": "none"}, {"margin": 0.5, "reduction": "sum"})),
          xfails=_INTEGRAL_INPUTS),
    _loss("multi_margin_loss", _np_multi_margin, _sample_multi_margin),
    _loss("multilabel_margin_loss", _np_multilabel_margin, _sample_multilabel_margin),
    _loss("ctc_loss", _np_ctc, _sample_ctc, dtypes=("float32", "float64"), supports_grad=False,
          supports_gradgrad=False, supports_forward_ad=False),
    _loss("gumbel_softmax", _np_gumbel_softmax, _sample_gumbel, op=_seeded_gumbel_softmax, kind="elementwise"),
    _loss("mse_loss", _np_mse, _sample_regression),
    _loss("huber_loss", _np_huber, partial(_sample_regression, extra=(((3, 4), {"delta": 0.5}),))),
    _loss("smooth_l1_loss", _np_smooth_l1,
          partial(_sample_regression, extra=(((3, 4), {"beta": 0.5}), ((4,), {"beta": 0.0, "reduction": "none"})))),
    _loss("binary_cross_entropy", _np_bce, _sample_bce),
    _loss("binary_cross_entropy", _np_bce, _sample_weighted_bce, op=_weighted_bce, variant="weighted"),
    _loss("binary_cross_entropy_with_logits", _np_bce_with_logits, partial(_sample_bce, logits=True)),
    _loss("binary_cross_entropy_with_logits", _np_bce_with_logits, partial(_sample_weighted_bce, logits=True),
          op=_weighted_bce_with_logits, variant="weighted"),
    _loss("nll_loss", _np_nll, _sample_nll),
    _loss("nll_loss", _np_nll, partial(_sample_nll, weighted=True), op=_weighted_nll, variant="weighted"),
]
