"""DataLoader(num_workers=N): worker processes, their seeds, order, errors and shared memory."""
import os
import time

import numpy as np
import pytest

import numgrad
from numgrad.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info


class WhoLoads(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = get_worker_info()
        return {"index": i, "worker": -1 if info is None else info.id, "pid": os.getpid(),
                "noise": numgrad.rand(2)}


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError("no sample 5")
        return i


class Dying(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3:
            os._exit(3)
        return i


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(3)
        return i


class Counting(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, 20, step))


def _shared_blocks():
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith("psm_")}
    except FileNotFoundError:
        return set()


def test_batches_and_order_match_single_process():
    data = TensorDataset(numgrad.arange(40.0).reshape(20, 2), numgrad.arange(20))
    before = _shared_blocks()
    for shuffle in (False, True):
        numgrad.manual_seed(7)
        single = [tuple(t.tolist() for t in b) for b in DataLoader(data, batch_size=3, shuffle=shuffle)]
        numgrad.manual_seed(7)
        multi = [tuple(t.tolist() for t in b) for b in DataLoader(data, batch_size=3, shuffle=shuffle,
                                                                  num_workers=2)]
        assert multi == single
    assert _shared_blocks() <= before


def test_workers_take_turns_and_know_themselves():
    seen = []
    loader = DataLoader(WhoLoads(), batch_size=2, num_workers=3, worker_init_fn=seen.append)
    batches = list(loader)
    assert [b["index"].tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]
    assert [b["worker"].tolist() for b in batches] == [[w, w] for w in (0, 1, 2, 0, 1, 2)]
    assert os.getpid() not in {p for b in batches for p in b["pid"].tolist()}
    assert seen == []  # worker_init_fn runs in the workers, not here


def test_worker_seeds_follow_pytorch():
    torch = pytest.importorskip("torch")

    class TorchNoise(torch.utils.data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return torch.rand(2)
    numgrad.manual_seed(3)
    ours = [b["noise"].numpy() for b in DataLoader(WhoLoads(), batch_size=2, num_workers=2)][:3]
    torch.manual_seed(3)
    theirs = [b.numpy() for b in torch.utils.data.DataLoader(TorchNoise(), batch_size=2, num_workers=2)]
    np.testing.assert_array_equal(np.stack(ours), np.stack(theirs))


def test_iterable_dataset_sharded_by_worker_info():
    values = sorted(v for b in DataLoader(Counting(), batch_size=4, num_workers=2) for v in b.tolist())
    assert values == list(range(20))


def test_worker_error_is_reraised_with_its_type():
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 1"):
        list(DataLoader(Failing(), batch_size=1, num_workers=2))


def test_dead_worker_is_reported():
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(DataLoader(Dying(), batch_size=1, num_workers=2))


def test_timeout():
    with pytest.raises(RuntimeError, match="timed out after 0.5 seconds"):
        next(iter(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.5)))


def test_persistent_workers_survive_epochs():
    loader = DataLoader(WhoLoads(), batch_size=4, num_workers=2, persistent_workers=True)
    first = {p for b in loader for p in b["pid"].tolist()}
    second = {p for b in loader for p in b["pid"].tolist()}
    assert first == second and len(first) == 2
    loader_stream = DataLoader(Counting(), batch_size=5, num_workers=2, persistent_workers=True,
                               prefetch_factor=1)
    for _ in range(2):
        assert sorted(v for b in loader_stream for v in b.tolist()) == list(range(20))


def test_argument_errors():
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(WhoLoads(), num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(WhoLoads(), persistent_workers=True)
