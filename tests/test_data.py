"""numgrad.utils.data against torch.utils.data: datasets, samplers, random_split, collation and
the DataLoader's batches, lengths, errors and reproducible shuffling."""
import collections
import warnings

import numpy as np
import pytest

import numgrad
from numgrad.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                IterableDataset, RandomSampler, SequentialSampler, Subset,
                                SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                                default_collate, default_convert, get_worker_info, random_split)

try:
    import torch
    import torch.utils.data as tud
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")


def _plain(x):
    """Batches of either library as nested Python data with dtype names, for comparison."""
    if isinstance(x, numgrad.Tensor):
        return ("tensor", x.dtype.name, x.tolist())
    if torch is not None and isinstance(x, torch.Tensor):
        return ("tensor", str(x.dtype).replace("torch.", ""), x.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(_plain(v) for v in x)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.full(2, i, dtype=np.float32), "y": i * i, "w": i / 2, "odd": bool(i % 2),
                "name": f"s{i}"}


def _stream_class(base):
    class Stream(base):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    return Stream


Stream = _stream_class(IterableDataset)


Point = collections.namedtuple("Point", "x y")


# ------------------------------------------------------------------------------ collate
COLLATE_CASES = [
    [1, 2, 3],
    [1.5, 2.0],
    [True, False],
    ["a", "b"],
    [(1, 2.0), (3, 4.0)],
    [[1, 2], [3, 4]],
    [{"a": 1, "b": (np.ones(2), 2.0)}, {"a": 2, "b": (np.zeros(2), 3.0)}],
    [Point(1, 2.0), Point(3, 4.0)],
    [np.float32(1.0), np.float32(2.0)],
    [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)],
    [np.array([True, False]), np.array([False, False])],
]


@needs_torch
@pytest.mark.parametrize("batch", COLLATE_CASES, ids=range(len(COLLATE_CASES)))
def test_default_collate_matches_torch(batch):
    assert _plain(default_collate(batch)) == _plain(tud.default_collate(batch))


def test_default_collate_stacks_tensors_and_keeps_grad():
    x = numgrad.ones(2, 3, requires_grad=True)
    out = default_collate([x, x * 2])
    assert out.shape == (2, 2, 3) and out.requires_grad
    assert default_collate([1, 2]).dtype is numgrad.int64
    assert default_collate([1.0]).dtype is numgrad.float64
    assert default_collate([True]).dtype is numgrad.bool
    od = default_collate([collections.OrderedDict(b=1, a=2)])
    assert isinstance(od, collections.OrderedDict) and list(od) == ["b", "a"]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([object()])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([np.array(["a"])])


@needs_torch
def test_default_convert_matches_torch():
    for data in [np.ones(2), (np.ones(1), 3), [1, 2], np.float64(3.0), {"a": np.zeros(2, dtype=np.int16)}]:
        assert _plain(default_convert(data)) == _plain(tud.default_convert(data))


# ------------------------------------------------------------------------------ datasets
def test_tensor_dataset_subset_concat():
    x, y = numgrad.arange(10.0).reshape(5, 2), numgrad.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5 and ds[3][0].tolist() == [6.0, 7.0] and ds[3][1].item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, numgrad.arange(4))
    sub = Subset(ds, [4, 0])
    assert len(sub) == 2 and sub[0][1].item() == 4
    cat = ds + sub
    assert isinstance(cat, ConcatDataset) and len(cat) == 7 and cat.cumulative_sizes == [5, 7]
    assert cat[5][1].item() == 4 and cat[-1][1].item() == 0 and cat[-7][1].item() == 0
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-8]
    with pytest.raises(AssertionError, match="empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Stream(2)])
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(NotImplementedError):
        Dataset()[0]


def test_random_split_lengths_fractions_and_errors():
    parts = random_split(range(10), [3, 7], generator=numgrad.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    # Fractions: floor(n * f), the remainder dealt to the first splits (as PyTorch).
    assert [len(p) for p in random_split(range(10), [0.25, 0.25, 0.5])] == [3, 2, 5]
    assert [len(p) for p in random_split(range(7), [0.5, 0.5])] == [4, 3]
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.5, 0.0, 0.5])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(10), [0.5, 1.5, -1.0])
    a = random_split(range(10), [5, 5], generator=numgrad.Generator().manual_seed(7))
    b = random_split(range(10), [5, 5], generator=numgrad.Generator().manual_seed(7))
    assert [p.indices for p in a] == [p.indices for p in b]
    numgrad.manual_seed(3)
    c = random_split(range(10), [5, 5])
    numgrad.manual_seed(3)
    assert [p.indices for p in random_split(range(10), [5, 5])] == [p.indices for p in c]


@needs_torch
@pytest.mark.parametrize("n, lengths", [(10, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]), (5, [1.0]),
                                        (3, [0.1, 0.9]), (8, [2, 6])])
def test_random_split_lengths_match_torch(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = [len(p) for p in random_split(range(n), lengths)]
        ref = [len(p) for p in tud.random_split(range(n), lengths)]
    assert ours == ref


# ------------------------------------------------------------------------------ samplers
def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = numgrad.Generator().manual_seed(0)
    perm = list(RandomSampler(range(6), generator=g))
    assert sorted(perm) == list(range(6))
    assert len(list(RandomSampler(range(4), num_samples=10))) == 10
    assert sorted(list(RandomSampler(range(4), num_samples=8))) == sorted(list(range(4)) * 2)
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=20))
    assert len(drawn) == 20 and set(drawn) <= {0, 1, 2}
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(0))
    assert sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    w = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=numgrad.Generator().manual_seed(1)))
    assert len(w) == 50 and set(w) <= {1, 3} and w.count(3) > w.count(1)
    nr = list(WeightedRandomSampler([1.0, 0.0, 2.0, 5.0], 3, replacement=False))
    assert sorted(nr) == [0, 2, 3]
    with pytest.raises(RuntimeError, match="without replacement"):
        WeightedRandomSampler([1.0, 0.0], 2, replacement=False)
    assert list(BatchSampler(range(5), 2, False)) == [[0, 1], [2, 3], [4]]
    assert list(BatchSampler(range(5), 2, True)) == [[0, 1], [2, 3]]
    assert len(BatchSampler(range(5), 2, False)) == 3 and len(BatchSampler(range(5), 2, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(5), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(range(5), 2, 1)


# ------------------------------------------------------------------------------ DataLoader
@needs_torch
@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (2, False), (2, True), (4, True), (7, False),
                                                   (None, False)])
def test_loader_batches_match_torch(batch_size, drop_last):
    ours = list(DataLoader(Squares(5), batch_size=batch_size, drop_last=drop_last))
    ref = list(tud.DataLoader(Squares(5), batch_size=batch_size, drop_last=drop_last))
    assert _plain(ours) == _plain(ref)
    assert len(DataLoader(Squares(5), batch_size=batch_size, drop_last=drop_last)) == \
        len(tud.DataLoader(Squares(5), batch_size=batch_size, drop_last=drop_last))


@needs_torch
@pytest.mark.parametrize("batch_size, drop_last", [(2, False), (2, True), (None, False)])
def test_loader_iterable_dataset_matches_torch(batch_size, drop_last):
    ours = DataLoader(Stream(5), batch_size=batch_size, drop_last=drop_last)
    ref = tud.DataLoader(_stream_class(tud.IterableDataset)(5), batch_size=batch_size, drop_last=drop_last)
    assert _plain(list(ours)) == _plain(list(ref))
    assert len(ours) == len(ref)


def test_loader_tensor_dataset_shapes_and_len():
    x, y = numgrad.randn(10, 3), numgrad.arange(10)
    dl = DataLoader(TensorDataset(x, y), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(iter(dl)) == 3
    assert [tuple(b[0].shape) for b in batches] == [(4, 3), (4, 3), (2, 3)]
    assert isinstance(batches[0], list) and batches[0][1].dtype is numgrad.int64
    assert len(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True)) == 2


def test_loader_shuffle_is_reproducible():
    ds = TensorDataset(numgrad.arange(20))

    def epoch(loader):
        return [i for (b,) in loader for i in b.tolist()]

    numgrad.manual_seed(0)
    dl = DataLoader(ds, batch_size=3, shuffle=True)
    first, second = epoch(dl), epoch(dl)
    assert sorted(first) == list(range(20)) and first != second  # a new order each epoch
    numgrad.manual_seed(0)
    assert [epoch(dl), epoch(dl)] == [first, second]
    g1, g2 = numgrad.Generator().manual_seed(5), numgrad.Generator().manual_seed(5)
    assert epoch(DataLoader(ds, batch_size=3, shuffle=True, generator=g1)) == \
        epoch(DataLoader(ds, batch_size=3, shuffle=True, generator=g2))
    # Worker processes give the same batches in the same order.
    numgrad.manual_seed(0)
    assert epoch(DataLoader(ds, batch_size=3, shuffle=True, num_workers=2)) == first


def test_loader_samplers_and_collate_fn():
    ds = TensorDataset(numgrad.arange(6))
    dl = DataLoader(ds, sampler=[5, 4, 3, 2, 1, 0], batch_size=4)
    assert [b[0].tolist() for b in dl] == [[5, 4, 3, 2], [1, 0]]
    dl = DataLoader(ds, batch_sampler=[[0, 2], [1, 3, 5]])
    assert [b[0].tolist() for b in dl] == [[0, 2], [1, 3, 5]] and len(dl) == 2
    dl = DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(dl) == [1, 5, 4]
    assert get_worker_info() is None


def test_loader_errors():
    ds = TensorDataset(numgrad.arange(4))
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    dl = DataLoader(ds)
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        dl.batch_size = 3


@needs_torch
def test_loader_error_messages_match_torch():
    cases = [dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
             dict(batch_size=None, drop_last=True), dict(num_workers=-1), dict(prefetch_factor=2)]
    for kw in cases:
        with pytest.raises(ValueError) as ref:
            tud.DataLoader(range(4), **kw)
        with pytest.raises(ValueError) as ours:
            DataLoader(range(4), **kw)
        assert str(ours.value) == str(ref.value)


def test_training_loop_smoke():
    numgrad.manual_seed(0)
    x = numgrad.randn(16, 3)
    y = x @ numgrad.tensor([[1.0], [-2.0], [0.5]])
    model = numgrad.nn.Linear(3, 1)
    opt = numgrad.optim.SGD(model.parameters(), lr=0.1)
    train, _ = random_split(TensorDataset(x, y), [0.75, 0.25])
    losses = []
    for _ in range(5):
        for xb, yb in DataLoader(train, batch_size=4, shuffle=True):
            opt.zero_grad()
            loss = ((model(xb) - yb) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert losses[-1] < losses[0]
