"""The model examples (character LSTM, tiny GPT, VAE) train with short settings: their loss
falls, and they write their PNG files."""
import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _load(name, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _falls(losses, tail=5):
    return sum(losses[-tail:]) / tail < 0.8 * sum(losses[:tail]) / tail


@pytest.mark.parametrize("name,printed", [("char_lstm", "step   40/40"), ("tiny_gpt", "parameters")])
def test_language_models(name, printed, tmp_path, monkeypatch, capsys):
    png = tmp_path / "loss.png"
    losses = _load(name, monkeypatch).main(["--steps", "40", "--batch", "16", "--block", "32", "--png", str(png)])
    assert _falls(losses)
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert printed in capsys.readouterr().out


def test_vae(tmp_path, monkeypatch):
    samples, curve = tmp_path / "samples.png", tmp_path / "loss.png"
    losses = _load("vae", monkeypatch).main(["--epochs", "3", "--samples", "512", "--png", str(samples),
                                             "--loss-png", str(curve)])
    assert losses[-1] < losses[0]
    assert samples.read_bytes().startswith(PNG_SIGNATURE) and curve.read_bytes().startswith(PNG_SIGNATURE)
