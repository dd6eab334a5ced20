"""The examples' plotting code runs without matplotlib: a stand-in module records the calls and
writes the file ``savefig`` is asked for."""
import importlib.util
import pathlib
import sys
import types

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def fake_pyplot(monkeypatch):
    """Install ``matplotlib`` and ``matplotlib.pyplot`` stand-ins; yields the list of calls."""
    calls = []

    def recorder(name):
        def record(*args, **kwargs):
            calls.append((name, args, kwargs))
        return record

    def savefig(path, *args, **kwargs):
        calls.append(("savefig", (path,) + args, kwargs))
        pathlib.Path(path).write_bytes(PNG_SIGNATURE)

    pyplot = types.ModuleType("matplotlib.pyplot")
    for name in ("plot", "scatter", "xlim", "ylim", "legend", "close"):
        setattr(pyplot, name, recorder(name))
    pyplot.savefig = savefig
    matplotlib = types.ModuleType("matplotlib")
    matplotlib.use = recorder("use")
    matplotlib.pyplot = pyplot
    monkeypatch.setitem(sys.modules, "matplotlib", matplotlib)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    return calls


def _named(calls, name):
    return [c for c in calls if c[0] == name]


def test_linear_regression_saves_a_plot(fake_pyplot, capsys, tmp_path):
    png = tmp_path / "fit.png"
    _load("linear_regression").main(["--steps", "20", "--png", str(png)])
    assert f"plot saved to {png}" in capsys.readouterr().out
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert _named(fake_pyplot, "use") == [("use", ("Agg",), {})]
    (_, (x, y), kwargs), = _named(fake_pyplot, "scatter")
    assert isinstance(x, np.ndarray) and x.shape == y.shape == (64,) and kwargs["label"] == "data"
    lines = _named(fake_pyplot, "plot")
    assert [kw["label"] for _, _, kw in lines] == ["by hand", "autograd", "optim.SGD"]
    for _, (gx, gy), _ in lines:
        assert gx.shape == gy.shape == (6,) and np.isfinite(gy).all()
    assert [c[0] for c in fake_pyplot[-2:]] == ["savefig", "close"]


def test_sin_gradient_saves_a_plot(fake_pyplot, capsys, tmp_path):
    png = tmp_path / "sin.png"
    a, error = _load("sin_gradient").main(["--png", str(png)])
    assert f"plot saved to {png}" in capsys.readouterr().out
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    (_, (x, sin), kw_sin), (_, (x2, grad), kw_grad) = _named(fake_pyplot, "plot")
    np.testing.assert_allclose(sin, np.sin(x), atol=1e-6)
    np.testing.assert_allclose(grad, 2 * np.cos(x2), atol=1e-6)
    assert kw_sin["label"] == "sin(a)" and kw_grad["label"].startswith("d/da")
    assert [c[0] for c in fake_pyplot[-3:]] == ["legend", "savefig", "close"]


def test_without_matplotlib_nothing_is_saved(monkeypatch, capsys, tmp_path):
    # A None entry in sys.modules makes the import raise ImportError.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    png = tmp_path / "sin.png"
    _load("sin_gradient").main(["--png", str(png)])
    assert "matplotlib is not installed" in capsys.readouterr().out
    assert not png.exists()
