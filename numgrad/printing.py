"""PyTorch's repr format for tensors."""
from __future__ import annotations

import numpy as np

from . import dtypes


def tensor_repr(t) -> str:
    arr = t.detach().cpu()._np_view()
    body = np.array2string(arr, separator=", ", prefix="tensor(")
    suffix = []
    if t.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool):
        suffix.append(f"dtype={t.dtype!r}")
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
