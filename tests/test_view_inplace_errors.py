"""PyTorch's errors for in-place writes into views autograd cannot follow: views made in no_grad
or inference mode, pieces of multi-output view ops (split, chunk, unbind) and views of either,
for every kind of in-place op; the writes PyTorch allows; linalg.cross's ndim check. Messages
are compared with torch's when it is installed."""
import re
import warnings

import pytest

import numgrad

try:
    import torch
except ImportError:  # the expected message starts alone still pin the behaviour
    torch = None


def _index(m, v):
    return m.zeros((1,) * v.ndim, dtype=m.int64)


# Every kind of in-place entry point: (numgrad or torch as ``m``, the view ``v``) -> the write.
WRITES = {
    "mul_": lambda m, v: v.mul_(2),
    "add_scalar": lambda m, v: v.add_(2),
    "add_tensor": lambda m, v: v.add_(m.ones(v.shape)),
    "sub_": lambda m, v: v.sub_(1),
    "div_": lambda m, v: v.div_(2),
    "iadd": lambda m, v: v.__iadd__(1),
    "sin_": lambda m, v: v.sin_(),
    "clamp_": lambda m, v: v.clamp_(0, 1),
    "lerp_": lambda m, v: v.lerp_(m.ones(v.shape), 0.5),
    "relu_": lambda m, v: v.relu_(),
    "F.relu_inplace": lambda m, v: m.nn.functional.relu(v, inplace=True),
    "fill_": lambda m, v: v.fill_(1),
    "zero_": lambda m, v: v.zero_(),
    "copy_": lambda m, v: v.copy_(m.zeros(v.shape)),
    "setitem": lambda m, v: v.__setitem__(0, 3.0),
    "setitem_tensor_index": lambda m, v: v.__setitem__(m.tensor([0]), 3.0),
    "index_put_": lambda m, v: v.index_put_((m.tensor([0]),), m.tensor(1.0)),
    "masked_fill_": lambda m, v: v.masked_fill_(m.tensor(True), 1.0),
    "index_fill_": lambda m, v: v.index_fill_(0, m.tensor([0]), 1.0),
    "scatter_": lambda m, v: v.scatter_(0, _index(m, v), m.ones((1,) * v.ndim)),
    "normal_": lambda m, v: v.normal_(),
    "uniform_": lambda m, v: v.uniform_(),
    "bernoulli_": lambda m, v: v.bernoulli_(),
    "random_": lambda m, v: v.random_(0, 5),
    "unsqueeze_": lambda m, v: v.unsqueeze_(0),
    "squeeze_": lambda m, v: v.squeeze_(),
    "t_": lambda m, v: v.t_(),
    "transpose_": lambda m, v: v.transpose_(0, 0),
    "swapdims_": lambda m, v: v.swapdims_(0, 0),
    "as_strided_": lambda m, v: v.as_strided_((1,), (1,)),
}
FEW = ["mul_", "add_tensor", "fill_", "copy_", "setitem", "index_put_", "normal_", "unsqueeze_"]

_NO_GRAD = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
            "moving both the view and the inplace either both inside the no_grad block")
_MULTI = ("This view is the output of a function that returns multiple views. Such functions do not allow the "
          "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
# The start of the message each case raises; a write through a temporary view (``v[0] = x``)
# names that view, as PyTorch does.
NO_GRAD = (r"(A view|Output 0 of \w+ is a view of a view which) was created in no_grad mode and is being "
           r"modified inplace with grad mode enabled\. " + re.escape(_NO_GRAD))
INFERENCE = (r"(A view|Output 0 of \w+ is a view of a view which) was created in inference mode and is being "
             r"modified inplace in normal mode\. Given that")
SLICE_OF_NO_GRAD = r"Output 0 of \w+ is a view of a view which was created in no_grad mode and is being modified"
MULTI = r"Output 0 of (Split|Unbind|Select) is a view and is being modified inplace\. " + re.escape(_MULTI)


def _base(m, requires_grad=True):
    b = m.ones(4, 2, requires_grad=requires_grad)
    return b * 1 if requires_grad else b


def _no_grad_view(m):
    b = _base(m)
    with m.no_grad():
        return b[:2]


def _no_grad_view_of_leaf(m):
    b = m.ones(4, 2, requires_grad=True)
    with m.no_grad():
        return b[:2]


def _inference_view(m):
    b = _base(m)
    with m.inference_mode():
        return b[:2]


def _view_of_no_grad_view(m):
    return _no_grad_view(m)[:1]


# name -> (makes the view to write, the start of the error)
CASES = {
    "no_grad": (_no_grad_view, NO_GRAD),
    "no_grad_leaf_base": (_no_grad_view_of_leaf, NO_GRAD),
    "inference": (_inference_view, INFERENCE),
    "view_of_no_grad_view": (_view_of_no_grad_view, SLICE_OF_NO_GRAD),
    "split": (lambda m: _base(m).split(2)[0], MULTI),
    "chunk": (lambda m: _base(m).chunk(2)[0], MULTI),
    "unbind": (lambda m: _base(m).unbind()[0], MULTI),
    "split_view": (lambda m: _base(m).split(2)[0][0], MULTI),
}
ALL_WRITES = ("no_grad", "split")


def _raised(m, make, write):
    v = make(m)
    try:
        write(m, v)
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return e
    return None


def _params():
    for case in CASES:
        for name in (WRITES if case in ALL_WRITES else FEW):
            yield pytest.param(case, name, id=f"{case}-{name}")


@pytest.mark.parametrize("case,name", list(_params()))
def test_forbidden_write_raises(case, name):
    make, expected = CASES[case]
    err = _raised(numgrad, make, WRITES[name])
    assert isinstance(err, RuntimeError), err
    assert re.match(expected, str(err)), str(err)
    if torch is not None:
        ref = _raised(torch, make, WRITES[name])
        assert type(ref) is type(err) and str(ref) == str(err), (str(ref), str(err))


def _assert_like_torch(make, write):
    err = _raised(numgrad, make, write)
    if torch is not None:
        ref = _raised(torch, make, write)
        assert (ref is None) == (err is None), (ref, err)
        if ref is not None:
            assert type(ref) is type(err) and str(ref) == str(err), (str(ref), str(err))
    return err


@pytest.mark.parametrize("name", FEW)
def test_no_grad_view_written_under_no_grad(name):
    def write(m, v):
        with m.no_grad():
            WRITES[name](m, v)
    assert _assert_like_torch(_no_grad_view, write) is None


@pytest.mark.parametrize("name", FEW)
def test_base_not_requiring_grad(name):
    def make(m):
        b = _base(m, requires_grad=False)
        with m.no_grad():
            return b[:2]
    assert _assert_like_torch(make, WRITES[name]) is None
    assert _assert_like_torch(lambda m: _base(m, requires_grad=False).split(2)[0], WRITES[name]) is None


def test_operand_requiring_grad_makes_the_write_recorded():
    def make(m):
        b = _base(m, requires_grad=False)
        with m.no_grad():
            return b[:2]
    write = lambda m, v: v.add_(m.ones(2, 2, requires_grad=True))  # noqa: E731
    err = _assert_like_torch(make, write)
    assert re.match(NO_GRAD, str(err))
    # A piece without a node (its base needs no grad) is described as made in no_grad mode.
    err = _assert_like_torch(lambda m: _base(m, requires_grad=False).split(2)[0], write)
    assert str(err).startswith("A view was created in no_grad mode and is being modified inplace with grad "
                               "mode enabled. " + _MULTI)


def test_detached_and_grad_mode_views_may_be_written():
    def detached(m):
        with m.no_grad():
            return _base(m).detach()
    assert _assert_like_torch(detached, WRITES["mul_"]) is None
    # A plain view of a non-leaf, made and written with grad mode on, is recorded (CopySlices).
    b = numgrad.ones(4, requires_grad=True)
    c = b * 1
    c[:2].mul_(3)
    c.sum().backward()
    assert b.grad.tolist() == [3.0, 3.0, 1.0, 1.0]


def test_pieces_written_under_no_grad():
    def write(m, v):
        with m.no_grad():
            v.mul_(2)
    assert _assert_like_torch(lambda m: _base(m).split(2)[0], write) is None
    assert _assert_like_torch(lambda m: _base(m).split(2)[0][0], write) is None


def test_pieces_made_under_no_grad():
    def make(m):
        b = _base(m)
        with m.no_grad():
            return b.split(2)[0]
    assert re.match(NO_GRAD, str(_assert_like_torch(make, WRITES["mul_"])))


def test_strongest_mark_wins():
    def multi_then_no_grad(m):
        p = _base(m).split(2)[0]
        with m.no_grad():
            return p[0]

    def no_grad_then_inference(m):
        v = _no_grad_view(m)
        with m.inference_mode():
            return v[0]

    def inference_then_no_grad(m):
        v = _inference_view(m)
        with m.no_grad():
            return v[0]
    assert re.match(NO_GRAD, str(_assert_like_torch(multi_then_no_grad, WRITES["mul_"])))
    assert re.match(INFERENCE, str(_assert_like_torch(no_grad_then_inference, WRITES["mul_"])))
    assert re.match(INFERENCE, str(_assert_like_torch(inference_then_no_grad, WRITES["mul_"])))


def test_cached_fast_path_still_checks():
    # The first write runs under no_grad and caches the in-place plan the second would reuse.
    b = _base(numgrad)
    with numgrad.no_grad():
        v = b[:2]
        v.mul_(2)
    with pytest.raises(RuntimeError, match=NO_GRAD):
        v.mul_(2)
    assert v.tolist() == [[2.0, 2.0], [2.0, 2.0]]  # refused before writing


def test_leaf_view_errors_unchanged():
    def leaf_view(m):
        return m.ones(4, 2, requires_grad=True)[:2]
    for name in ("fill_", "unsqueeze_", "mul_"):
        err = _assert_like_torch(leaf_view, WRITES[name])
        assert str(err) == "a view of a leaf Variable that requires grad is being used in an in-place operation."


def test_as_strided_():
    x = numgrad.arange(6.0)
    assert x.as_strided_((2, 2), (1, 2), 1) is x
    assert x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    b = numgrad.ones(4, requires_grad=True)
    v = (b * 1)[1:]
    v.as_strided_((2,), (1,), 2)
    (v * numgrad.tensor([2.0, 3.0])).sum().backward()
    assert b.grad.tolist() == [0.0, 0.0, 2.0, 3.0]


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.cross(m.ones(2, 3), m.ones(3)),
    lambda m: m.linalg.cross(m.ones(3), m.ones(2, 3)),
    lambda m: m.cross(m.ones(2, 3), m.ones(3), dim=1),
    lambda m: m.cross(m.ones(2, 3), m.ones(5, 1, 3)),
])
def test_cross_needs_same_ndim(call):
    with pytest.raises(RuntimeError, match=r"^linalg\.cross: inputs must have the same number of dimensions\.$"):
        call(numgrad)
    if torch is not None:
        with warnings.catch_warnings(), pytest.raises(RuntimeError) as ref:
            warnings.simplefilter("ignore")  # torch.cross without dim is deprecated
            call(torch)
        assert str(ref.value) == "linalg.cross: inputs must have the same number of dimensions."


def test_cross_dim_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        numgrad.linalg.cross(numgrad.ones(3), numgrad.ones(3), dim=3)
    with pytest.raises(RuntimeError, match=r"^linalg\.cross: inputs dimension -2 must have length 3\. Got 2 and 2$"):
        numgrad.linalg.cross(numgrad.ones(2, 4), numgrad.ones(2, 4), dim=-2)
