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
