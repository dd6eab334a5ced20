"""The PyTorch function each op-table row is compared with (tests that need torch import this)."""
import torch

_TF = torch.nn.functional


def _split_family(name):
    def op(lib):
        def fn(x, *args, **kwargs):
            return lib.cat([p.reshape(-1) for p in getattr(lib, name)(x, *args, **kwargs)[::2]])
        return fn
    return op


def _torch_aminmax(x, **kwargs):
    return torch.stack(tuple(torch.aminmax(x, **kwargs)))


def _torch_cov_weighted(x, fweights, aweights, **kwargs):
    return torch.cov(x, fweights=fweights, aweights=aweights, **kwargs)


# Rows whose PyTorch counterpart is not ``torch.<torch_name>``.
_TORCH_FNS = {
    "unfold": lambda x, *a: x.unfold(*a),
    "argsort": lambda x, dim=-1: torch.argsort(x, dim=dim, stable=True),
    "linalg.inv": torch.linalg.inv,
    "linalg.det": torch.linalg.det,
    "linalg.solve": torch.linalg.solve,
    "polygamma": lambda x, n: torch.polygamma(n, x),
    "special_i1": torch.special.i1,
    "special_xlog1py": torch.special.xlog1py,
    "cov.weights": _torch_cov_weighted,
    "aminmax": _torch_aminmax,
    "nanmedian.dim": lambda x, *a, **k: torch.nanmedian(x, *a, **k).values,
    "gelu": _TF.gelu, "gelu_tanh": _TF.gelu, "silu": _TF.silu, "log_sigmoid": _TF.logsigmoid,
    "leaky_relu": _TF.leaky_relu, "elu": _TF.elu, "softplus": _TF.softplus, "hardtanh": _TF.hardtanh,
    "hardtanh.relu6": _TF.relu6, "selu": _TF.selu, "celu": _TF.celu, "mish": _TF.mish,
    "hardswish": _TF.hardswish, "hardsigmoid": _TF.hardsigmoid, "softsign": _TF.softsign,
    "tanhshrink": _TF.tanhshrink, "softshrink": _TF.softshrink, "hardshrink": _TF.hardshrink,
    "threshold_value": _TF.threshold, "rrelu_with_noise": _TF.rrelu,
}
for _name in ("split", "split.sizes", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit"):
    _TORCH_FNS[_name] = _split_family(_name.split(".")[0])(torch)


def torch_fn(info):
    if info.id in _TORCH_FNS:
        return _TORCH_FNS[info.id]
    if info.torch_name:
        return getattr(torch, info.torch_name)
    # Internal kernels (activation backwards and the like): the gradients of the public rows
    # compare them with PyTorch's.
    return None
