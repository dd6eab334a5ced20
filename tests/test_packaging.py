"""The built wheel and sdist hold the whole library and nothing else, and each installs into a
fresh virtual environment, away from the source tree, where tests/install/smoke.py runs.

Building and installing use the package index (or pip's cache) for setuptools, NumPy and Numba.
"""
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "tests", "install", "smoke.py")
pytest.importorskip("build", reason="building the wheel and sdist needs the 'build' package")


def _library_files() -> set:
    """Every module of the package, as a path relative to the root."""
    found = set()
    for folder, dirs, files in os.walk(os.path.join(ROOT, "numgrad")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                found.add(os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/"))
    return found


def _run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    # Build from a copy holding only what a clone holds, so nothing made by a local install
    # (the venv, egg-info, caches) can leak into the artifacts.
    src = tmp_path_factory.mktemp("src") / "numgrad-src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", ".asv", "build",
        "dist"))
    out = tmp_path_factory.mktemp("dist")
    # --sdist --wheel builds the wheel from the unpacked sdist: a file missing from the sdist
    # shows up as a broken wheel too.
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(src)])
    wheel, = out.glob("numgrad-*.whl")
    sdist, = out.glob("numgrad-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def test_wheel_holds_the_library_and_nothing_else(artifacts):
    names = zipfile.ZipFile(artifacts["wheel"]).namelist()
    library = {n for n in names if n.startswith("numgrad/")}
    assert library == _library_files()
    others = [n for n in names if not n.startswith(("numgrad/", "numgrad-"))]
    assert others == []


def test_sdist_holds_the_library_and_no_tests(artifacts):
    with tarfile.open(artifacts["sdist"]) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    assert _library_files() <= set(names)
    assert not [n for n in names if n.startswith(("tests/", ".venv", "asv_bench/"))]


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installs_into_a_fresh_venv_and_runs(artifacts, kind, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    python = str(env_dir / "bin" / "python")
    _run([python, "-m", "pip", "install", "--quiet", str(artifacts[kind])])
    # Run from an empty folder with a copy of the program: neither the source tree nor the
    # program's own folder is on sys.path.
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(SMOKE, work / "smoke.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    out = _run([python, "smoke.py"], cwd=work, env=env)
    assert out.splitlines()[-1] == "smoke ok"
    assert f"from {env_dir}" in out
