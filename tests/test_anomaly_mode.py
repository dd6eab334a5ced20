"""Anomaly detection against PyTorch: the mode's switches, NaN in a node's gradients raised with
PyTorch's message, and the warning that shows the forward traceback of the failing node."""
import warnings

import pytest

torch = pytest.importorskip("torch")

import numgrad  # noqa: E402
from numgrad import autograd  # noqa: E402


def _nan_error(lib):
    """The error and warnings of a backward through 0/0 under detect_anomaly."""
    a = lib.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            y = (a / a).sum()  # the line the traceback must show
            with pytest.raises(RuntimeError) as err:
                y.backward()
    return str(err.value), [str(w.message) for w in caught]


def test_nan_raises_with_pytorch_message_and_traceback_warning():
    msg, caught = _nan_error(numgrad)
    tmsg, tcaught = _nan_error(torch)
    assert msg == tmsg == "Function 'DivBackward0' returned nan values in its 1th output."
    assert caught[0] == tcaught[0]  # "Anomaly Detection has been enabled..."
    detail = [c for c in caught if c.startswith("Error detected in DivBackward0.")]
    assert len(detail) == 1
    assert "Traceback of forward call that caused the error:" in detail[0]
    assert "the line the traceback must show" in detail[0]
    assert not autograd.is_anomaly_enabled()


@pytest.mark.parametrize("dtype", [numgrad.float32, numgrad.float64])
def test_nan_check_off_and_forward_outside(dtype):
    a = numgrad.tensor([0.0], dtype=dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with autograd.detect_anomaly(check_nan=False):
            assert autograd.is_anomaly_enabled() and not autograd.is_anomaly_check_nan_enabled()
            (a / a).sum().backward()
    assert a.grad.isnan().all()
    y = (a / a).sum()  # recorded with anomaly detection off: no traceback to show
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match="returned nan values"):
                y.backward()
    assert any("No forward pass information available" in str(w.message) for w in caught)


def test_other_backward_errors_warn_and_propagate():
    class Boom(numgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    a = numgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with autograd.detect_anomaly():
            y = Boom.apply(a).sum()
            with pytest.raises(ValueError, match="boom"):
                y.backward()
    assert any(str(w.message).startswith("Error detected in BoomBackward. Traceback of forward call")
               for w in caught)


def test_set_detect_anomaly_and_decorator():
    autograd.set_detect_anomaly(True, check_nan=False)
    try:
        assert autograd.is_anomaly_enabled() and not autograd.is_anomaly_check_nan_enabled()
    finally:
        autograd.set_detect_anomaly(False)
    assert not autograd.is_anomaly_enabled() and autograd.is_anomaly_check_nan_enabled()
    with autograd.set_detect_anomaly(True):
        assert autograd.is_anomaly_enabled()
    assert not autograd.is_anomaly_enabled()

    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        @autograd.detect_anomaly()
        def inside():
            return autograd.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert inside() and not autograd.is_anomaly_enabled()


def test_gradients_unchanged_and_traceback_in_metadata():
    a = numgrad.tensor([0.5, 2.0], dtype=numgrad.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with autograd.detect_anomaly():
            y = (a.log() * a).sum()
            assert "traceback_" in y.grad_fn.metadata
            g, = autograd.grad(y, a, create_graph=True)
            gg, = autograd.grad(g.sum(), a)
    assert g.tolist() == pytest.approx((a.log() + 1).tolist())
    assert gg.tolist() == pytest.approx((1 / a).tolist())
    assert "traceback_" not in (a * 2).grad_fn.metadata
