"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch: parameters after manual_seed, forward's
(output, loss), gradients, log_prob, predict, unbatched inputs and errors."""
import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")


def _pair(dtype, **kwargs):
    args = dict(in_features=16, n_classes=20, cutoffs=[4, 9, 15], div_value=2.0)
    args.update(kwargs)
    torch.manual_seed(3)
    numgrad.manual_seed(3)
    expected = torch.nn.AdaptiveLogSoftmaxWithLoss(**args).to(getattr(torch, dtype))
    actual = numgrad.nn.AdaptiveLogSoftmaxWithLoss(**args).to(getattr(numgrad, dtype))
    return expected, actual


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("head_bias", [False, True])
def test_parameters_forward_and_grads_match_torch(dtype, head_bias):
    tm, nm = _pair(dtype, head_bias=head_bias)
    assert list(nm.state_dict()) == list(tm.state_dict())
    assert "tail.0.1.weight" in nm.state_dict() and ("head.bias" in nm.state_dict()) == head_bias
    for key, value in tm.state_dict().items():
        np.testing.assert_array_equal(nm.state_dict()[key].numpy(), value.numpy())
    x = np.random.default_rng(0).standard_normal((7, 16)).astype(dtype)
    target = np.array([0, 3, 5, 19, 10, 15, 9])
    expected = tm(torch.tensor(x), torch.tensor(target))
    actual = nm(numgrad.tensor(x), numgrad.tensor(target))
    assert type(actual).__name__ == "_ASMoutput" and actual._fields == ("output", "loss")
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(actual.output.detach().numpy(), expected.output.detach().numpy(), **tol)
    np.testing.assert_allclose(actual.loss.item(), expected.loss.item(), **tol)
    expected.loss.backward()
    actual.loss.backward()
    for (name, p), q in zip(tm.named_parameters(), nm.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), err_msg=name, **tol)
    np.testing.assert_allclose(nm.log_prob(numgrad.tensor(x)).detach().numpy(),
                               tm.log_prob(torch.tensor(x)).detach().numpy(), **tol)


def test_predict_and_unbatched_input():
    tm, nm = _pair("float64")
    for scale in (0.1, 3.0, 30.0):  # from all-shortlist to mostly-cluster predictions
        x = np.random.default_rng(1).standard_normal((40, 16)) * scale
        np.testing.assert_array_equal(nm.predict(numgrad.tensor(x)).numpy(), tm.predict(torch.tensor(x)).numpy())
    x = np.random.default_rng(2).standard_normal(16)
    expected = tm(torch.tensor(x), torch.tensor(12))
    actual = nm(numgrad.tensor(x), numgrad.tensor(12))
    assert tuple(actual.output.shape) == () and tuple(actual.loss.shape) == ()
    np.testing.assert_allclose(actual.output.item(), expected.output.item(), rtol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"cutoffs": []}, "cutoffs should be a sequence of length larger than 0"),
    ({"cutoffs": [9, 4]}, "cutoffs should be a sequence of unique, positive integers"),
    ({"cutoffs": [4, 20]}, "cutoffs should be a sequence of unique, positive integers"),
])
def test_constructor_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        numgrad.nn.AdaptiveLogSoftmaxWithLoss(16, 20, **kwargs)


@pytest.mark.parametrize("shape, target, match", [
    ((3, 16), [0, 1], "same size in the batch dimension"),
    ((3, 16), [[0, 1, 2]], "0D or 1D target tensor expected"),
    ((16,), [[0]], "0D or 1D target tensor expected"),
    ((2, 16), 1, "0D target tensor expects 1D input tensors"),
    ((2, 16), [0, 20], r"Target values should be in \[0, 19\]"),
])
def test_forward_errors(shape, target, match):
    _, nm = _pair("float64")
    with pytest.raises(RuntimeError, match=match):
        nm(numgrad.zeros(*shape, dtype=numgrad.float64), numgrad.tensor(target))
