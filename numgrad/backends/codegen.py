"""Kernel source generation with an on-disk cache.

Kernels are written out as real Python modules under the cache directory and imported from
there, so that Numba's ``cache=True`` can store their machine code next to them: a second
process loads compiled kernels instead of compiling them again. A module's file name carries a
hash of its source and of the files declaring the ops it calls, so an edited op never loads a
stale kernel.
"""
from __future__ import annotations

import dis
import hashlib
import importlib.util
import os
import sys
import tempfile

import numba

_modules: dict = {}
_file_hashes: dict = {}


def cache_dir() -> str:
    """Where generated kernels live: $NUMGRAD_CACHE_DIR, else ~/.cache/numgrad."""
    root = os.environ.get("NUMGRAD_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "numgrad")
    path = os.path.join(root, f"kernels-numba{numba.__version__}-py{sys.version_info[0]}{sys.version_info[1]}")
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    path = os.path.join(tempfile.gettempdir(), f"numgrad-kernels-{os.getuid() if hasattr(os, 'getuid') else 0}")
    os.makedirs(path, exist_ok=True)
    return path


def file_hash(path: str) -> str:
    """SHA-1 of a file's content (memoized per process)."""
    h = _file_hashes.get(path)
    if h is None:
        with open(path, "rb") as f:
            h = _file_hashes[path] = hashlib.sha1(f.read()).hexdigest()
    return h


PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source_files(fn) -> tuple:
    """The package's files holding ``fn`` and, transitively, the functions and modules it reads
    as globals: the sources a kernel that inlines ``fn`` depends on."""
    files, seen, todo = set(), set(), [fn]
    while todo:
        f = todo.pop()
        f = getattr(f, "py_func", f)  # a Numba dispatcher: its Python function
        path = getattr(getattr(f, "__code__", None), "co_filename", None) or getattr(f, "__file__", None)
        if path is None or id(f) in seen or not path.startswith(PACKAGE):
            continue
        seen.add(id(f))
        files.add(path)
        if not hasattr(f, "__code__"):
            continue  # a module: its file covers what the kernel takes from it
        scope = f.__globals__
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            todo.extend(scope[i.argval] for i in dis.get_instructions(code)
                        if i.opname == "LOAD_GLOBAL" and i.argval in scope)
            codes.extend(k for k in code.co_consts if hasattr(k, "co_code"))
    return tuple(sorted(files))


def load_module(stem: str, source: str, depends_on: tuple = ()):
    """Import the generated module ``source``, writing it to the cache directory first if needed.

    ``depends_on`` lists the source files whose content the kernels inline (op declarations):
    their hashes go into the module name.
    """
    h = hashlib.sha1(source.encode())
    for path in depends_on:
        h.update(file_hash(path).encode())
    name = f"{stem}_{h.hexdigest()[:16]}"
    mod = _modules.get(name)
    if mod is not None:
        return mod
    directory = cache_dir()
    path = os.path.join(directory, name + ".py")
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)  # atomic: concurrent processes write identical files
    modname = "_numgrad_kernel_" + name
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    # Numba's cache re-imports the module by name when it loads compiled code.
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    _modules[name] = mod
    return mod
