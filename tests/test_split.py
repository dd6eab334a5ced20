"""The split family (unbind, split, chunk, tensor_split, hsplit, vsplit, dsplit): values against
NumPy, one multi-output node and its gradients, PyTorch's rule on in-place writes into the
pieces, and PyTorch's errors (checked against torch when it is installed)."""
import re

import numpy as np
import pytest

import numgrad
from numgrad.autograd import forward_ad as fwAD
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.testing import assert_close

try:
    import torch
except ImportError:  # the expected values alone still pin the behaviour
    torch = None

A = np.arange(24.0).reshape(4, 6)
A3 = np.arange(24.0).reshape(2, 3, 4)


def _x(requires_grad=True, a=A):
    return numgrad.tensor(a, requires_grad=requires_grad)


# (split with numgrad as ``m``, the same split with NumPy)
VALUES = {
    "split": (lambda m, x: x.split(4, 1), lambda a: np.split(a, [4], 1)),
    "split_sizes": (lambda m, x: m.split(x, [1, 0, 3]), lambda a: np.split(a, [1, 1])),
    "chunk": (lambda m, x: x.chunk(3, 1), lambda a: np.split(a, [2, 4], 1)),
    "chunk_fewer": (lambda m, x: x.chunk(3), lambda a: np.split(a, [2])),
    "unbind": (lambda m, x: x.unbind(1), lambda a: list(np.moveaxis(a, 1, 0))),
    "tensor_split": (lambda m, x: x.tensor_split(4, 1), lambda a: np.array_split(a, 4, 1)),
    "tensor_split_many": (lambda m, x: x.tensor_split(7), lambda a: np.array_split(a, 7)),
    "tensor_split_indices": (lambda m, x: m.tensor_split(x, (3, 1, -1, 9)),
                             lambda a: np.array_split(a, [3, 1, -1, 9])),
    "tensor_split_tensor": (lambda m, x: x.tensor_split(m.tensor([1, 5]), 1), lambda a: np.array_split(a, [1, 5], 1)),
    "tensor_split_0d": (lambda m, x: x.tensor_split(m.tensor(3), dim=1), lambda a: np.array_split(a, 3, 1)),
    "hsplit": (lambda m, x: x.hsplit(3), lambda a: np.hsplit(a, 3)),
    "vsplit": (lambda m, x: m.vsplit(x, [1, 3]), lambda a: np.vsplit(a, [1, 3])),
    "dsplit": (lambda m, x: x.reshape(2, 3, 4).dsplit([1]), lambda a: np.dsplit(a.reshape(2, 3, 4), [1])),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_values_match_numpy_and_share_memory(name):
    ours, ref = VALUES[name]
    x = _x(False)
    pieces = ours(numgrad, x)
    expected = ref(A)
    assert isinstance(pieces, tuple) and len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_close(p.numpy(), e)
    # the pieces are views: writes through them land in x, as NumPy's land in its array
    with numgrad.no_grad():
        for p in pieces:
            p.add_(100.0)
    b = A.copy()
    for e in ref(b):
        e += 100.0
    assert_close(x.numpy(), b)


def test_edge_cases_match_torch_shapes():
    cases = {
        lambda m: m.zeros(4, 0).chunk(3, 1): [(4, 0)] * 3,
        lambda m: m.zeros(4, 0).split(0, 1): [(4, 0)],
        lambda m: m.zeros(0, 2).split(3): [(0, 2)],
        lambda m: m.zeros(4, 6).split(10): [(4, 6)],
        lambda m: m.zeros(4, 0).unbind(1): [],
        lambda m: m.zeros(4, 6).chunk(4, 1): [(4, 2)] * 3,
        lambda m: m.zeros(4, 6).tensor_split([]): [(4, 6)],
        lambda m: m.zeros(5).hsplit(5): [(1,)] * 5,
    }
    for fn, shapes in cases.items():
        assert [tuple(p.shape) for p in fn(numgrad)] == shapes
        if torch is not None:
            assert [tuple(p.shape) for p in fn(torch)] == shapes


# ------------------------------------------------------------------------------ one node
MULTI = {
    "unbind": (lambda x: x.unbind(0), "UnbindBackward0"),
    "split": (lambda x: x.split(3), "SplitBackward0"),
    "split_sizes": (lambda x: x.split([1, 2, 1]), "SplitWithSizesBackward0"),
    "chunk": (lambda x: x.chunk(2, 1), "SplitBackward0"),
}


@pytest.mark.parametrize("name", list(MULTI))
def test_pieces_share_one_node(name):
    fn, node_name = MULTI[name]
    x = _x()
    pieces = fn(x)
    node = pieces[0].grad_fn
    assert node.name() == node_name
    assert all(p.grad_fn is node for p in pieces)
    assert [p._output_nr for p in pieces] == list(range(len(pieces)))
    assert node.next_functions[0][0].variable is x
    assert all(p._base is x for p in pieces)


@pytest.mark.parametrize("name", list(MULTI))
def test_only_one_piece_used(name):
    fn, _ = MULTI[name]
    x = _x()
    pieces = fn(x)
    w = numgrad.tensor(np.random.default_rng(0).standard_normal(tuple(pieces[1].shape)))
    (pieces[1] * w).sum().backward()
    expected = numgrad.zeros(4, 6, dtype=numgrad.float64)
    with numgrad.no_grad():
        fn(expected)[1].copy_(w)
    assert_close(x.grad, expected)
    if torch is not None:
        tx = torch.tensor(A, requires_grad=True)
        (fn(tx)[1] * torch.tensor(w.numpy())).sum().backward()
        assert_close(x.grad.numpy(), tx.grad.numpy())


def test_several_pieces_accumulate_into_one_node_call():
    x = _x()
    a, b, c = x.split([1, 2, 1])
    (a.sum() * 2 + (b * b).sum() + c.exp().sum() + a.mean()).backward()
    g = np.zeros_like(A)
    g[0] = 2 + 1 / 6
    g[1:3] = 2 * A[1:3]
    g[3] = np.exp(A[3])
    assert_close(x.grad.numpy(), g)


FUNCTIONS = {
    "unbind": lambda x: (lambda u: u[0] * u[2].sin())(x.unbind(1)),
    "split": lambda x: (lambda p: p[0] * p[1].exp())(x.split(2)),
    "split_sizes": lambda x: (lambda p: p[2].cos() * p[0])(x.split([1, 2, 1], 0)),
    "chunk": lambda x: (lambda p: p[0] * p[1] * p[1])(x.chunk(3, 1)),
    "tensor_split": lambda x: (lambda p: p[1] * p[0])(x.tensor_split([2], 0)),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradcheck_gradgradcheck_and_forward_mode(name):
    fn = FUNCTIONS[name]
    gen = numgrad.Generator().manual_seed(3)
    x = numgrad.randn(4, 6, dtype=numgrad.float64, generator=gen).requires_grad_()
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    t = numgrad.randn(4, 6, dtype=numgrad.float64, generator=gen)
    with fwAD.dual_level():
        y, jt = fwAD.unpack_dual(fn(fwAD.make_dual(x.detach(), t)))
    w = numgrad.randn(tuple(y.shape), dtype=numgrad.float64, generator=gen)
    (g,) = numgrad.autograd.grad((fn(x) * w).sum(), x)
    assert abs((jt * w).sum().item() - (g * t).sum().item()) <= 1e-9 * (1 + abs((g * t).sum().item()))


@pytest.mark.parametrize("name", ["unbind", "split", "chunk"])
def test_batched_forward_mode(name):
    fn = FUNCTIONS[name]
    x = numgrad.tensor(np.random.default_rng(4).standard_normal((4, 6)))
    jac = numgrad.func.jacfwd(fn)(x)
    rev = numgrad.func.jacrev(fn)(x)
    assert_close(jac, rev)


def test_tangents_are_the_pieces_of_the_tangent():
    t = numgrad.tensor(np.random.default_rng(5).standard_normal((4, 6)))
    with fwAD.dual_level():
        pieces = fwAD.make_dual(_x(False), t).split([1, 3])
        tangents = [fwAD.unpack_dual(p).tangent for p in pieces]
    assert_close(tangents[0], t[:1])
    assert_close(tangents[1], t[1:])


# ------------------------------------------------------------------------------ in-place writes
MULTI_MSG = ("is a view and is being modified inplace. This view is the output of a function that returns "
             "multiple views. Such functions do not allow the output views to be modified inplace. You should "
             "replace the inplace operation by an out-of-place one.")
WRITES = {
    "mul_": lambda p: p.mul_(2),
    "zero_": lambda p: p.zero_(),
    "copy_": lambda p: p.copy_(p.detach() + 1),
    "setitem": lambda p: p.__setitem__(0, 1.0),
}
PIECES = [
    ("x.split(2)[0]", "Output 0 of Split"),
    ("x.unbind(1)[3]", "Output 3 of Unbind"),
    ("x.split([1, 3])[1]", "Output 1 of SplitWithSizes"),
    ("x.chunk(2)[1]", "Output 1 of Split"),
    ("(x * 1).split(2)[1]", "Output 1 of Split"),
    ("(x * 1).split(2)[1][0]", "Output 0 of Select"),
    ("(x * 1).split(2)[1].view(12)", "Output 0 of View"),
]


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("expr, prefix", PIECES)
def test_inplace_write_into_a_piece_raises(expr, prefix, write):
    libs = [numgrad] + ([torch] if torch is not None else [])
    for mod in libs:
        x = mod.tensor(A, requires_grad=True)
        piece = eval(expr, {"x": x})
        # ``piece[0] = v`` writes into a select view of the piece
        expected = "Output 0 of Select" if write == "setitem" else prefix
        with pytest.raises(RuntimeError, match=re.escape(f"{expected} {MULTI_MSG}")):
            WRITES[write](piece)
        assert_close(x.detach().numpy(), A)


def test_write_under_no_grad_changes_the_base():
    x = _x()
    with numgrad.no_grad():
        x.split(2)[1].mul_(2)
        x.unbind(1)[0].zero_()
    expected = A.copy()
    expected[2:] *= 2
    expected[:, 0] = 0
    assert_close(x.detach().numpy(), expected)
    assert x.is_leaf and x.requires_grad
    (x * x).sum().backward()
    assert_close(x.grad.numpy(), 2 * expected)


def test_pieces_of_a_tensor_without_grad_are_writable():
    w = numgrad.ones(4, 2)
    w.split(2)[1].fill_(3)
    w.chunk(2)[0].mul_(2)
    w.unbind(1)[1].add_(1)
    assert w.tolist() == [[2.0, 3.0], [2.0, 3.0], [3.0, 4.0], [3.0, 4.0]]


def test_tensor_split_pieces_are_plain_slices():
    x = _x()
    z = x * 1
    z.tensor_split(2)[1].mul_(2)
    z.sum().backward()
    assert x.grad.tolist() == [[1.0] * 6] * 2 + [[2.0] * 6] * 2


def test_piece_made_in_no_grad_written_with_grad_raises():
    msg = "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
    for mod in [numgrad] + ([torch] if torch is not None else []):
        z = mod.tensor(A, requires_grad=True) * 1
        with mod.no_grad():
            q = z.split(2)[1]
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            q.copy_(z[:2])


def test_iterating_gives_unbind_pieces():
    z = _x() * 1
    rows = list(z)
    assert rows[2].grad_fn.name() == "UnbindBackward0"
    with pytest.raises(RuntimeError, match="Output 2 of Unbind"):
        rows[2].mul_(2)


def test_using_a_piece_after_its_base_was_written_raises():
    msg = ("Output 1 of Split is a view and its base or another view of its base has been modified inplace. "
           "This view is the output of a function that returns multiple views.")
    for mod in [numgrad] + ([torch] if torch is not None else []):
        z = mod.tensor(A, requires_grad=True) * 1
        p, q = z.split(2)
        z.mul_(3)
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            q.sum()


# ------------------------------------------------------------------------------ errors
ERRORS = [
    (lambda m: m.tensor(1.0).unbind(), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda m: m.zeros(4, 6).unbind(2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda m: m.zeros(4, 6).split(-1), RuntimeError,
     "split expects split_size be non-negative, but got split_size=-1"),
    (lambda m: m.zeros(4, 6).split(0), RuntimeError,
     "split_size can only be 0 if dimension size is 0, but got dimension size of 4"),
    (lambda m: m.zeros(4, 6).split(2.0), TypeError,
     "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not float"),
    (lambda m: m.zeros(4, 6).split([1, 2]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at dimension 0), but got "
     "split_sizes=[1, 2]"),
    (lambda m: m.zeros(4, 6).split([5, -1]), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[5, -1]"),
    (lambda m: m.tensor(1.0).split(1), RuntimeError,
     "split expects at least a 1-dimensional tensor"),
    (lambda m: m.zeros(4, 6).chunk(0), RuntimeError,
     "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda m: m.zeros(4, 6).chunk(-1, 5), RuntimeError,
     "chunk expects `chunks` to be greater than 0, got: -1"),
    (lambda m: m.tensor(1.0).chunk(1), RuntimeError,
     "chunk expects at least a 1-dimensional tensor"),
    (lambda m: m.zeros(4, 6).chunk(2.0), TypeError,
     "chunk(): argument 'chunks' (position 1) must be int, not float"),
    (lambda m: m.zeros(4, 6).chunk(2, -3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda m: m.zeros(4, 6).tensor_split(0), RuntimeError,
     "number of sections must be larger than 0, got 0"),
    (lambda m: m.tensor(1.0).tensor_split(1), RuntimeError,
     "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"),
    (lambda m: m.zeros(4, 6).tensor_split(m.tensor([[1]])), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got "
     "a tensor with 2 dims"),
    (lambda m: m.zeros(4, 6).tensor_split(m.tensor([1.0])), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float"),
    (lambda m: m.zeros(4, 6).tensor_split(2.0), TypeError,
     "tensor_split() received an invalid combination of arguments - got (float)"),
    (lambda m: m.zeros(4, 6).tensor_split(0, 5), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda m: m.zeros(5).hsplit(2), RuntimeError,
     "torch.hsplit attempted to split along dimension 0, but the size of the dimension 5 is not divisible by the "
     "split_size 2!"),
    (lambda m: m.zeros(4, 6).hsplit(4), RuntimeError,
     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 6 is not divisible by the "
     "split_size 4!"),
    (lambda m: m.zeros(4, 6).hsplit(0), RuntimeError,
     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 6 is not divisible by the "
     "split_size 0!"),
    (lambda m: m.zeros(4, 6).hsplit(-2), RuntimeError,
     "number of sections must be larger than 0, got -2"),
    (lambda m: m.tensor(1.0).hsplit(1), RuntimeError,
     "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!"),
    (lambda m: m.zeros(5).vsplit(1), RuntimeError,
     "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!"),
    (lambda m: m.zeros(4, 6).vsplit(3), RuntimeError,
     "torch.vsplit attempted to split along dimension 0, but the size of the dimension 4 is not divisible by the "
     "split_size 3!"),
    (lambda m: m.zeros(4, 6).dsplit(2), RuntimeError,
     "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!"),
    (lambda m: m.zeros(2, 4, 6).dsplit(4), RuntimeError,
     "torch.dsplit attempted to split along dimension 2, but the size of the dimension 6 is not divisible by the "
     "split_size 4!"),
]


@pytest.mark.parametrize("fn, exc, msg", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_errors_match_torch(fn, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(numgrad)
    if torch is not None:
        with pytest.raises(exc, match=re.escape(msg)):
            fn(torch)

