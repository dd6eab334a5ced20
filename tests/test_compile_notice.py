"""The terminal line that says kernels are compiling on a first run."""
import io
import os
import subprocess
import sys

from numgrad.backends import compile_notice


class _Event:
    pass


def _compile(notice, seconds, clock):
    notice.on_start(_Event())
    clock[0] += seconds
    notice.on_end(_Event())


def test_silent_under_a_second_then_announces_and_sums_up(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(compile_notice.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(compile_notice.threading, "Timer", _NoTimer)
    stream = io.StringIO()
    notice = compile_notice.CompileNotice(stream)
    _compile(notice, 0.4, clock)
    _compile(notice, 0.4, clock)
    assert stream.getvalue() == ""
    _compile(notice, 0.4, clock)
    assert "compiling kernels for their first use" in stream.getvalue()
    for _ in range(20):
        _compile(notice, 0.4, clock)
    assert "kernels compiled so far" in stream.getvalue()
    notice.summary()
    assert stream.getvalue().splitlines()[-1] == "numgrad: compiled 23 kernels in 9.2 s"


def test_nested_compilations_count_once(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(compile_notice.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(compile_notice.threading, "Timer", _NoTimer)
    notice = compile_notice.CompileNotice(io.StringIO())
    notice.on_start(_Event())
    _compile(notice, 0.5, clock)
    clock[0] += 0.25
    notice.on_end(_Event())
    assert notice.count == 1 and notice.seconds == 0.75


def test_a_long_single_compilation_is_announced_while_it_runs():
    stream = io.StringIO()
    notice = compile_notice.CompileNotice(stream)
    notice._announce()
    assert "compiling kernels" in stream.getvalue()


def test_only_terminals_see_it_unless_asked(monkeypatch):
    monkeypatch.delenv("NUMGRAD_COMPILE_NOTICE", raising=False)
    assert compile_notice.install(io.StringIO()) is None
    monkeypatch.setenv("NUMGRAD_COMPILE_NOTICE", "0")
    assert not compile_notice._wanted(_Tty())
    monkeypatch.setenv("NUMGRAD_COMPILE_NOTICE", "1")
    assert compile_notice._wanted(io.StringIO())


def test_a_first_run_with_an_empty_cache_says_it_compiles(tmp_path):
    env = dict(os.environ, NUMGRAD_COMPILE_NOTICE="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               NUMGRAD_CACHE_DIR=str(tmp_path / "numgrad"))
    code = ("import numgrad\nfrom numgrad.backends import compile_notice\ncompile_notice._FIRST_AFTER_S = 0.0\n"
            "x = numgrad.ones(3, requires_grad=True)\n(x * 2).sum().backward()\n")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "numgrad: compiled" in run.stderr.splitlines()[-1]
    assert run.stdout == ""


class _NoTimer:
    def __init__(self, *args):
        pass

    def start(self):
        pass

    def cancel(self):
        pass


class _Tty(io.StringIO):
    def isatty(self):
        return True
