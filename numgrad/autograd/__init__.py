"""Reverse-mode automatic differentiation: the tape, grad modes, and the public entry points."""
from __future__ import annotations

from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .nodes import Node
from .variable import Variable
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from . import anomaly_mode, forward_ad, functional, graph

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError", "Node", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "Variable", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
