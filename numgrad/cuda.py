"""``numgrad.cuda``: GPU availability and device management, as ``torch.cuda``."""
from __future__ import annotations

from .backends import cuda_available
from .devices import as_device
from .legacy import tensor_types
from .random import default_generator

(BoolTensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, HalfTensor, BFloat16Tensor, FloatTensor,
 DoubleTensor) = tensor_types("cuda")


def _backend():
    from .backends import cuda
    return cuda


def is_available() -> bool:
    """True when a CUDA GPU (or Numba's CUDA simulator) and the Numba CUDA target are usable."""
    return cuda_available()


def device_count() -> int:
    """The number of visible CUDA devices (0 without CUDA)."""
    if not is_available():
        return 0
    return _backend().device_count()


def _require():
    from .backends import require_cuda
    return require_cuda()


def is_initialized() -> bool:
    """True once a CUDA tensor or kernel has been made in this process."""
    return is_available() and _memory().stats()["num_allocs"] > 0


# ------------------------------------------------------------------------------ random numbers
# CUDA tensors draw from numgrad's default generator (the same stream as the CPU), which
# numgrad.manual_seed seeds. Seeding "the CUDA generators" on their own is thus nothing to do;
# PyTorch's functions are equally silent on a machine without CUDA.
def manual_seed(seed) -> None:
    """Accepted for PyTorch programs; CUDA draws come from the generator :func:`numgrad.manual_seed` seeds."""
    int(seed)


def manual_seed_all(seed) -> None:
    """Accepted for PyTorch programs; CUDA draws come from the generator :func:`numgrad.manual_seed` seeds."""
    int(seed)


def seed() -> None:
    """Accepted for PyTorch programs; CUDA draws come from numgrad's default generator."""


def seed_all() -> None:
    """Accepted for PyTorch programs; CUDA draws come from numgrad's default generator."""


def initial_seed() -> int:
    """The seed of the generator CUDA tensors draw from; RuntimeError without CUDA."""
    _require()
    return default_generator.initial_seed()


def get_rng_state(device="cuda"):
    """The state of the generator CUDA tensors draw from, as a uint8 tensor."""
    _require()
    return default_generator.get_state()


def set_rng_state(new_state, device="cuda") -> None:
    """Restores the state of the generator CUDA tensors draw from."""
    _require()
    default_generator.set_state(new_state)


def get_rng_state_all() -> list:
    """The states of all CUDA devices' generators (one per device)."""
    return [default_generator.get_state() for _ in range(device_count())]


def set_rng_state_all(new_states) -> None:
    """Restores the states from :func:`get_rng_state_all`."""
    for state in new_states:
        set_rng_state(state)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: numgrad's bfloat16 tensors live on the CPU only."""
    return False


def set_device(device) -> None:
    """Selects the current CUDA device; numgrad uses device 0, the only index accepted."""
    _require()
    index = device if isinstance(device, int) else as_device(device).index
    if index not in (None, 0, -1):
        raise RuntimeError(f"CUDA error: invalid device ordinal (numgrad uses device 0, got {index})")


def get_device_capability(device=None) -> tuple:
    """The (major, minor) compute capability of a CUDA device."""
    _require()
    from .backends.cuda import runtime
    return tuple(runtime.module().get_current_device().compute_capability)


def ipc_collect() -> None:
    """Nothing to collect: numgrad shares no CUDA memory between processes."""
    _require()


def current_device() -> int:
    """The index of the current CUDA device."""
    return _require().current_device()


def synchronize(device=None) -> None:
    """Waits for all kernels on the current CUDA device to complete."""
    _require().synchronize(device)


def get_device_name(device=None) -> str:
    """The name of a CUDA device."""
    backend = _require()
    return backend.device_name()


# ------------------------------------------------------------------------------ memory statistics
def _memory():
    from .backends.cuda import memory
    return memory


def memory_allocated(device=None) -> int:
    """Bytes of device memory held by live tensors (in the allocator's 512 B size classes)."""
    return _memory().stats()["allocated_bytes"]


def max_memory_allocated(device=None) -> int:
    """The peak of :func:`memory_allocated` since the start or the last :func:`reset_peak_memory_stats`."""
    return _memory().stats()["peak_allocated_bytes"]


def memory_reserved(device=None) -> int:
    """Bytes of device memory held by the caching allocator: in use plus cached for reuse."""
    return _memory().stats()["reserved_bytes"]


def max_memory_reserved(device=None) -> int:
    """The peak of :func:`memory_reserved`."""
    return _memory().stats()["peak_reserved_bytes"]


def reset_peak_memory_stats(device=None) -> None:
    """Restart the peaks of the memory statistics from the current values."""
    _memory().reset_peak_stats()


def empty_cache() -> None:
    """Release the cached, unused device memory held by the caching allocator."""
    _memory().empty_cache()


def memory_stats(device=None) -> dict:
    """The caching allocator's counters, under PyTorch's key names."""
    s = _memory().stats()
    return {"allocated_bytes.all.current": s["allocated_bytes"],
            "allocated_bytes.all.peak": s["peak_allocated_bytes"],
            "reserved_bytes.all.current": s["reserved_bytes"],
            "reserved_bytes.all.peak": s["peak_reserved_bytes"],
            "num_device_alloc": s["num_allocs"], "num_device_free": s["num_frees"]}
