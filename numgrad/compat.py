"""Run programs written for PyTorch on numgrad, unchanged.

From the command line, in place of ``python script.py arg1 arg2``::

    python -m numgrad.compat script.py arg1 arg2
    python -m numgrad.compat -m package.module arg1

From Python, before the first ``import torch``::

    import numgrad.compat
    numgrad.compat.install()
    import torch            # numgrad
    import torch.nn as nn   # numgrad.nn

Each ``torch`` module name resolves to numgrad's module of the same path (``torch.nn.functional``
is ``numgrad.nn.functional``, ``torch.utils.data`` is ``numgrad.utils.data``): the names are
aliases of the same module objects, not copies. A torch module numgrad does not have raises
ModuleNotFoundError naming it. The script runs as ``__main__`` with ``sys.argv`` and
``sys.path[0]`` as if it had been started directly, and its exit status is the process's.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

from . import names

__all__ = ["install", "uninstall", "main"]

_TORCH = "torch"
_PACKAGE = __package__ or __name__.rpartition(".")[0]


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system an already imported numgrad module under a torch name."""

    def __init__(self, module):
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # The import system stamped the torch spec on the module: the module keeps its own.
        module.__spec__ = self.spec


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """A ``sys.meta_path`` finder resolving ``torch`` and ``torch.*`` to numgrad's modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _TORCH and not fullname.startswith(_TORCH + "."):
            return None
        target_name = _PACKAGE + fullname[len(_TORCH):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as exc:
            # Only a missing numgrad counterpart is reported as missing; an import failing
            # inside an existing numgrad module propagates as it is.
            if exc.name is None or not (target_name == exc.name or target_name.startswith(exc.name + ".")):
                raise
            raise ModuleNotFoundError(f"No module named '{fullname}': numgrad does not provide '{fullname}' "
                                      f"(numgrad.compat resolves torch modules to numgrad's, and "
                                      f"'{target_name}' does not exist)", name=fullname) from None
        if not hasattr(module, "__path__"):
            # A plain module with submodules hung under it (numgrad.cuda.amp): the import system
            # finds ``torch.cuda.amp`` only in sys.modules, as it searches no plain module.
            prefix = target_name + "."
            for name in [n for n in sys.modules if n.startswith(prefix)]:
                sys.modules.setdefault(fullname + name[len(target_name):], sys.modules[name])
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


_finder = TorchAliasFinder()


def install() -> None:
    """Makes ``import torch`` (and every ``torch.*`` module numgrad has) import numgrad.

    RuntimeError if PyTorch itself was already imported in this process."""
    loaded = sys.modules.get(_TORCH)
    if loaded is not None and not loaded.__name__.startswith(_PACKAGE):
        raise RuntimeError("numgrad.compat.install() must run before 'import torch': PyTorch is already "
                           "imported in this process")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    names.set_package(_TORCH)


def uninstall() -> None:
    """Undoes :func:`install`: forgets the ``torch`` aliases and removes the finder."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    names.set_package(_PACKAGE)
    for name in [n for n in sys.modules if n == _TORCH or n.startswith(_TORCH + ".")]:
        if sys.modules[name].__name__.startswith(_PACKAGE):
            del sys.modules[name]


_USAGE = "usage: python -m numgrad.compat script.py [args ...]\n       python -m numgrad.compat -m module [args ...]"


def main(argv=None) -> int:
    """Runs ``argv`` (``[script, *args]`` or ``['-m', module, *args]``) with ``torch`` as numgrad."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print(_USAGE, file=sys.stderr if not argv or argv[0] == "-m" else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    install()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.exists(script):
        print(f"{sys.executable}: can't open file {script!r}: [Errno 2] No such file or directory", file=sys.stderr)
        return 2
    sys.argv = argv
    # As `python script.py` does: the script's folder first on the path, not the current one.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
