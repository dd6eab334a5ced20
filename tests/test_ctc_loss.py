"""F.ctc_loss and nn.CTCLoss against PyTorch: values and the gradient in log_probs for padded,
concatenated and unbatched targets, every reduction, zero_infinity, strides and errors."""
import warnings

import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

F, TF = numgrad.nn.functional, torch.nn.functional
rng = np.random.default_rng(0)
T, N, C, S = 12, 4, 6, 5
TARGETS = rng.integers(1, C, (N, S))
TARGETS[1, 1] = TARGETS[1, 0]  # a repeated label needs a blank between its two frames
INPUT_LENGTHS = [12, 10, 3, 7]
TARGET_LENGTHS = [5, 3, 4, 0]  # the third cannot be aligned in 3 frames: an infinite loss


def _log_probs(dtype, shape=(T, N, C)):
    x = torch.tensor(rng.standard_normal(shape).astype(dtype)).log_softmax(-1).detach()
    return x.requires_grad_(), numgrad.tensor(x.detach().numpy()).requires_grad_()


def _check(lp_t, lp_n, args_t, args_n, dtype, **kwargs):
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    expected = TF.ctc_loss(lp_t, *args_t, **kwargs)
    actual = F.ctc_loss(lp_n, *args_n, **kwargs)
    assert tuple(actual.shape) == tuple(expected.shape) and actual.dtype.name == str(expected.dtype)[6:]
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), equal_nan=True, **tol)
    w = rng.standard_normal(tuple(expected.shape)).astype(dtype)
    gt, = torch.autograd.grad((expected * torch.tensor(w)).sum(), lp_t)
    gn, = numgrad.autograd.grad((actual * numgrad.tensor(w)).sum(), lp_n)
    np.testing.assert_allclose(gn.numpy(), gt.numpy(), equal_nan=True, **tol)
    return actual


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_padded_targets_match_torch(dtype, zero_infinity):
    lp_t, lp_n = _log_probs(dtype)
    args_t = (torch.tensor(TARGETS), torch.tensor(INPUT_LENGTHS), torch.tensor(TARGET_LENGTHS))
    args_n = (numgrad.tensor(TARGETS), numgrad.tensor(INPUT_LENGTHS), numgrad.tensor(TARGET_LENGTHS))
    for reduction in ("none", "mean", "sum"):
        loss = _check(lp_t, lp_n, args_t, args_n, dtype, reduction=reduction, zero_infinity=zero_infinity)
    assert np.isfinite(loss.item()) == zero_infinity


def test_concatenated_targets_blank_and_lengths_as_lists():
    lp_t, lp_n = _log_probs(np.float64)
    flat = np.concatenate([row[:n] for row, n in zip(TARGETS, TARGET_LENGTHS)]) - 1  # classes 0..C-2
    for reduction in ("mean", "none"):
        _check(lp_t, lp_n, (torch.tensor(flat), INPUT_LENGTHS, TARGET_LENGTHS),
               (numgrad.tensor(flat), INPUT_LENGTHS, tuple(TARGET_LENGTHS)), np.float64, blank=C - 1,
               reduction=reduction)


def test_unbatched_and_noncontiguous_log_probs():
    for shape in ((9, C), (1, C)):
        lp_t, lp_n = _log_probs(np.float64, shape)
        target = TARGETS[0, :min(3, shape[0])]
        for reduction in ("none", "sum"):
            _check(lp_t, lp_n, (torch.tensor(target), torch.tensor(shape[0]), torch.tensor(len(target))),
                   (numgrad.tensor(target), numgrad.tensor(shape[0]), numgrad.tensor(len(target))), np.float64,
                   reduction=reduction)
    x = rng.standard_normal((N, T, C))
    bt, bn = torch.tensor(x, requires_grad=True), numgrad.tensor(x, requires_grad=True)
    lp_t, lp_n = bt.log_softmax(2).transpose(0, 1), bn.log_softmax(2).transpose(0, 1)
    assert not lp_n.is_contiguous()
    expected = TF.ctc_loss(lp_t, torch.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS, zero_infinity=True)
    actual = F.ctc_loss(lp_n, numgrad.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS, zero_infinity=True)
    expected.backward()
    actual.backward()
    np.testing.assert_allclose(actual.item(), expected.item(), rtol=1e-12)
    np.testing.assert_allclose(bn.grad.numpy(), bt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_empty_batch_and_empty_targets():
    lp = numgrad.zeros(4, 0, 3)
    assert F.ctc_loss(lp, numgrad.zeros(0, 2, dtype=numgrad.int64), [], [], reduction="none").shape == (0,)
    lp_t, lp_n = _log_probs(np.float64, (4, 2, 3))
    _check(lp_t, lp_n, (torch.zeros(0, dtype=torch.long), [4, 0], [0, 0]),
           (numgrad.zeros(0, dtype=numgrad.int64), [4, 0], [0, 0]), np.float64, reduction="none")


def test_module_node_and_second_derivative():
    lp_t, lp_n = _log_probs(np.float64)
    loss = numgrad.nn.CTCLoss(blank=0, reduction="none")(lp_n, numgrad.tensor(TARGETS), INPUT_LENGTHS,
                                                         TARGET_LENGTHS)
    assert loss.grad_fn.name() == "CtcLossBackward0"
    expected = torch.nn.CTCLoss(reduction="sum", zero_infinity=True)(lp_t, torch.tensor(TARGETS), INPUT_LENGTHS,
                                                                     TARGET_LENGTHS)
    actual = numgrad.nn.CTCLoss(reduction="sum", zero_infinity=True)(lp_n, numgrad.tensor(TARGETS), INPUT_LENGTHS,
                                                                     TARGET_LENGTHS)
    np.testing.assert_allclose(actual.item(), expected.item(), rtol=1e-12)
    g, = numgrad.autograd.grad(actual, lp_n, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        g.sum().backward()


@pytest.mark.parametrize("args, kwargs, error, match", [
    (([[1, 2], [1, 1]], [6, 5], [2, 2]), {}, RuntimeError, "Expected input_lengths to have value at most 5"),
    (([[1, 2], [1, 1]], [5, 5, 5], [2, 2]), {}, RuntimeError, "input_lengths must be of size batch_size"),
    (([[1, 2], [1, 1]], [5, 5], [2, 3]), {}, RuntimeError, "Expected tensor to have size at least 3 at dimension 1"),
    (([[1, 2], [1, 1]], [5, 5], [2, 2]), {"blank": 4}, RuntimeError, "blank must be in label range"),
    (([1, 2, 1], [5, 5], [2, 2]), {}, RuntimeError, "Expected tensor to have size 4 at dimension 0"),
    (([[1, 2], [1, 1]], [5, -1], [2, 2]), {}, RuntimeError, "Expected input_lengths to have value at least 0"),
    (([[1, 2], [1, 1]], [5, 5], [2, -1]), {}, RuntimeError, "Expected target_lengths to have value at least 0"),
    (([[1, 2], [1, 1]], [5, 5], [2, 2]), {"reduction": "avg"}, ValueError, "avg is not a valid value"),
])
def test_errors(args, kwargs, error, match):
    lp = numgrad.randn(5, 2, 4).log_softmax(2)
    targets, input_lengths, target_lengths = args
    with pytest.raises(error, match=match):
        F.ctc_loss(lp, numgrad.tensor(targets), input_lengths, target_lengths, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match):
            TF.ctc_loss(torch.tensor(lp.numpy()), torch.tensor(targets), input_lengths, target_lengths, **kwargs)


def test_half_precision_is_refused():
    with pytest.raises(NotImplementedError, match="\"ctc_loss_cpu\" not implemented for 'Half'"):
        F.ctc_loss(numgrad.zeros(5, 2, 4, dtype=numgrad.float16), numgrad.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2])
