"""grad_fn class names follow PyTorch's, overload by overload (SumBackward0 for a full sum,
SumBackward1 over dims); checked against a table and, when torch is installed, against torch."""
import pytest

import numgrad

try:
    import torch
except ImportError:  # the table alone still pins the names
    torch = None

# expression over x, y (2x3 float64, requiring grad), w (3x2) and the module ``mod`` -> name
NAMES = {
    "x + y": "AddBackward0",
    "x - y": "SubBackward0",
    "x - 2": "SubBackward0",
    "2 - x": "RsubBackward1",
    "x * y": "MulBackward0",
    "x / y": "DivBackward0",
    "-x": "NegBackward0",
    "x ** 2": "PowBackward0",
    "x.pow(2.5)": "PowBackward0",
    "x ** y": "PowBackward1",
    "x.pow(mod.tensor(2.0, dtype=mod.float64))": "PowBackward1",
    "2 ** x": "PowBackward2",
    "x.square()": "PowBackward0",
    "x.log1p()": "Log1PBackward0",
    "x.expm1()": "Expm1Backward0",
    "x.exp()": "ExpBackward0",
    "x.sum()": "SumBackward0",
    "x.sum(dtype=mod.float32)": "SumBackward0",
    "x.sum(0)": "SumBackward1",
    "x.sum((0, 1))": "SumBackward1",
    "x.sum(-1, keepdim=True)": "SumBackward1",
    "x.sum(0).sum()": "SumBackward0",
    "x.mean()": "MeanBackward0",
    "x.mean(0)": "MeanBackward1",
    "x.mean((0, 1), keepdim=True)": "MeanBackward1",
    "x.prod()": "ProdBackward0",
    "x.prod(1)": "ProdBackward1",
    "x.max()": "MaxBackward1",
    "x.min()": "MinBackward1",
    "x.max(0)[0]": "MaxBackward0",
    "x.min(1, keepdim=True)[0]": "MinBackward0",
    "x.amax()": "AmaxBackward0",
    "x.amax(0)": "AmaxBackward0",
    "x.amin(1)": "AminBackward0",
    "x.median(0)[0]": "MedianBackward1",
    "x.squeeze()": "SqueezeBackward0",
    "x.unsqueeze(0).squeeze(0)": "SqueezeBackward1",
    "x.unsqueeze(0).squeeze((0,))": "SqueezeBackward2",
    "x.unsqueeze(0)": "UnsqueezeBackward0",
    "x.clamp_min(0.0)": "ClampMinBackward0",
    "x.clamp_min(y)": "ClampMinBackward1",
    "x.clamp_max(0.0)": "ClampMaxBackward0",
    "x.clamp_max(y)": "ClampMaxBackward1",
    "x.clamp(0.0, 1.0)": "ClampBackward1",
    "x.clamp(min=0.0)": "ClampBackward1",
    "x.clamp(y, y + 1)": "ClampBackward0",
    "x.clamp(max=y)": "ClampBackward0",
    "x.fmod(1.5)": "FmodBackward0",
    "x.fmod(y)": "FmodBackward1",
    "x.remainder(1.5)": "RemainderBackward0",
    "x.remainder(y)": "RemainderBackward1",
    "mod.lerp(x, y, 0.5)": "LerpBackward0",
    "mod.lerp(x, y, y)": "LerpBackward1",
    "mod.maximum(x, y)": "MaximumBackward0",
    "x.atan2(y)": "Atan2Backward0",
    "x.t()": "TBackward0",
    "x.transpose(0, 1)": "TransposeBackward0",
    "x.permute(1, 0)": "PermuteBackward0",
    "x.view(-1)": "ViewBackward0",
    "x.expand(2, 2, 3)": "ExpandBackward0",
    "x[0]": "SelectBackward0",
    "x[:, 1:]": "SliceBackward0",
    "x.clone()": "CloneBackward0",
    "x.matmul(w)": "MmBackward0",
    "x.softmax(0)": "SoftmaxBackward0",
    "x.log_softmax(1)": "LogSoftmaxBackward0",
    "x.cumsum(0)": "CumsumBackward0",
    "x.abs()": "AbsBackward0",
    "x.sign()": "SignBackward0",
    "x.sigmoid()": "SigmoidBackward0",
    "x.tanh()": "TanhBackward0",
    "mod.nn.functional.gelu(x)": "GeluBackward0",
    "mod.nn.functional.gelu(x, approximate='tanh')": "GeluBackward0",
    "mod.nn.functional.silu(x)": "SiluBackward0",
    "mod.nn.functional.leaky_relu(x, 0.2)": "LeakyReluBackward0",
    "mod.nn.functional.elu(x)": "EluBackward0",
    "mod.nn.functional.softplus(x, 2.0, 5.0)": "SoftplusBackward0",
    "mod.nn.functional.hardtanh(x)": "HardtanhBackward0",
    "mod.nn.functional.relu6(x)": "HardtanhBackward0",
    "mod.nn.functional.logsigmoid(x)": "LogSigmoidBackward0",
    "x.sgn()": "SgnBackward0",
    "x.nan_to_num()": "NanToNumBackward0",
    "x.hypot(y)": "HypotBackward0",
    "x.xlogy(y)": "XlogyBackward0",
    "mod.xlogy(2.0, y)": "XlogyBackward1",
    "x.xlogy(2.0)": "XlogyBackward2",
    "x.logaddexp(y)": "LogaddexpBackward0",
    # composites recorded as one node
    "x.var()": "VarBackward0",
    "x.var(1)": "VarBackward0",
    "x.std(1)": "StdBackward0",
    "x.logsumexp(1)": "LogsumexpBackward0",
    "x.dist(y)": "DistBackward0",
    "x.roll(1, 0)": "RollBackward0",
    "x.roll(1)": "RollBackward0",
    "x.repeat(2, 1)": "RepeatBackward0",
    "x.tile(2)": "RepeatBackward0",
    "x.tril()": "TrilBackward0",
    "x.triu(1)": "TriuBackward0",
    "x.trace()": "TraceBackward0",
    "mod.stack([x, y])": "StackBackward0",
    "x.masked_fill(x > 0, 0.0)": "MaskedFillBackward0",
    "x.masked_fill(x > 0, y[0, 0])": "MaskedFillBackward1",
    "x.masked_select(x > 0)": "MaskedSelectBackward0",
    "x.kthvalue(2)[0]": "KthvalueBackward0",
    "x.matmul(w[:, 0])": "MvBackward0",
    "x.addcmul(y, y)": "AddcmulBackward0",
    "x.addcdiv(y, y)": "AddcdivBackward0",
    "x.index_reduce(0, mod.tensor([0, 1]), y, 'amax')": "IndexReduceBackward0",
    "mod.nn.functional.smooth_l1_loss(x, y)": "SmoothL1LossBackward0",
    "mod.nn.functional.huber_loss(x, y, reduction='none')": "HuberLossBackward0",
    "mod.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid())": "BinaryCrossEntropyBackward0",
    "mod.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid())": "BinaryCrossEntropyWithLogitsBackward0",
    "mod.nn.functional.layer_norm(x, (3,))": "NativeLayerNormBackward0",
    "mod.nn.functional.layer_norm(x, (3,), w[:, 0], w[:, 1])": "NativeLayerNormBackward0",
}

# The one-node composites above: their own rules, checked to second order and in forward mode.
_F = numgrad.nn.functional
_I = numgrad.tensor([1, 0, 1])
RULES = {
    "var": (lambda x: x.var((0, 2), correction=0), [(2, 3, 2)]),
    "std": (lambda x: x.std(1, keepdim=True), [(2, 3)]),
    "logsumexp": (lambda x: x.logsumexp(1), [(2, 3)]),
    "dist": (lambda x, y: x.dist(y, 3), [(2, 3), (3,)]),
    "roll": (lambda x: x.roll((1, -1), (0, 1)), [(2, 3)]),
    "repeat": (lambda x: x.repeat(2, 1, 2), [(2, 3)]),
    "tril": (lambda x: x.tril(-1), [(3, 3)]),
    "trace": (lambda x: x.trace(), [(2, 3)]),
    "stack": (lambda x, y: numgrad.stack([x, y], 1), [(2, 3), (2, 3)]),
    "masked_fill": (lambda x, v: x.masked_fill(x > 0, v), [(2, 3), ()]),
    "masked_select": (lambda x: x.masked_select(x > 0), [(2, 3)]),
    "kthvalue": (lambda x: x.kthvalue(2, 0)[0], [(3, 2)]),
    "mv": (lambda a, v: a.mv(v), [(2, 3), (3,)]),
    "addcmul": (lambda x, a, b: x.addcmul(a, b, value=0.5), [(2, 3), (3,), (2, 3)]),
    "addcdiv": (lambda x, a, b: x.addcdiv(a, b.exp(), value=2), [(2, 3), (2, 3), (2, 1)]),
    "index_reduce": (lambda x, s: x.index_reduce(0, _I, s, "prod"), [(2, 3), (3, 3)]),
    "smooth_l1_loss": (lambda x, y: _F.smooth_l1_loss(x, y, beta=0.5), [(2, 3), (2, 3)]),
    "huber_loss": (lambda x, y: _F.huber_loss(x, y, reduction="sum", delta=0.5), [(2, 3), (2, 3)]),
    "binary_cross_entropy": (lambda x, y: _F.binary_cross_entropy(x.sigmoid(), y.sigmoid()), [(2, 3), (2, 3)]),
    "binary_cross_entropy_with_logits": (lambda x, y: _F.binary_cross_entropy_with_logits(
        x, y.sigmoid(), pos_weight=numgrad.tensor([1.0, 2.0, 0.5], dtype=numgrad.float64)), [(2, 3), (2, 3)]),
    "layer_norm": (lambda x, w, b: _F.layer_norm(x, (3,), w, b), [(2, 3), (3,), (3,)]),
}


def _variables(mod):
    x = mod.tensor([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]], dtype=mod.float64, requires_grad=True)
    y = mod.tensor([[1.1, 0.4, -0.2], [0.9, 2.1, 1.3]], dtype=mod.float64, requires_grad=True)
    w = mod.tensor([[0.2, 0.1], [0.3, -0.4], [0.5, 0.6]], dtype=mod.float64, requires_grad=True)
    return {"x": x, "y": y, "w": w, "mod": mod}


def _name(mod, expr):
    return type(eval(expr, _variables(mod)).grad_fn).__name__


@pytest.mark.parametrize("expr, name", NAMES.items(), ids=list(NAMES))
def test_grad_fn_name(expr, name):
    assert _name(numgrad, expr) == name


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_table_matches_torch():
    wrong = {expr: _name(torch, expr) for expr, name in NAMES.items() if _name(torch, expr) != name}
    assert not wrong


def test_variants_share_one_rule():
    # SumBackward0 and SumBackward1 differ in name only: both run the sum's VJP.
    x = numgrad.ones(2, 3, dtype=numgrad.float64, requires_grad=True)
    full, over_dim = x.sum(), x.sum(0)
    assert type(full.grad_fn).op is type(over_dim.grad_fn).op
    (g,) = numgrad.autograd.grad(over_dim.sum() + full, x)
    assert g.tolist() == [[2.0] * 3] * 2
    assert x.sum(1).grad_fn.name() == "SumBackward1"


@pytest.mark.parametrize("name", list(RULES))
def test_one_node_rules(name):
    from numgrad.autograd import forward_ad as fwAD
    from numgrad.autograd import gradcheck, gradgradcheck
    fn, shapes = RULES[name]
    gen = numgrad.Generator().manual_seed(sum(map(ord, name)))
    xs = [numgrad.randn(s, dtype=numgrad.float64, generator=gen).requires_grad_() for s in shapes]
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)
    # forward mode: <J t, w> against the reverse mode's <t, J^T w>
    ts = [numgrad.randn(s, dtype=numgrad.float64, generator=gen) for s in shapes]
    with fwAD.dual_level():
        out = fn(*[fwAD.make_dual(x.detach(), t) for x, t in zip(xs, ts)])
        y, jt = fwAD.unpack_dual(out)
    w = numgrad.randn(tuple(y.shape), dtype=numgrad.float64, generator=gen)
    grads = numgrad.autograd.grad((fn(*xs) * w).sum(), xs)
    lhs = (jt * w).sum().item()
    rhs = sum((g * t).sum().item() for g, t in zip(grads, ts))
    assert abs(lhs - rhs) <= 1e-9 * (1 + abs(rhs))
