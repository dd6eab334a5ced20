"""Activation layers: thin modules over numgrad.nn.functional."""
from __future__ import annotations

from ...autograd import no_grad as _no_grad
from ...creation import full as _full
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Softmin",
           "Softplus", "SiLU", "ELU", "Hardtanh", "LogSigmoid", "SELU", "CELU", "Mish", "Hardswish",
           "Hardsigmoid", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "Threshold", "GLU", "PReLU",
           "RReLU", "Softmax2d"]


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """ReLU(inplace=False): max(x, 0)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class ReLU6(Module):
    """ReLU6(inplace=False): min(max(x, 0), 6)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu6(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """LeakyReLU(negative_slope=0.01, inplace=False)."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """GELU(approximate='none'): x * Phi(x) (or its tanh approximation)."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    """Sigmoid(): 1 / (1 + exp(-x))."""

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """Tanh(): hyperbolic tangent."""

    def forward(self, input):
        return F.tanh(input)


class LogSigmoid(Module):
    """LogSigmoid(): log(sigmoid(x)), computed stably."""

    def forward(self, input):
        return F.logsigmoid(input)


class SiLU(Module):
    """SiLU(inplace=False): x * sigmoid(x)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class ELU(Module):
    """ELU(alpha=1.0, inplace=False)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    """Hardtanh(min_val=-1.0, max_val=1.0, inplace=False): x clamped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class _DimModule(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimModule):
    """Softmax(dim=None): exp(x) / sum(exp(x)) along ``dim``."""

    def forward(self, input):
        return F.softmax(input, self.dim)


class Softmax2d(Module):
    """Softmax2d(): softmax over the channels of a (N, C, H, W) or (C, H, W) input, at each location."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class Softmin(_DimModule):
    """Softmin(dim=None): softmax(-x) along ``dim``."""

    def forward(self, input):
        return F.softmin(input, self.dim)


class LogSoftmax(_DimModule):
    """LogSoftmax(dim=None): log(softmax(x)) along ``dim``, computed stably."""

    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Softplus(Module):
    """Softplus(beta=1.0, threshold=20.0): log(1 + exp(beta * x)) / beta."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _InplaceModule(Module):
    """An activation with only an ``inplace`` flag, shown in the repr when set."""

    _fn = None

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class SELU(_InplaceModule):
    """SELU(inplace=False): scale * elu(x, alpha), alpha = 1.6733, scale = 1.0507."""

    _fn = F.selu


class Mish(_InplaceModule):
    """Mish(inplace=False): x * tanh(softplus(x))."""

    _fn = F.mish


class Hardswish(_InplaceModule):
    """Hardswish(inplace=False): x * relu6(x + 3) / 6."""

    _fn = F.hardswish

    def extra_repr(self) -> str:
        # PyTorch's repr leaves the flag out.
        return ""


class Hardsigmoid(_InplaceModule):
    """Hardsigmoid(inplace=False): relu6(x + 3) / 6."""

    _fn = F.hardsigmoid

    def extra_repr(self) -> str:
        return ""


class CELU(Module):
    """CELU(alpha=1.0, inplace=False): x if x > 0 else alpha * (exp(x / alpha) - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softsign(Module):
    """Softsign(): x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """Tanhshrink(): x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class Softshrink(Module):
    """Softshrink(lambd=0.5): x shrunk towards 0 by lambd, 0 within [-lambd, lambd]."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """Hardshrink(lambd=0.5): x if |x| > lambd else 0."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Threshold(Module):
    """Threshold(threshold, value, inplace=False): x if x > threshold else value."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """GLU(dim=-1): a * sigmoid(b) over the two halves of the input along ``dim``."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """PReLU(num_parameters=1, init=0.25): x if x > 0 else a * x, with a learnable slope ``a``
    per channel (dim 1) or one shared by all."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_full((num_parameters,), init, device=device, dtype=dtype))

    def reset_parameters(self):
        with _no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """RReLU(lower=1/8, upper=1/3, inplace=False): leaky ReLU whose slope is drawn uniformly
    from [lower, upper] per element in training and is (lower + upper) / 2 in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")
