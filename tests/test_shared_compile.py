"""Kernels compiled once across processes (lock files), and the helpers that compile ahead."""
import os
import subprocess
import sys
import time

import numba
import pytest

from numgrad import precompile
from numgrad.backends import shared_compile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(shared_compile.fcntl is None, reason="no advisory file locks on this platform")

# Prints the numgrad kernels this process compiled (cache misses), one per line.
_COUNTING = """
import sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__ + str(ev.data["args"]))
event.register("numba:compile", Count())
import numgrad as ng
sys.stdin.readline()  # both processes start their work together
(ng.arange(6.0).reshape(2, 3).exp() * 3).sum(0)
print("\\n".join(c for c in compiled if "lambda" not in c))
"""


def _env(tmp_path, **extra):
    return dict(os.environ, PYTHONPATH=ROOT, NUMGRAD_CACHE_DIR=str(tmp_path / "numgrad"),
                NUMBA_CACHE_DIR=str(tmp_path / "numba"), **extra)


def test_two_processes_compile_each_kernel_once(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", _COUNTING], env=_env(tmp_path), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for _ in range(2)]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    compiled = [line for out, _ in outs for line in out.splitlines() if line]
    assert compiled, "the fresh cache compiled nothing"
    assert len(compiled) == len(set(compiled)), sorted(compiled)


def test_a_failed_compilation_releases_its_lock(monkeypatch):
    def bad(x):
        return x.no_such_attribute

    bad.__module__ = "numgrad.tests_fake"
    kernel = numba.njit(cache=True)(bad)
    with pytest.raises(numba.TypingError):
        kernel(1.0)
    assert not shared_compile._held


@pytest.fixture
def spawns(monkeypatch, tmp_path):
    """The helper command lines start_helpers would run (none runs), with a fresh cache and a
    process that has not considered helpers yet."""
    started = []
    monkeypatch.setenv("NUMGRAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NUMGRAD_PRECOMPILE", "1")
    monkeypatch.delenv(shared_compile.HELPER_ENV, raising=False)
    monkeypatch.setattr(shared_compile, "_helpers_considered", [False])
    monkeypatch.setattr(shared_compile.subprocess, "Popen", lambda cmd, **kw: started.append(cmd))
    return started


def test_helpers_start_once_per_process_and_skip_finished_shares(monkeypatch, spawns):
    monkeypatch.setattr(shared_compile, "_helper_count", lambda: 2)
    open(shared_compile.marker_path(0, 2), "w").close()
    shared_compile.start_helpers()
    shared_compile.start_helpers()
    assert [cmd[-3:] for cmd in spawns] == [[str(os.getpid()), "1", "2"]]
    assert spawns[0][1:4] == ["-m", "numgrad.precompile", "--helper"]


def test_no_second_helper_for_a_share_a_helper_holds(monkeypatch, spawns):
    monkeypatch.setattr(shared_compile, "_helper_count", lambda: 1)
    with open(shared_compile.marker_path(0, 1) + ".lock", "w") as held:
        shared_compile.fcntl.flock(held, shared_compile.fcntl.LOCK_EX)
        shared_compile.start_helpers()
    assert spawns == []


@pytest.mark.parametrize("setting", [("NUMGRAD_PRECOMPILE", "0"), (shared_compile.HELPER_ENV, "1")])
def test_no_helpers_when_switched_off_or_inside_a_helper(monkeypatch, spawns, setting):
    monkeypatch.setenv(*setting)
    shared_compile.start_helpers()
    assert spawns == []


def test_a_helper_marks_a_finished_share(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setenv("NUMGRAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(precompile, "STAGES", (lambda: ran.append("a"), lambda: ran.append("b"),
                                               lambda: ran.append("c")))
    monkeypatch.setattr(precompile.os, "nice", lambda n: 0)
    monkeypatch.setattr(precompile, "watch_parent", lambda parent: None)
    precompile._helper(os.getppid(), 1, 2)
    assert ran == ["b"]
    assert os.path.exists(shared_compile.marker_path(1, 2)) and not os.path.exists(shared_compile.marker_path(0, 2))


def test_a_helper_exits_when_its_program_does():
    exits = []
    precompile.watch_parent(os.getppid() + 1, exits.append, 0.0)  # not our parent: gone at once
    assert exits == [0]


def test_the_stages_run():
    # Every stage is ordinary numgrad code: it must keep running as the API evolves.
    precompile.run()


def test_command_line_help():
    out = subprocess.run([sys.executable, "-m", "numgrad.precompile", "--help"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT), check=True).stdout
    assert "python -m numgrad.precompile" in out and "--helper" not in out


@pytest.mark.skipif(shared_compile._helper_count() < 1, reason="one core: no helpers")
def test_a_first_run_starts_a_helper_that_ends_with_it(tmp_path):
    code = ("import fcntl, os, time\nimport numgrad as ng\nfrom numgrad.backends import shared_compile as sc\n"
            "ng.ones(3) * 2\n"  # the first compilation starts the helper
            "lock = open(sc.marker_path(0, sc._helper_count()) + '.lock')\n"
            "try:\n    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)\n    print('no helper')\n"
            "except OSError:\n    print('helper running')\n"
            "print(sc.marker_path(0, sc._helper_count()))\n")
    env = _env(tmp_path, NUMGRAD_PRECOMPILE="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    state, marker = out.stdout.split("\n")[:2]
    assert state == "helper running"
    with open(marker + ".lock") as lock:  # the helper lets go once its program has ended
        deadline = time.monotonic() + 30
        while True:
            try:
                shared_compile.fcntl.flock(lock, shared_compile.fcntl.LOCK_EX | shared_compile.fcntl.LOCK_NB)
                break
            except OSError:
                assert time.monotonic() < deadline, "the helper outlived its program"
                time.sleep(0.1)
