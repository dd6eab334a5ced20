"""Launch a data-parallel job on this machine, as ``torchrun``:

    python -m numgrad.distributed.run --nproc-per-node N script.py [args...]
    python -m numgrad.distributed.run --nproc-per-node N -m package.module [args...]

runs N copies under ``mpiexec`` with this Python, each with RANK, LOCAL_RANK, WORLD_SIZE and
LOCAL_WORLD_SIZE set; SIGINT and SIGTERM are passed on to the job, and the exit status is the
failing rank's (0 when all succeed)."""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys

from ._mpi import _MISSING, mpi_available

__all__ = ["main", "find_mpiexec", "command"]


def find_mpiexec():
    """The mpiexec beside this Python (a virtual environment's), else the first on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("mpiexec")


def _is_open_mpi(mpiexec) -> bool:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in out or "OpenRTE" in out


def command(mpiexec, nproc: int, program, open_mpi: bool = False):
    """The mpiexec command line starting ``program`` (a Python argument list) ``nproc`` times."""
    python = [sys.executable, "-u"] + list(program)
    shared = {"WORLD_SIZE": nproc, "LOCAL_WORLD_SIZE": nproc, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": 29500}
    if open_mpi:
        # Open MPI gives ranks OMPI_COMM_WORLD_RANK itself; its -x sets one value for all.
        env = [a for k, v in shared.items() for a in ("-x", f"{k}={v}")]
        return [mpiexec, "-n", str(nproc)] + env + python
    cmd = [mpiexec]
    for rank in range(nproc):
        if rank:
            cmd.append(":")
        per_rank = dict(shared, RANK=rank, LOCAL_RANK=rank, GROUP_RANK=0)
        cmd += ["-n", "1"] + [a for k, v in per_rank.items() for a in ("-env", k, str(v))] + python
    return cmd


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m numgrad.distributed.run",
                                     description="Run a script in N processes joined by MPI.")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc", default="1",
                        help="number of processes (an integer, or 'auto' for one per CPU core)")
    parser.add_argument("--nnodes", default="1", help="only 1: numgrad launches on this machine")
    parser.add_argument("-m", "--module", action="store_true", help="run the target as a module, as python -m")
    parser.add_argument("--no-python", "--no_python", dest="no_python", action="store_true",
                        help="run the target as an executable, not a Python script")
    parser.add_argument("target", help="the script (or module) to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    ns = parser.parse_args(argv)
    if str(ns.nnodes) not in ("1", "1:1"):
        parser.error("--nnodes: numgrad.distributed.run starts processes on this machine only; for several "
                     "machines use mpiexec with a host file")
    if ns.nproc == "auto":
        ns.nproc = os.cpu_count() or 1
    try:
        ns.nproc = int(ns.nproc)
    except ValueError:
        parser.error(f"--nproc-per-node must be an integer or 'auto', got {ns.nproc!r}")
    if ns.nproc < 1:
        parser.error("--nproc-per-node must be at least 1")
    return ns


def main(argv=None) -> int:
    """Run the launcher; returns the job's exit status."""
    ns = _parse(sys.argv[1:] if argv is None else argv)
    mpiexec = find_mpiexec()
    if mpiexec is None:
        print("numgrad.distributed.run: mpiexec was not found beside this Python nor on PATH: install MPI "
              "(pip install mpich, or your system's MPICH or Open MPI)", file=sys.stderr)
        return 1
    if not mpi_available():
        print(f"numgrad.distributed.run: {_MISSING}", file=sys.stderr)
        return 1
    program = ([ns.target] if ns.no_python else (["-m", ns.target] if ns.module else [ns.target])) + ns.args
    cmd = command(mpiexec, ns.nproc, program, _is_open_mpi(mpiexec))
    if ns.no_python:
        cmd = [a for a in cmd if a not in (sys.executable, "-u")]
    job = subprocess.Popen(cmd)

    def pass_on(signum, frame):
        job.send_signal(signum)
    previous = {s: signal.signal(s, pass_on) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            try:
                code = job.wait()
                break
            except KeyboardInterrupt:
                job.send_signal(signal.SIGINT)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    # A rank killed by a signal shows as a negative status; a shell reports it as 128 + n.
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
