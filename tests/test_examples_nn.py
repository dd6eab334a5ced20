"""The tutorial examples run (with fast settings) and print the tutorials' key numbers."""
import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_autograd_tour(capsys):
    _load("autograd_tour").main()
    out = capsys.readouterr().out
    assert "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])" in out
    assert "tensor([2.0000, 0.2000, 0.0200, 0.0020])" in out
    assert "tensor(2., grad_fn=<AddBackward0>) True" in out
    assert "tensor([100.], requires_grad=True)" in out
    assert "((<MulBackward0 object at" in out and "AccumulateGrad" in out
    assert "dy/dx = 12.0  d2y/dx2 = 12.0" in out
    assert "[0., 3.]]))" in out


def test_linear_regression(capsys, tmp_path):
    fits = _load("linear_regression").main(["--steps", "200", "--png", str(tmp_path / "fit.png")])
    out = capsys.readouterr().out
    for name in ("by hand", "autograd", "optim.SGD"):
        assert name in out
        w, b = fits[name]
        assert w.item() == pytest.approx(2.0, abs=0.4) and b.item() == pytest.approx(3.0, abs=0.8)
    assert "plot saved" in out or "matplotlib is not installed" in out


def test_sin_gradient(capsys, tmp_path):
    a, error = _load("sin_gradient").main(["--png", str(tmp_path / "sin.png")])
    out = capsys.readouterr().out
    assert error < 1e-6
    assert "tensor(25." in out and "grad_fn=<SumBackward0>" in out
    assert "grad_fn=<SinBackward0>" in out


def test_train_mlp_reaches_its_target(capsys):
    mod = _load("train_mlp")
    history = mod.main(["--epochs", "2", "--samples", "1500"])
    out = capsys.readouterr().out
    assert "test accuracy" in out and "[====" in out
    assert history[-1][1] >= mod.TARGET_ACCURACY
    assert history[-1][0] < history[0][0]


def test_profile_ops(capsys, tmp_path):
    trace = tmp_path / "trace.json"
    _load("profile_ops").main(["--iters", "20", "--trace", str(trace)])
    out = capsys.readouterr().out
    assert "Self CPU %" in out and "# of Calls" in out
    assert "aten::div" in out and "aten::mul" in out
    assert "Self CPU time total:" in out and trace.exists()
