"""numgrad.nn.utils.rnn against torch.nn.utils.rnn: packing, padding and their gradients."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck
from numgrad.nn.utils import rnn

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn


def _pair(shape, dtype="float64", seed=0):
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return numgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def _same(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def _same_packing(p, tp):
    assert isinstance(p, rnn.PackedSequence)
    _same(p.data, tp.data)
    assert p.batch_sizes.tolist() == tp.batch_sizes.tolist()
    for a, b in ((p.sorted_indices, tp.sorted_indices), (p.unsorted_indices, tp.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths, enforce_sorted", [
    ([5, 3, 2], True), ([2, 5, 3], False), ([3, 3, 1], False), ([4, 4, 4], True),
])
def test_pack_and_pad_round_trip(lengths, enforce_sorted, batch_first, dtype):
    shape = (3, 5, 2) if batch_first else (5, 3, 2)
    x, tx = _pair(shape, dtype)
    for given in (lengths, torch.tensor(lengths)):
        ours_lengths = given if isinstance(given, list) else numgrad.tensor(lengths)
        p = rnn.pack_padded_sequence(x, ours_lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        tp = trnn.pack_padded_sequence(tx, given, batch_first=batch_first, enforce_sorted=enforce_sorted)
        _same_packing(p, tp)
    padded, out_lengths = rnn.pad_packed_sequence(p, batch_first=batch_first, padding_value=-1.5, total_length=7)
    tpadded, tlengths = trnn.pad_packed_sequence(tp, batch_first=batch_first, padding_value=-1.5, total_length=7)
    _same(padded, tpadded)
    assert out_lengths.tolist() == tlengths.tolist() and out_lengths.dtype == numgrad.int64
    weights = np.arange(padded.numel()).reshape(padded.shape) % 5
    (padded * numgrad.tensor(weights, dtype=padded.dtype)).sum().backward()
    (tpadded * torch.tensor(weights, dtype=tpadded.dtype)).sum().backward()
    _same(x.grad, tx.grad)


def test_packed_sequence_is_a_namedtuple():
    p = rnn.pack_sequence([numgrad.ones(3, 2), numgrad.ones(1, 2)])
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert batch_sizes.tolist() == [2, 1, 1] and sorted_indices is None and unsorted_indices is None
    q = rnn.PackedSequence(data, batch_sizes, numgrad.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]
    assert p.double().data.dtype == numgrad.float64 and p.to(numgrad.float64).data.dtype == numgrad.float64
    assert not p.is_cuda and not p.is_pinned()
    assert repr(p).startswith("PackedSequence(data=")


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    pairs = [_pair((n, 2), seed=n) for n in (3, 1, 4)]
    out = rnn.pad_sequence([p[0] for p in pairs], batch_first, 0.5, padding_side)
    tout = trnn.pad_sequence([p[1] for p in pairs], batch_first, 0.5, padding_side)
    _same(out, tout)
    (out * out).sum().backward()
    (tout * tout).sum().backward()
    for a, b in pairs:
        _same(a.grad, b.grad)


def test_pack_sequence_unpack_and_unpad():
    pairs = [_pair((n, 2), seed=n) for n in (2, 4, 3)]
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn.pack_sequence([p[0] for p in pairs])
    p = rnn.pack_sequence([a for a, _ in pairs], enforce_sorted=False)
    tp = trnn.pack_sequence([b for _, b in pairs], enforce_sorted=False)
    _same_packing(p, tp)
    for a, b in zip(rnn.unpack_sequence(p), trnn.unpack_sequence(tp)):
        _same(a, b)
    padded = rnn.pad_sequence([a for a, _ in pairs])
    tpadded = trnn.pad_sequence([b for _, b in pairs])
    for a, b in zip(rnn.unpad_sequence(padded, numgrad.tensor([2, 4, 3])),
                    trnn.unpad_sequence(tpadded, torch.tensor([2, 4, 3]))):
        _same(a, b)
    ours = rnn.unpad_sequence(padded.transpose(0, 1), [2, 4, 3], batch_first=True)
    assert [tuple(t.shape) for t in ours] == [(2, 2), (4, 2), (3, 2)]


def test_noncontiguous_padded_input():
    x, tx = _pair((2, 5, 3))
    p = rnn.pack_padded_sequence(x.transpose(0, 1), [5, 2])
    tp = trnn.pack_padded_sequence(tx.transpose(0, 1), [5, 2])
    _same_packing(p, tp)


def test_gradcheck_pack_then_pad():
    x = numgrad.randn(4, 3, 2, dtype=numgrad.float64, requires_grad=True)

    def fn(x):
        packed = rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        return rnn.pad_packed_sequence(packed, padding_value=1.0)[0]
    assert gradcheck(fn, (x,))


def test_errors():
    x = numgrad.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        rnn.pack_padded_sequence(x, [4, 2, 0])
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right"):
        rnn.pad_sequence([x], padding_side="middle")
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest"):
        rnn.pad_packed_sequence(rnn.pack_padded_sequence(x, [4, 2, 1]), total_length=2)
