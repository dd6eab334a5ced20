"""After manual_seed, numgrad's CPU generator gives PyTorch's numbers: pinned values (taken from
PyTorch) that need no torch, and side-by-side checks of many calls when torch is importable."""
import numpy as np
import pytest

import numgrad
from numgrad.backends.cpu import mt19937


def test_pinned_streams():
    numgrad.manual_seed(0)
    assert numgrad.randn(3).tolist() == [1.5409960746765137, -0.293428897857666, -2.1787893772125244]
    assert numgrad.rand(2).tolist() == [0.455627977848053, 0.6323062777519226]
    assert numgrad.randint(0, 10, (5,)).tolist() == [1, 6, 6, 9, 8]
    assert numgrad.randperm(6).tolist() == [2, 0, 1, 5, 3, 4]
    numgrad.manual_seed(5)
    assert numgrad.rand(3, dtype=numgrad.float64).tolist() == [0.6420150066280941, 0.2597579151763153,
                                                                0.36082761942715424]
    assert numgrad.randint(0, 2**40, (2,)).tolist() == [622681974857, 34745516772]
    assert numgrad.empty(3, dtype=numgrad.int32).random_().tolist() == [479936231, 1703970750, 1142065563]
    numgrad.manual_seed(7)
    assert numgrad.randn(20, dtype=numgrad.float64)[-3:].tolist() == [-1.5870322969308357, 2.03026332869622,
                                                                       0.6596523264462502]
    assert numgrad.empty(4).bernoulli_(0.5).tolist() == [1.0, 1.0, 0.0, 1.0]
    assert numgrad.bernoulli(numgrad.full((4,), 0.5)).tolist() == [0.0, 1.0, 1.0, 1.0]
    numgrad.manual_seed(1)
    layer = numgrad.nn.Linear(3, 2)
    assert layer.weight.tolist() == [[0.2974873483181, -0.2548298239707947, -0.11192598193883896],
                                     [0.2709902822971344, -0.5435388088226318, 0.3462469279766083]]
    assert layer.bias.tolist() == [-0.11877556145191193, 0.2937234044075012]


def test_float32_normals_in_blocks_take_single_precision_math():
    # Dense float32 tensors of 16 or more: PyTorch's AVX2 kernel (its usual one on x86) computes
    # Box-Muller in float32 with polynomial log and sincos; numgrad computes the same roundings.
    numgrad.manual_seed(7)
    assert numgrad.randn(20)[-3:].tolist() == [-0.5640066862106323, -2.056462526321411, -0.35672253370285034]
    numgrad.manual_seed(0)
    x = numgrad.empty(40).normal_(0.3, 2.5)
    assert x[:2].tolist() == [-2.514599561691284, -2.5809004306793213]


def test_pinned_distributions_and_multinomial():
    numgrad.manual_seed(4)
    p = numgrad.tensor([0.1, 0.2, 0.3, 0.4])
    assert numgrad.multinomial(p, 6, replacement=True).tolist() == [2, 3, 0, 3, 3, 2]
    assert numgrad.multinomial(p, 2).tolist() == [2, 3]
    assert numgrad.empty(2, dtype=numgrad.float64).exponential_(2.0).tolist() == [0.09693337767589688,
                                                                                  0.9795940929393141]
    assert numgrad.empty(3).geometric_(0.2).tolist() == [4.0, 25.0, 3.0]


@pytest.mark.parametrize("call, message", [
    (lambda: numgrad.multinomial(numgrad.ones(3), 4), "cannot sample n_sample > prob_dist.size"),
    (lambda: numgrad.multinomial(numgrad.tensor([-1.0, 2.0]), 1), "element < 0"),
    (lambda: numgrad.multinomial(numgrad.tensor([1.0, float("nan")]), 1), "element < 0"),
    (lambda: numgrad.multinomial(numgrad.zeros(3), 1, True), "sum of probabilities <= 0"),
    (lambda: numgrad.multinomial(numgrad.ones(2, 2, 2), 1), "prob_dist must be 1 or 2 dim"),
    (lambda: numgrad.multinomial(numgrad.ones(2), 0), "n_sample <= 0"),
    (lambda: numgrad.multinomial(numgrad.tensor([1, 2]), 1), "only supports floating-point dtypes"),
    (lambda: numgrad.empty(3).exponential_(0), "expects lambda > 0.0"),
    (lambda: numgrad.empty(3).geometric_(1), r"expects p to be in \(0, 1\)"),
    (lambda: numgrad.empty(3).cauchy_(0, 0), "expects sigma > 0.0"),
    (lambda: numgrad.empty(3).log_normal_(1, -1), "expects std > 0.0"),
    (lambda: numgrad.empty(3, dtype=numgrad.int64).exponential_(), "you specified Long"),
    (lambda: numgrad.empty(3, dtype=numgrad.int64).cauchy_(), "you specified long int"),
])
def test_distribution_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_state_round_trip_and_separate_generators():
    numgrad.manual_seed(3)
    numgrad.randn(3)  # leaves the second normal of a pair waiting: part of the state
    state = numgrad.get_rng_state()
    a = [numgrad.randn(5).tolist(), numgrad.rand(4).tolist()]
    numgrad.set_rng_state(state)
    assert [numgrad.randn(5).tolist(), numgrad.rand(4).tolist()] == a
    g = numgrad.Generator().manual_seed(3)
    numgrad.manual_seed(3)
    assert numgrad.rand(6, generator=g).tolist() == numgrad.rand(6).tolist()
    with pytest.raises(RuntimeError, match="uint8 tensor"):
        numgrad.set_rng_state(numgrad.zeros(16, dtype=numgrad.uint8))


def test_seed_uses_the_low_32_bits_and_keeps_the_whole_seed():
    numgrad.manual_seed(2**40 + 5)
    a = numgrad.rand(3).tolist()
    numgrad.manual_seed(5)
    assert numgrad.rand(3).tolist() == a
    numgrad.manual_seed(-1)
    assert numgrad.initial_seed() == 2**64 - 1


def test_wide_permutation_is_a_permutation():
    # The 64-bit form serves sizes near 2**32; check it on a small size.
    state = mt19937.new_state()
    mt19937.seed(state, np.uint64(0))
    out = np.empty(1000, dtype=np.int64)
    mt19937.permutation(out, state, True)
    assert sorted(out.tolist()) == list(range(1000))
    assert out.tolist() != list(range(1000))


def test_empty_and_half_fills():
    assert numgrad.rand(0, 3).shape == (0, 3)
    h = numgrad.randn(40, dtype=numgrad.float16)
    assert h.dtype is numgrad.float16 and bool(h.isfinite().all())
    u = numgrad.empty(50, dtype=numgrad.float16).uniform_(-2, 2)
    assert bool((u >= -2).all() and (u <= 2).all())


_CALLS = {
    "rand": lambda lib: [lib.rand(5, 3), lib.rand(4, dtype=lib.float64)],
    "randn_small": lambda lib: [lib.randn(1), lib.randn(3), lib.randn(15), lib.randn(2, 3, dtype=lib.float64)],
    "randn_blocks": lambda lib: [lib.randn(16, dtype=lib.float64), lib.randn(33, dtype=lib.float64), lib.randn(16),
                                 lib.randn(3, 100), lib.empty(50).normal_(-1.5, 0.25)],
    "normal_": lambda lib: [lib.empty(20, dtype=lib.float64).normal_(0.1, 2.5),
                            lib.empty(4, 5, dtype=lib.float64).t().normal_(0.1, 2.5), lib.empty(5).normal_(3, 2)],
    "uniform_": lambda lib: [lib.empty(30).uniform_(-0.3, 0.7), lib.empty(4, 6)[:, ::2].uniform_(),
                             lib.empty(7, dtype=lib.float64).uniform_(-2, 5)],
    "randint": lambda lib: [lib.randint(lo, hi, (6,)) for lo, hi in ((0, 10), (-5, 7), (0, 2**28 - 1),
                                                                     (0, 2**28), (-2**62, 2**62))],
    "random_": lambda lib: [lib.empty(5, dtype=d).random_() for d in (lib.int64, lib.int32, lib.int16, lib.uint8,
                                                                     lib.bool, lib.float32, lib.float64)]
    + [lib.empty(5, dtype=lib.int64).random_(3, 2**30)],
    "randperm": lambda lib: [lib.randperm(n) for n in (0, 1, 2, 7, 100)],
    "bernoulli": lambda lib: [lib.empty(9).bernoulli_(0.3), lib.bernoulli(lib.full((9,), 0.3)),
                              lib.bernoulli(lib.full((9,), 0.3, dtype=lib.float64))],
    "normal": lambda lib: [lib.normal(lib.zeros(5), lib.ones(5)), lib.normal(2.0, 3.0, (4,))],
    "distributions": lambda lib: [f(lib.empty(9, dtype=d)) for d in (lib.float32, lib.float64) for f in (
        lambda t: t.exponential_(0.37), lambda t: t.geometric_(0.37), lambda t: t.cauchy_(0.3, 0.7),
        lambda t: t.log_normal_(0.3, 0.7))] + [lib.empty(3, 2).t().exponential_()],
    "multinomial": lambda lib: [lib.multinomial(lib.tensor([0.1, 0.2, 0.3, 0.4]), 10, replacement=True),
                                lib.multinomial(lib.tensor([0.1, 0.2, 0.3, 0.4]), 3),
                                lib.tensor([[1.0, 5.0, 0.0, 2.0], [0.5, 0.5, 3.0, 0.1]]).multinomial(6, True),
                                lib.ones(2, 30, dtype=lib.float64).multinomial(4)],
    "layers": lambda lib: [lib.nn.Linear(5, 3).weight, lib.nn.Conv2d(2, 3, 3).bias, lib.nn.Embedding(3, 5).weight,
                           lib.nn.init.xavier_uniform_(lib.empty(3, 4)), lib.nn.functional.dropout(lib.ones(20), 0.4)],
    "data": lambda lib: [lib.tensor([b[0].tolist() for b in lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(lib.arange(9)), batch_size=3, shuffle=True)])]
    + [lib.tensor(lib.utils.data.random_split(range(9), [4, 5])[1].indices)],
}


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_same_numbers_as_torch(name):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (numgrad, torch):
        lib.manual_seed(11)
        results.append([t.detach().numpy() for t in _CALLS[name](lib)])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
