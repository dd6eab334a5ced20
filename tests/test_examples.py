"""The runnable examples run, and the quick start prints exactly what PyTorch prints."""
import os
import runpy

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
QUICKSTART = os.path.join(EXAMPLES, "quickstart.py")


def test_quickstart_runs(capsys):
    runpy.run_path(QUICKSTART, run_name="__main__")
    out = capsys.readouterr().out
    assert "tensor([[0, 0, 0]," in out
    assert "numgrad.Size([5, 3])" in out


def test_quickstart_prints_what_pytorch_prints(capsys):
    pytest.importorskip("torch")
    runpy.run_path(QUICKSTART, run_name="__main__")
    ours = capsys.readouterr().out
    with open(QUICKSTART) as f:
        source = f.read().replace("import numgrad as torch", "import torch")
    exec(compile(source, QUICKSTART, "exec"), {"__name__": "__main__"})
    theirs = capsys.readouterr().out
    assert ours.replace("numgrad", "torch").splitlines() == theirs.splitlines()
