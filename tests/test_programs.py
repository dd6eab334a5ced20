"""Whole PyTorch programs (tests/programs/) print the same text under PyTorch and under
``python -m numgrad.compat``: the same lines, and numbers equal to a relative tolerance."""
import math
import os
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "tests", "programs")

# Program -> (seconds its two runs, side by side, take warm on 2 busy cores; relative tolerance).
# Every program matches PyTorch to the printed digit today; 1e-4 leaves room for matrix products
# that round differently in OpenBLAS and MKL without hiding a wrong formula. word_lm's learning
# rate is kept below the range where its training is chaotic: at lr=10, PyTorch run twice in
# float64, its decoder bias moved by 1e-13 the second time, parts in the third digit by epoch 5.
PROGRAMS_RUNTIME_RTOL = {
    "word_lm.py": (5, 1e-4),
    "text_classification.py": (6, 1e-4),
    "dcgan.py": (9, 1e-4),
    "vae.py": (6, 1e-4),
    "transformer_lm.py": (7, 1e-4),
    "seq2seq_attention.py": (10, 1e-4),
    "name_classifier.py": (6, 1e-4),
    "small_resnet.py": (7, 1e-4),
    "dp_sgd.py": (5, 1e-4),
}

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _env():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
               CUDA_VISIBLE_DEVICES="")
    # Both runs take the CPU branch of `torch.cuda.is_available()`, as on a machine without a GPU.
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return env


def _start(*args):
    return subprocess.Popen([sys.executable, *args], cwd=PROGRAMS, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(proc, timeout):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"{proc.args} ran past {timeout} s:\n{err[-3000:]}")
    assert proc.returncode == 0, f"{proc.args} failed:\n{err[-3000:]}"
    return out


def _last_digit(text):
    # One unit in the last printed place: two runs a rounding boundary apart print values that
    # differ by that much however close they were.
    mantissa, _, exponent = text.lower().partition("e")
    return 10.0 ** (int(exponent or 0) - len(mantissa.partition(".")[2]))


def assert_same_output(expected, actual, rtol):
    """Same lines with the numbers taken out; each number within ``rtol`` (or one printed unit)."""
    expected_lines, actual_lines = expected.splitlines(), actual.splitlines()
    assert len(actual_lines) == len(expected_lines), f"line count differs:\n{actual}\n--- PyTorch:\n{expected}"
    for want, got in zip(expected_lines, actual_lines):
        assert _NUMBER.sub("#", got) == _NUMBER.sub("#", want), f"\nnumgrad: {got}\nPyTorch: {want}"
        for w, g in zip(_NUMBER.findall(want), _NUMBER.findall(got)):
            a, b = float(w), float(g)
            slack = max(_last_digit(w), _last_digit(g))
            assert math.isclose(a, b, rel_tol=rtol, abs_tol=slack * 1.01), f"\nnumgrad: {got}\nPyTorch: {want}"


@pytest.mark.parametrize("program", sorted(PROGRAMS_RUNTIME_RTOL))
def test_program_prints_what_pytorch_prints(program):
    seconds, rtol = PROGRAMS_RUNTIME_RTOL[program]
    # The two runs overlap: PyTorch's import is slow, numgrad's first calls compile kernels.
    reference = _start(program)
    ours = _start("-m", "numgrad.compat", program)
    timeout = 60 + 20 * seconds
    expected = _finish(reference, timeout)
    actual = _finish(ours, timeout)
    assert expected.strip(), "the PyTorch run printed nothing"
    assert_same_output(expected, actual, rtol)


def test_output_comparison_catches_differences():
    assert_same_output("epoch 1 loss 0.50000\n", "epoch 1 loss 0.50001\n", 1e-4)
    assert_same_output("acc 0.12345\n", "acc 0.12346\n", 1e-6)  # one unit of the last digit
    with pytest.raises(AssertionError):
        assert_same_output("epoch 1 loss 0.50000\n", "epoch 1 loss 0.50100\n", 1e-4)
    with pytest.raises(AssertionError):
        assert_same_output("epoch 1 loss 0.5\n", "epoch 1 cost 0.5\n", 1e-4)
    with pytest.raises(AssertionError):
        assert_same_output("a 1\nb 2\n", "a 1\n", 1e-4)
