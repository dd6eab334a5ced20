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


def test_scaling_is_one_fused_multiply_add():
    # A sum exactly halfway between two float32s: rounding once gives PyTorch's number, rounding
    # through float64 first would not.
    numgrad.manual_seed(8)
    assert numgrad.empty(2048).normal_(1e-30, 1 + 2**-12)[893].item() == 1.2417582273483276


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
    "init": lambda lib: [lib.nn.init.uniform_(lib.empty(3, 7), -0.3, 0.9),
                         lib.nn.init.normal_(lib.empty(20), 0.5, 2.0),
                         lib.nn.init.xavier_normal_(lib.empty(6, 3, 2), gain=0.7),
                         lib.nn.init.kaiming_uniform_(lib.empty(6, 5, 3), a=0.2, mode="fan_out"),
                         lib.nn.init.kaiming_normal_(lib.empty(4, 5), nonlinearity="relu"),
                         lib.nn.init.uniform_(lib.empty(9, dtype=lib.float64), -0.3, 0.4)],
    "trunc_normal_": lambda lib: [lib.nn.init.trunc_normal_(lib.empty(50)),
                                  lib.nn.init.trunc_normal_(lib.empty(4, 30), 0.1, 0.5, -0.2, 0.3),
                                  lib.nn.init.trunc_normal_(lib.empty(40), 0.0, 1.0, 1.5, 3.0),
                                  lib.nn.init.trunc_normal_(lib.empty(7, dtype=lib.float64), std=0.02)],
    "sparse_dirac": lambda lib: [lib.nn.init.sparse_(lib.empty(6, 5), 0.3),
                                 lib.nn.init.dirac_(lib.empty(6, 3, 3, 3), 2),
                                 lib.nn.init.dirac_(lib.empty(4, 3, 3)), lib.rand(2)],
    "modules": lambda lib: list(lib.nn.Sequential(
        lib.nn.Linear(5, 4), lib.nn.Bilinear(3, 4, 2, dtype=lib.float64), lib.nn.Conv1d(2, 4, 3),
        lib.nn.Conv2d(4, 6, 3, groups=2), lib.nn.Embedding(5, 3, padding_idx=1), lib.nn.LayerNorm(4),
        lib.nn.BatchNorm1d(3), lib.nn.PReLU(3), lib.nn.Linear(3, 2, bias=False, dtype=lib.float64)).parameters()),
    "rrelu": lambda lib: [lib.nn.functional.rrelu(lib.tensor([[-1.0, 2.0, -3.0], [0.0, -5.0, 6.0]]), training=True),
                          lib.nn.functional.rrelu(lib.tensor([-1.0, 2.0, -3.0, -0.5], dtype=lib.float64), 0.1, 0.4,
                                                  training=True),
                          lib.nn.RReLU(0.2, 0.3)(-lib.ones(5))],
    "like": lambda lib: [lib.rand_like(lib.empty(3, 4)), lib.rand_like(lib.empty(4, 3).t()),
                         lib.randn_like(lib.empty(5, 4).t()), lib.randn_like(lib.empty(20, dtype=lib.float64)),
                         lib.randint_like(lib.empty(3, 4), -3, 5),
                         lib.randint_like(lib.empty(4, 6, dtype=lib.int32).t(), 9)],
    "dropout": lambda lib: [lib.nn.functional.dropout(lib.ones(5, 4).t(), 0.3), lib.nn.Dropout(0.2)(lib.ones(3, 3)),
                            lib.nn.functional.dropout(lib.ones(30, dtype=lib.float64), 0.1)],
    "half": lambda lib: [lib.empty(300, dtype=lib.float16).uniform_(0.1, 0.4), lib.rand(5, dtype=lib.float16),
                         lib.empty(40, dtype=lib.float16).uniform_(-2, 5),
                         lib.rand_like(lib.empty(7, 3, dtype=lib.float16).t())],
    "dropout_family": lambda lib: [
        lib.nn.functional.dropout1d(lib.ones(3, 4, 5), 0.3), lib.nn.functional.dropout1d(lib.ones(4, 5), 0.5),
        lib.nn.functional.dropout2d(lib.ones(2, 5, 2, 2), 0.4), lib.nn.functional.dropout3d(lib.ones(3, 2, 2, 2)),
        lib.nn.functional.alpha_dropout(lib.linspace(-1, 1, 20), 0.3, True),
        lib.nn.functional.feature_alpha_dropout(lib.linspace(-1, 1, 24).reshape(2, 3, 4), 0.4, True),
        lib.nn.functional.alpha_dropout(lib.ones(30, dtype=lib.float64), 0.2, True),
        lib.nn.Dropout2d(0.5)(lib.ones(2, 4, 1, 3)), lib.nn.FeatureAlphaDropout(0.5)(lib.ones(2, 3, 2))],
    "samplers": lambda lib: [lib.tensor(list(s)) for s in (
        lib.utils.data.SubsetRandomSampler([3, 5, 7, 9, 11]), lib.utils.data.RandomSampler(range(5), num_samples=12),
        lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 1e-3, 3.0], 40),
        lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 0.0], 3, replacement=False),
        lib.utils.data.RandomSampler(range(9), replacement=True, num_samples=40))],
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


def test_orthogonal_matches_torch_to_rounding():
    # Q comes from a Householder QR whose roundings differ from LAPACK's in the last bits; the
    # draws, the signs and the stream left behind are the same.
    torch = pytest.importorskip("torch")
    results = []
    for lib in (numgrad, torch):
        lib.manual_seed(11)
        init = lib.nn.init
        results.append([init.orthogonal_(lib.empty(4, 6)).numpy(), init.orthogonal_(lib.empty(6, 4)).numpy(),
                        init.orthogonal_(lib.empty(3, 2, 2, dtype=lib.float64), gain=2.0).numpy(),
                        lib.rand(3).numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)
        np.testing.assert_array_equal(np.sign(ours), np.sign(theirs))
    np.testing.assert_array_equal(results[0][-1], results[1][-1])


def test_pinned_init_and_consumers():
    numgrad.manual_seed(11)
    assert numgrad.nn.init.trunc_normal_(numgrad.empty(4), std=0.02).tolist() == [
        0.014752589166164398, 0.03891858458518982, -0.01399083249270916, -0.026045948266983032]
    assert numgrad.nn.init.trunc_normal_(numgrad.empty(3), 0.0, 1.0, 1.5, 3.0).tolist() == [
        1.8657066822052002, 1.909435749053955, 1.9040067195892334]
    x = numgrad.tensor([-1.0, 2.0, -3.0, 0.0])
    assert numgrad.nn.functional.rrelu(x, training=True).tolist() == [-0.1837649643421173, 2.0,
                                                                      -0.8510695695877075, 0.0]
    assert numgrad.rand_like(numgrad.empty(3, 2).t()).tolist() == [
        [0.5418367981910706, 0.40791749954223633, 0.8875522613525391],
        [0.20065712928771973, 0.3509589433670044, 0.94664466381073]]
    assert list(numgrad.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 6)) == [1, 3, 1, 1, 1, 1]
    assert numgrad.nn.init.sparse_(numgrad.empty(4, 2), 0.5).tolist() == [
        [0.0, 0.0], [-0.003271517576649785, 0.0132258590310812], [-0.006894832011312246, 0.0],
        [0.0, -0.010430602356791496]]
    # float64 bounds are applied with one rounding (a fused multiply-add), as PyTorch's.
    assert numgrad.empty(3, dtype=numgrad.float64).uniform_(-0.3, 0.4).tolist() == [
        -0.24229748138814944, -0.08879916650652453, 0.3891025380018056]


@pytest.mark.parametrize("call, error, message", [
    (lambda: numgrad.nn.init.orthogonal_(numgrad.empty(3)), ValueError, "2 or more dimensions"),
    (lambda: numgrad.nn.init.sparse_(numgrad.empty(2, 2, 2), 0.1), ValueError, "Only tensors with 2 dimensions"),
    (lambda: numgrad.nn.init.dirac_(numgrad.empty(2, 2)), ValueError, "3, 4, or 5 dimensions"),
    (lambda: numgrad.nn.init.dirac_(numgrad.empty(3, 2, 2), 2), ValueError, "divisible by groups"),
    (lambda: numgrad.nn.functional.dropout1d(numgrad.ones(2, 2, 2, 2)), RuntimeError, "Expected 2D or 3D input"),
    (lambda: numgrad.nn.functional.feature_alpha_dropout(numgrad.ones(3), 0.5, True), RuntimeError,
     "at least 2 dimensions"),
    (lambda: numgrad.nn.AlphaDropout(1.5), ValueError, "between 0 and 1"),
    (lambda: numgrad.randint_like(numgrad.empty(2), 3, 3), RuntimeError, "from=3 >= to=3"),
])
def test_init_and_dropout_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_dropout_layers_in_eval_and_identities():
    x = numgrad.ones(2, 3, 4)
    for layer in (numgrad.nn.Dropout1d(0.5), numgrad.nn.AlphaDropout(), numgrad.nn.FeatureAlphaDropout()):
        assert layer.eval()(x).tolist() == x.tolist()
    assert repr(numgrad.nn.Dropout2d(0.3)) == "Dropout2d(p=0.3, inplace=False)"
    w = numgrad.nn.init.dirac_(numgrad.empty(2, 2, 3))
    assert numgrad.nn.functional.conv1d(numgrad.arange(6.0).reshape(1, 2, 3), w, padding=1).tolist() == [
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]
    q = numgrad.nn.init.orthogonal_(numgrad.empty(3, 5, dtype=numgrad.float64))
    np.testing.assert_allclose((q @ q.t()).numpy(), np.eye(3), atol=1e-12)
