"""numgrad.distributed, DistributedDataParallel and DistributedSampler. Multi-process checks run
the scripts in tests/distributed_scripts under mpiexec; DistributedSampler's orders are
compared with PyTorch's without MPI."""
import os
import signal
import re
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest

import numgrad
import numgrad.distributed as dist
from numgrad.distributed import run as launcher
from numgrad.utils.data.distributed import DistributedSampler

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent / "distributed_scripts"
TIMEOUT = 180

needs_mpi = pytest.mark.skipif(
    not dist.is_available() or launcher.find_mpiexec() is None,
    reason="multi-process tests need mpi4py and mpiexec (pip install 'numgrad[distributed]')")


def _env():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMGRAD_DISTRIBUTED_DEBUG", None)
    return env


def mpirun(n, *argv):
    """Run a Python program under ``mpiexec -n n``; a hang fails after TIMEOUT seconds."""
    cmd = [launcher.find_mpiexec(), "-n", str(n), sys.executable, *map(str, argv)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT, env=_env())


def _ok(result, n):
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"all ok on {n} ranks" in result.stdout, result.stdout + result.stderr


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_collectives(n):
    _ok(mpirun(n, SCRIPTS / "collectives.py"), n)


@needs_mpi
def test_ddp_matches_one_process():
    _ok(mpirun(2, SCRIPTS / "ddp.py"), 2)


@needs_mpi
def test_launcher_runs_torch_scripts_and_returns_the_failing_rank_status():
    cmd = [sys.executable, "-m", "numgrad.distributed.run", "--nproc-per-node", "2", "-m", "numgrad.compat",
           str(SCRIPTS / "torch_names.py"), "7"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT, env=_env())
    assert r.returncode == 7, r.stdout + r.stderr
    assert sorted(re.findall(r"torch names \d \[3.0, 3.0, 3.0\]", r.stdout)) == \
        ["torch names 0 [3.0, 3.0, 3.0]", "torch names 1 [3.0, 3.0, 3.0]"], r.stdout + r.stderr


@needs_mpi
def test_example_trains():
    r = mpirun(2, ROOT / "examples" / "ddp_train.py", "--epochs", "2", "--samples", "512")
    assert r.returncode == 0, r.stdout + r.stderr
    losses = [float(line.split("loss ")[1].split()[0]) for line in r.stdout.splitlines() if "loss" in line]
    assert len(losses) == 2 and losses[1] < losses[0], r.stdout


def test_launcher_says_what_is_missing(monkeypatch, capsys):
    monkeypatch.setattr(launcher, "find_mpiexec", lambda: None)
    assert launcher.main(["--nproc-per-node", "2", "script.py"]) == 1
    assert "mpiexec was not found" in capsys.readouterr().err
    monkeypatch.setattr(launcher, "find_mpiexec", lambda: "/bin/true")
    monkeypatch.setattr(launcher, "mpi_available", lambda: False)
    assert launcher.main(["--nproc-per-node", "2", "script.py"]) == 1
    assert "mpi4py" in capsys.readouterr().err
    cmd = launcher.command("mpiexec", 2, ["train.py", "--lr", "1"])
    assert cmd.count(":") == 1 and cmd.count("train.py") == 2
    second = cmd[cmd.index(":") + 1:]
    at = second.index("RANK")
    assert second[at - 1:at + 2] == ["-env", "RANK", "1"]


def test_errors_before_init_match_pytorch():
    message = "Default process group has not been initialized, please make sure to call init_process_group."
    calls = [lambda lib: lib.distributed.get_rank(), lambda lib: lib.distributed.get_world_size(),
             lambda lib: lib.distributed.all_reduce(lib.ones(2)), lambda lib: lib.distributed.barrier(),
             lambda lib: lib.distributed.broadcast(lib.ones(2), src=0),
             lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2)),
             lambda lib: DistributedSampler(range(4)) if lib is numgrad
             else torch.utils.data.distributed.DistributedSampler(range(4))]
    for call in calls:
        for lib in (numgrad, torch):
            with pytest.raises(ValueError, match=message):
                call(lib)
    assert not dist.is_initialized()
    for backend in ("nccl", "cpu:gloo,cuda:nccl"):
        with pytest.raises(ValueError, match="runs on MPI"):
            dist.init_process_group(backend)
    ops = ("SUM", "AVG", "PRODUCT", "MIN", "MAX")
    assert [getattr(dist.ReduceOp, k) for k in ops] == [getattr(torch.distributed.ReduceOp, k).value for k in ops]
    assert dist.Backend("MPI") == "mpi" and dist.group.WORLD is None


def test_import_needs_no_mpi4py():
    code = "import sys, numgrad, numgrad.distributed, numgrad.nn.parallel; print('mpi4py' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, env=_env())
    assert r.stdout.strip() == "False", r.stderr


@pytest.mark.parametrize("n, replicas, shuffle, drop_last", [
    (10, 3, True, False), (10, 3, True, True), (11, 4, False, False), (11, 4, False, True), (3, 5, True, False),
    (0, 2, True, True), (17, 1, True, False)])
def test_distributed_sampler_matches_pytorch(n, replicas, shuffle, drop_last):
    for epoch in (0, 4):
        for rank in range(replicas):
            ours = DistributedSampler(range(n), replicas, rank, shuffle=shuffle, seed=11, drop_last=drop_last)
            theirs = torch.utils.data.distributed.DistributedSampler(range(n), replicas, rank, shuffle=shuffle,
                                                                      seed=11, drop_last=drop_last)
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_rank_out_of_range():
    for lib_sampler in (DistributedSampler, torch.utils.data.distributed.DistributedSampler):
        with pytest.raises(ValueError, match="Invalid rank 3"):
            lib_sampler(range(4), num_replicas=3, rank=3)


@needs_mpi
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_launcher_passes_signals_on(signum):
    cmd = [sys.executable, "-m", "numgrad.distributed.run", "--nproc-per-node", "2", str(SCRIPTS / "sleeper.py")]
    errors = tempfile.TemporaryFile("w+")
    job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=ROOT, env=_env())
    try:
        started = 0
        while started < 2:
            line = job.stdout.readline()
            if not line:
                errors.seek(0)
                raise AssertionError(f"the job ended before starting: {errors.read()[-2000:]}")
            # The launcher's stdout carries both ranks' writes, which may share one line.
            started += line.count("started")
        job.send_signal(signum)
        assert job.wait(timeout=60) != 0
    finally:
        if job.poll() is None:
            job.kill()
