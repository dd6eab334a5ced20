"""Tutorial snippets (tests/tutorials/*.py) run with ``numgrad`` as ``torch`` and print what PyTorch
prints; the expected text (``*.out``) was captured from PyTorch by running this file as a script."""
import contextlib
import glob
import io
import os
import re
import sys

import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tutorials")
SNIPPETS = sorted(glob.glob(os.path.join(HERE, "*.py")))


def _as_numgrad(source: str) -> str:
    """Point the snippet's ``import torch`` lines at numgrad, keeping the names it binds."""
    source = re.sub(r"^(\s*)import torch as ", r"\1import numgrad as ", source, flags=re.M)
    source = re.sub(r"^(\s*)import torch\s*$", r"\1import numgrad as torch", source, flags=re.M)
    return re.sub(r"^(\s*)from torch(\.|\s)", r"\1from numgrad\2", source, flags=re.M)


def _normalize(text: str) -> str:
    # Object addresses differ run to run; the package name is the one intended difference.
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    return text.replace("numgrad", "torch")


def run_snippet(path: str, use_torch: bool = False) -> str:
    """Execute one snippet file and return what it printed."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if not use_torch:
        source = _as_numgrad(source)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, path, "exec"), {"__name__": "__main__"})
    return _normalize(out.getvalue())


def _expected_path(path: str) -> str:
    return os.path.splitext(path)[0] + ".out"


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: os.path.splitext(os.path.basename(p))[0])
def test_snippet_prints_what_pytorch_prints(path):
    with open(_expected_path(path), encoding="utf-8") as f:
        expected = f.read()
    assert run_snippet(path).splitlines() == expected.splitlines()


if __name__ == "__main__":
    # Regenerate the expected outputs with real PyTorch: python tests/test_tutorials.py [names]
    wanted = sys.argv[1:]
    for snippet in SNIPPETS:
        if wanted and os.path.splitext(os.path.basename(snippet))[0] not in wanted:
            continue
        with open(_expected_path(snippet), "w", encoding="utf-8") as f:
            f.write(run_snippet(snippet, use_torch=True))
