"""Compiling each kernel once across processes, and ahead of need on the idle cores.

Numba compiles a kernel in the process that first calls it, and a program's first run spends
most of its time there. Two things shorten that wait:

- A lock file per kernel signature. A process about to compile one takes its lock; a process
  that finds the lock taken waits, then loads the compiled kernel from the cache instead of
  compiling it a second time. DataLoader workers, test workers and the helpers below share
  work this way (except that a program never waits for a helper).
- Helper processes. The first time a process has to compile, it starts helpers on its idle
  cores (``python -m numgrad.precompile``) that compile the kernels common programs need,
  beginning with what a training script reaches last (the loss, backward, the optimiser's
  step), while the program compiles its own from the front. Helpers stop with the program;
  once they have run to the end for a cache directory they are not started for it again.

Only numgrad's own kernels take part. ``NUMGRAD_PRECOMPILE=0`` starts no helpers; where
``fcntl`` is missing (Windows) processes compile independently, as Numba does.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time

from numba.core import caching, event

from .codegen import PACKAGE, cache_dir, file_hash
from .cpu import parallel

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, each process compiles for itself
    fcntl = None

HELPER_ENV = "NUMGRAD_PRECOMPILE_HELPER"
# At most this many helpers: past a few, they mostly wait on each other's locks.
MAX_HELPERS = 3
# The longest a process waits for another's compilation before compiling for itself.
WAIT_LIMIT_S = 120.0

_original_load = caching.FunctionCache.load_overload
_original_save = caching.FunctionCache.save_overload
_held: dict = {}          # (id(cache), sig) -> descriptor holding the lock while this process compiles
_helpers_considered = [False]


def _ours(cache) -> bool:
    module = getattr(cache._py_func, "__module__", "") or ""
    return module.startswith(("numgrad.", "_numgrad_kernel_"))


def _lock_path(cache, sig) -> str:
    index = os.path.join(cache.cache_path, cache._cache_file._index_name)
    digest = hashlib.sha1(f"{index}\0{sig!r}".encode()).hexdigest()[:24]
    directory = os.path.join(cache_dir(), "locks")
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, digest)


def _acquire(cache, sig):
    """An open descriptor holding the kernel's lock, or None to compile without it: the cache
    is not writable, a helper holds the lock (a program never waits for a helper: it compiles
    the kernel itself, so a helper can only save it time), or the holder took too long."""
    try:
        fd = os.open(_lock_path(cache, sig), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return None
    role = b"helper" if os.environ.get(HELPER_ENV) else b"program"
    # Polled, not blocking: a holder that never lets go (stopped in a debugger, say) delays
    # this process by WAIT_LIMIT_S at most.
    deadline = time.monotonic() + WAIT_LIMIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if (role == b"program" and os.pread(fd, 6, 0) == b"helper") or time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.02)
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, role, 0)
        return fd


def _release(key):
    fd = _held.pop(key, None)
    if fd is not None:
        os.close(fd)  # closing the descriptor drops the lock


def _load_overload(self, sig, target_context):
    data = _original_load(self, sig, target_context)
    if data is not None or fcntl is None or not _ours(self):
        return data
    key = (id(self), sig)
    if key in _held:
        return None
    start_helpers()
    fd = _acquire(self, sig)
    if fd is None:
        return None
    data = _original_load(self, sig, target_context)  # compiled by another process while we waited
    if data is not None:
        os.close(fd)
        return data
    _held[key] = fd
    return None


def _save_overload(self, sig, data):
    try:
        _original_save(self, sig, data)
    finally:
        _release((id(self), sig))


class _ReleaseOnFailure(event.Listener):
    """A compilation that raises never reaches ``save_overload``: drop its lock here."""

    def on_start(self, ev):
        pass

    def on_end(self, ev):
        if getattr(ev, "_exc_details", None) is not None:  # Numba's ``is_failed`` reads it inverted
            cache = getattr(ev.data.get("dispatcher"), "_cache", None)
            for key in [k for k in _held if k[0] == id(cache)]:
                _release(key)


def _helper_count() -> int:
    return min(parallel.CORES - 1, MAX_HELPERS)


def marker_path(index: int, count: int) -> str:
    """The file a helper writes once it has compiled its whole share (of the stages as they are
    now: its name carries their file's hash)."""
    stages = file_hash(os.path.join(PACKAGE, "precompile.py"))[:16]
    return os.path.join(cache_dir(), f"precompiled-{stages}-{index}of{count}")


def start_helpers():
    """Start the helper processes, once per process, where they can help (see the module doc)."""
    if _helpers_considered[0]:
        return
    _helpers_considered[0] = True
    if os.environ.get("NUMGRAD_PRECOMPILE", "1") == "0" or os.environ.get(HELPER_ENV) or not sys.executable:
        return
    count = _helper_count()
    env = dict(os.environ, **{HELPER_ENV: "1"})
    for index in range(count):
        marker = marker_path(index, count)
        if os.path.exists(marker):
            continue
        # The share's lock goes to the helper with its descriptor and is held until the helper
        # exits: another program starting at the same time finds it taken and starts none.
        try:
            fd = os.open(marker + ".lock", os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            subprocess.Popen([sys.executable, "-m", "numgrad.precompile", "--helper", str(os.getpid()),
                              str(index), str(count)], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             pass_fds=(fd,))
        except OSError:
            pass  # a helper already has this share, or none could start
        finally:
            os.close(fd)


def install():
    """Route numgrad's kernel compilations through the locks (once, at import; compiles nothing)."""
    if fcntl is None or caching.FunctionCache.load_overload is _load_overload:
        return
    caching.FunctionCache.load_overload = _load_overload
    caching.FunctionCache.save_overload = _save_overload
    event.register("numba:compile", _ReleaseOnFailure())
