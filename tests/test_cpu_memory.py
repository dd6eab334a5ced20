"""The CPU allocator setting: freed tensor memory stays mapped between steps on glibc."""
import numpy as np
import pytest

from numgrad.backends.cpu import memory


def test_freed_buffers_are_reused_without_page_faults():
    resource = pytest.importorskip("resource")
    if not memory.keep_freed_memory():
        pytest.skip("not glibc")

    def step():
        # A training step's temporaries: a few MiB each, all freed at its end.
        return [np.ones(1 << 17) for _ in range(8)]

    step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        step()
    # Trimmed and mapped again, each step would fault in its 2048 pages.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before < 2048


@pytest.mark.parametrize("var", ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_"])
def test_user_tuning_is_left_alone(monkeypatch, var):
    monkeypatch.setenv(var, "1000000")
    assert memory.keep_freed_memory() is False
