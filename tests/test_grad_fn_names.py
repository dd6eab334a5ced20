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
    # their cotangents are one fused op each, whose node names the double backward
    "mod.autograd.grad(x.tanh().sum(), x, create_graph=True)[0]": "TanhBackwardBackward0",
    "mod.autograd.grad(x.sigmoid().sum(), x, create_graph=True)[0]": "SigmoidBackwardBackward0",
    "mod.heaviside(x, y)": "NotImplemented",
    "mod.heaviside(x.detach(), y)": "NotImplemented",
    "mod.nn.functional.gelu(x)": "GeluBackward0",
    "mod.nn.functional.gelu(x, approximate='tanh')": "GeluBackward0",
    "mod.nn.functional.silu(x)": "SiluBackward0",
    "mod.nn.functional.leaky_relu(x, 0.2)": "LeakyReluBackward0",
    "mod.nn.functional.elu(x)": "EluBackward0",
    "mod.nn.functional.softplus(x, 2.0, 5.0)": "SoftplusBackward0",
    "mod.nn.functional.hardtanh(x)": "HardtanhBackward0",
    "mod.nn.functional.relu6(x)": "HardtanhBackward0",
    "mod.nn.functional.logsigmoid(x)": "LogSigmoidBackward0",
    # in-place activations: one node each, reading the result (silu: a copy of the input)
    "mod.nn.functional.relu(x * 1, inplace=True)": "ReluBackward0",
    "mod.nn.functional.relu_(x * 1)": "ReluBackward0",
    "mod.relu_(x * 1)": "ReluBackward0",
    "(x * 1).relu_()": "ReluBackward0",
    "(x * 1).sigmoid_()": "SigmoidBackward0",
    "(x * 1).tanh_()": "TanhBackward0",
    "(x * 1).exp_()": "ExpBackward0",
    "mod.sigmoid_(x * 1)": "SigmoidBackward0",
    "mod.nn.functional.leaky_relu(x * 1, 0.2, inplace=True)": "LeakyReluBackward1",
    "mod.nn.functional.leaky_relu_(x * 1)": "LeakyReluBackward1",
    "mod.nn.functional.elu(x * 1, inplace=True)": "EluBackward1",
    "mod.nn.functional.elu_(x * 1, 0.5)": "EluBackward1",
    "mod.nn.functional.hardtanh(x * 1, inplace=True)": "HardtanhBackward0",
    "mod.nn.functional.hardtanh_(x * 1, -0.5, 0.5)": "HardtanhBackward0",
    "mod.nn.functional.relu6(x * 1, inplace=True)": "HardtanhBackward0",
    "mod.nn.functional.silu(x * 1, inplace=True)": "SiluBackward0",
    "mod.nn.functional.selu(x)": "EluBackward0",
    "mod.selu_(x * 1)": "EluBackward1",
    "mod.nn.functional.celu(x, 1.5)": "CeluBackward0",
    "mod.celu_(x * 1)": "CeluBackward1",
    "mod.nn.functional.mish(x)": "MishBackward0",
    "mod.nn.functional.hardswish(x)": "HardswishBackward0",
    "mod.nn.functional.hardsigmoid(x * 1, inplace=True)": "HardsigmoidBackward0",
    "mod.nn.functional.softsign(x)": "DivBackward0",
    "mod.nn.functional.tanhshrink(x)": "SubBackward0",
    "mod.nn.functional.softshrink(x, 0.3)": "SoftshrinkBackward0",
    "x.hardshrink(0.3)": "HardshrinkBackward0",
    "mod.threshold(x, 0.1, 2.0)": "ThresholdBackward0",
    "mod.threshold_(x * 1, 0.1, 2.0)": "ThresholdBackward1",
    "mod.nn.functional.glu(w)": "GluBackward0",
    "x.prelu(mod.tensor([0.2], dtype=mod.float64))": "PreluKernelBackward0",
    "mod.rrelu(x)": "RreluWithNoiseBackward0",
    "mod.nn.functional.rrelu(x, training=True)": "RreluWithNoiseBackward0",
    "mod.rrelu_(x * 1)": "RreluWithNoiseBackward1",
    "mod.nn.ReLU(inplace=True)(x * 1)": "ReluBackward0",
    "mod.nn.LeakyReLU(inplace=True)(x * 1)": "LeakyReluBackward1",
    "mod.nn.ELU(inplace=True)(x * 1)": "EluBackward1",
    "mod.nn.SiLU(inplace=True)(x * 1)": "SiluBackward0",
    "(x * 1).sin_()": "SinBackward0",
    "x.sgn()": "SgnBackward0",
    "x.nan_to_num()": "NanToNumBackward0",
    "x.hypot(y)": "HypotBackward0",
    "x.xlogy(y)": "XlogyBackward0",
    "mod.xlogy(2.0, y)": "XlogyBackward1",
    "x.xlogy(2.0)": "XlogyBackward2",
    "x.logaddexp(y)": "LogaddexpBackward0",
    "x.sigmoid().logit()": "LogitBackward0",
    "x.logit(eps=0.1)": "LogitBackward0",
    "(x * 0.3).erfinv()": "ErfinvBackward0",
    "x.lgamma()": "LgammaBackward0",
    "x.digamma()": "DigammaBackward0",
    "x.polygamma(1)": "PolygammaBackward0",
    "mod.polygamma(0, x)": "PolygammaBackward0",
    "x.i0()": "I0Backward0",
    "mod.special.i1(x)": "SpecialI1Backward0",
    "x.sinc()": "SincBackward0",
    "x.copysign(y)": "CopysignBackward0",
    "x.copysign(-1.0)": "CopysignBackward1",
    "x.deg2rad()": "Deg2RadBackward0",
    "x.rad2deg()": "Rad2DegBackward0",
    "x.logaddexp2(y)": "Logaddexp2Backward0",
    "x.abs().float_power(y)": "PowBackward1",
    "x.float_power(2)": "PowBackward0",
    "mod.float_power(2, x)": "PowBackward2",
    "x.fix()": "TruncBackward0",
    "x.nextafter(y)": "NextafterBackward0",
    "x.ldexp(y)": "LdexpBackward0",
    "mod.special.expit(x)": "SigmoidBackward0",
    "mod.special.gammaln(x)": "LgammaBackward0",
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
    # the split family: one multi-output node, or a slice per piece where PyTorch composes
    "x.unbind(0)[1]": "UnbindBackward0",
    "x.unbind(-1)[2]": "UnbindBackward0",
    "x.split(1)[1]": "SplitBackward0",
    "x.split(2, 1)[0]": "SplitBackward0",
    "x.split(5, 1)[0]": "SplitBackward0",
    "x.split([1, 2], 1)[1]": "SplitWithSizesBackward0",
    "mod.split(x, (2,))[0]": "SplitWithSizesBackward0",
    "x.chunk(2)[1]": "SplitBackward0",
    "x.chunk(2, 1)[1]": "SplitBackward0",
    "x[:, :0].chunk(2, 1)[1]": "SplitWithSizesBackward0",
    "x.tensor_split(2, 1)[1]": "SliceBackward0",
    "mod.tensor_split(x, [1], 1)[0]": "SliceBackward0",
    "x.hsplit([1])[1]": "SliceBackward0",
    "x.vsplit(2)[0]": "SliceBackward0",
    "x.kthvalue(2)[0]": "KthvalueBackward0",
    "x.matmul(w[:, 0])": "MvBackward0",
    "mod.var_mean(x, 0)[0]": "VarMeanBackward0",
    "mod.var_mean(x, 1, keepdim=True)[1]": "VarMeanBackward0",
    "mod.std_mean(x)[0]": "StdMeanBackward0",
    "mod.std_mean(x, 0)[1]": "StdMeanBackward0",
    "mod.rot90(x)": "Rot90Backward0",
    "mod.rot90(x, 2)": "Rot90Backward0",
    "mod.rot90(x, 0)": "Rot90Backward0",
    "x.rot90(-1, [1, 0])": "Rot90Backward0",
    "mod.diag(x)": "DiagonalBackward0_copy",
    "mod.diag(x, 1)": "DiagonalBackward0_copy",
    "mod.diag(x[0])": "DiagEmbedBackward0",
    "mod.linalg.cross(x, y)": "LinalgCrossBackward0",
    "mod.linalg.cross(w.t(), y[:1])": "LinalgCrossBackward0",
    "mod.cross(x, y, dim=1)": "LinalgCrossBackward0",
    "mod.addmm(x[:, :2], x, w)": "AddmmBackward0",
    "mod.addmv(x[:, 0], x, w[:, 0])": "AddmvBackward0",
    "mod.addr(x, x[:, 0], y[0])": "AddrBackward0",
    "mod.baddbmm(x[:, :2], x.unsqueeze(0), w.unsqueeze(0))": "BaddbmmBackward0",
    "mod.addbmm(x[:, :2], x.unsqueeze(0), w.unsqueeze(0))": "AddbmmBackward0",
    # number / tensor: PyTorch multiplies by the reciprocal; numgrad divides, under that name
    "1 / x": "MulBackward0",
    "2.5 / x": "MulBackward0",
    "x / 2": "DivBackward0",
    "x.addcmul(y, y)": "AddcmulBackward0",
    "x.addcdiv(y, y)": "AddcdivBackward0",
    "x.index_reduce(0, mod.tensor([0, 1]), y, 'amax')": "IndexReduceBackward0",
    "mod.nn.functional.smooth_l1_loss(x, y)": "SmoothL1LossBackward0",
    "mod.nn.functional.huber_loss(x, y, reduction='none')": "HuberLossBackward0",
    "mod.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid())": "BinaryCrossEntropyBackward0",
    "mod.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid())": "BinaryCrossEntropyWithLogitsBackward0",
    "mod.nn.functional.layer_norm(x, (3,))": "NativeLayerNormBackward0",
    "mod.nn.functional.layer_norm(x, (3,), w[:, 0], w[:, 1])": "NativeLayerNormBackward0",
    # CNN layers: one node each, as PyTorch's
    "mod.nn.functional.conv2d(x.view(1, 2, 1, 3), w.view(3, 2, 1, 1))": "ConvolutionBackward0",
    "mod.nn.functional.conv2d(x.view(1, 2, 1, 3), w.view(3, 2, 1, 1), y[0], 2, 1)": "ConvolutionBackward0",
    "mod.nn.functional.conv2d(x.view(1, 2, 1, 3), w[:2, :1].reshape(2, 1, 1, 1), groups=2)": "ConvolutionBackward0",
    "mod.nn.functional.conv2d(x.view(1, 2, 1, 3), w.view(3, 2, 1, 1), padding='same')": "ConvolutionBackward0",
    "mod.nn.functional.conv2d(x.view(2, 1, 3), w.view(3, 2, 1, 1))": "SqueezeBackward1",
    "mod.nn.functional.conv1d(x.unsqueeze(0), w.view(3, 2, 1), y[0])": "ConvolutionBackward0",
    "mod.nn.functional.conv1d(x.unsqueeze(0), w[:2].reshape(1, 2, 2), padding='same')": "ConvolutionBackward0",
    "mod.nn.functional.avg_pool2d(x.view(1, 1, 2, 3), 2, 1)": "AvgPool2DBackward0",
    "mod.nn.functional.avg_pool2d(x.view(1, 2, 3), (1, 2), padding=(0, 1), count_include_pad=False)":
        "AvgPool2DBackward0",
    "mod.nn.functional.avg_pool1d(x.unsqueeze(0), 2)": "SqueezeBackward1",
    "mod.nn.functional.batch_norm(x, None, None, training=True)": "NativeBatchNormBackward0",
    "mod.nn.functional.batch_norm(x.view(1, 2, 3), None, None, y[0, :2], y[1, :2], True)": "NativeBatchNormBackward0",
    "mod.nn.functional.batch_norm(x, mod.zeros(3, dtype=mod.float64), mod.ones(3, dtype=mod.float64))":
        "NativeBatchNormBackward0",
    "mod.nn.functional.embedding(mod.tensor([[0, 2], [1, 0]]), w)": "EmbeddingBackward0",
    "mod.nn.functional.embedding(mod.tensor([0, 2]), w, padding_idx=0)": "EmbeddingBackward0",
    # a reshape that must copy: a clone, then a view of it that is not a view
    "x.t().reshape(-1)": "UnsafeViewBackward0",
    "x.t().flatten()": "UnsafeViewBackward0",
    "x.t().reshape(3, 2)": "ReshapeAliasBackward0",
    "x.t().reshape(3, 2, 1)": "ReshapeAliasBackward0",
    "x[:, :2].reshape(1, 4)": "UnsafeViewBackward0",
    "x.reshape(3, 2)": "ViewBackward0",
    "x.t().flatten(1)": "TBackward0",
    # a stack of matrices times a matrix or vector: one gemm over the folded rows, then a view
    "x.unsqueeze(0) @ w": "UnsafeViewBackward0",
    "x.unsqueeze(0) @ w[:, 0]": "UnsafeViewBackward0",
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
    "var_mean": (lambda x: (lambda v, m: v * 2 + m)(*numgrad.var_mean(x, 1)), [(2, 3)]),
    "var_mean_var": (lambda x: numgrad.var_mean(x, (0, 2), correction=0)[0], [(2, 3, 2)]),
    "std_mean": (lambda x: (lambda s, m: s * 2 + m)(*numgrad.std_mean(x, 0, keepdim=True)), [(2, 3)]),
    "std_mean_mean": (lambda x: numgrad.std_mean(x)[1], [(2, 3)]),
    "rot90": (lambda x: x.rot90(1, [1, 0]), [(2, 3)]),
    "rot90_2": (lambda x: numgrad.rot90(x, 2, [0, 2]), [(2, 3, 2)]),
    "diag": (lambda x: numgrad.diag(x, -1), [(3, 4)]),
    "cross": (lambda a, b: numgrad.linalg.cross(a, b), [(2, 3), (1, 3)]),
    "cross_dim": (lambda a, b: numgrad.cross(a, b, dim=0), [(3, 2), (3, 2)]),
    "addmv": (lambda x, a, v: numgrad.addmv(x, a, v, beta=0.5, alpha=2), [(2,), (2, 3), (3,)]),
    "addr": (lambda x, u, v: numgrad.addr(x, u, v, alpha=2), [(3,), (2,), (3,)]),
    "baddbmm": (lambda x, a, b: numgrad.baddbmm(x, a, b, beta=2), [(2, 2), (2, 2, 3), (2, 3, 2)]),
    "addbmm": (lambda x, a, b: numgrad.addbmm(x, a, b, alpha=0.5), [(2, 2), (2, 2, 3), (2, 3, 2)]),
    "addcmul": (lambda x, a, b: x.addcmul(a, b, value=0.5), [(2, 3), (3,), (2, 3)]),
    "addcdiv": (lambda x, a, b: x.addcdiv(a, b.exp(), value=2), [(2, 3), (2, 3), (2, 1)]),
    "index_reduce": (lambda x, s: x.index_reduce(0, _I, s, "prod"), [(2, 3), (3, 3)]),
    "smooth_l1_loss": (lambda x, y: _F.smooth_l1_loss(x, y, beta=0.5), [(2, 3), (2, 3)]),
    "huber_loss": (lambda x, y: _F.huber_loss(x, y, reduction="sum", delta=0.5), [(2, 3), (2, 3)]),
    "binary_cross_entropy": (lambda x, y: _F.binary_cross_entropy(x.sigmoid(), y.sigmoid()), [(2, 3), (2, 3)]),
    "binary_cross_entropy_with_logits": (lambda x, y: _F.binary_cross_entropy_with_logits(
        x, y.sigmoid(), pos_weight=numgrad.tensor([1.0, 2.0, 0.5], dtype=numgrad.float64)), [(2, 3), (2, 3)]),
    "layer_norm": (lambda x, w, b: _F.layer_norm(x, (3,), w, b), [(2, 3), (3,), (3,)]),
    "conv2d": (lambda x, w, b: _F.conv2d(x, w, b, (2, 1), 1, (1, 2), 2), [(2, 4, 3, 4), (4, 2, 2, 2), (4,)]),
    "conv1d": (lambda x, w: _F.conv1d(x, w, padding="same"), [(1, 2, 4), (3, 2, 2)]),
    "avg_pool2d": (lambda x: _F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 2, 4, 3)]),
    "batch_norm": (lambda x, w, b: _F.batch_norm(x, None, None, w, b, training=True), [(3, 2, 2), (2,), (2,)]),
    "batch_norm_eval": (lambda x, w, b: _F.batch_norm(x, (_I[:2] * 0.5).to(x.dtype), (_I[:2] + 1.0).to(x.dtype), w, b),
                        [(3, 2, 2), (2,), (2,)]),
    "embedding": (lambda w: _F.embedding(_I.view(3, 1), w), [(2, 3)]),
    "unsafe_view": (lambda x: x.t().reshape(-1), [(2, 3)]),
    "relu_": (lambda x: _F.relu(x * 1, inplace=True), [(2, 3)]),
    "leaky_relu_": (lambda x: _F.leaky_relu_(x * 1, 0.2), [(2, 3)]),
    "elu_": (lambda x: _F.elu(x * 1, 1.5, inplace=True), [(2, 3)]),
    "hardtanh_": (lambda x: _F.hardtanh_(x * 2, -1.0, 1.5), [(2, 3)]),
    "silu_": (lambda x: _F.silu(x * 1, inplace=True), [(2, 3)]),
    "sin_": (lambda x: (x * 1).sin_(), [(2, 3)]),
    "tanh_": (lambda x: (x * 1).tanh_(), [(2, 3)]),
    "sigmoid_": (lambda x: (x * 1).sigmoid_() * 2, [(2, 3)]),
    "exp_": (lambda x: (x * 1).exp_(), [(2, 3)]),
    "relu_method": (lambda x: (x * 1).relu_(), [(2, 3)]),
    "tanh_backward": (lambda g, y: numgrad.ops.functional_elementwise.tanh_backward(g, y), [(2, 3), (3,)]),
    "sigmoid_backward": (lambda g, y: numgrad.ops.functional_elementwise.sigmoid_backward(g, y), [(2, 3), (2, 3)]),
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


@pytest.mark.parametrize("mod", [numgrad] + ([torch] if torch is not None else []), ids=lambda m: m.__name__)
def test_two_results_one_node(mod):
    # var_mean and std_mean: one node whose outputs 0 and 1 are the two results.
    x = _variables(mod)["x"]
    for fn in (mod.var_mean, mod.std_mean):
        a, m = fn(x, 1)
        assert a.grad_fn is m.grad_fn
        nr = (lambda t: t.output_nr) if mod is torch else (lambda t: t._output_nr)
        assert (nr(a), nr(m)) == (0, 1)
        (g,) = mod.autograd.grad(m.sum(), x)
        assert [round(v, 12) for v in g.flatten().tolist()] == [round(1 / 3, 12)] * 6
