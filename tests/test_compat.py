"""``python -m numgrad.compat``: PyTorch programs run unchanged, with ``torch`` resolved to numgrad."""
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PROGRAM = textwrap.dedent('''
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.cuda.amp import GradScaler
    import torch.backends.cudnn as cudnn
    import helper_module

    def main():
        assert __name__ == "__main__"
        print("argv", sys.argv)
        print("path0", sys.path[0])
        print("helper", helper_module.VALUE)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        cudnn.benchmark = True
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        data = TensorDataset(torch.linspace(-1, 1, 12).reshape(4, 3), torch.ones(4, 1))
        for x, y in DataLoader(data, batch_size=2):
            loss = F.mse_loss(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("loss", f"{loss.item():.6f}")
        print("module", torch.__name__, nn.Linear.__module__)
        sys.exit(int(sys.argv[2]))

    if __name__ == "__main__":
        main()
''')


def _run(args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "numgrad.compat", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _loss_from_pytorch(program_dir):
    # The same program under PyTorch itself.
    env = dict(os.environ, PYTHONPATH=str(program_dir))
    r = subprocess.run([sys.executable, str(program_dir / "train.py"), "x", "0"], env=env,
                       capture_output=True, text=True, timeout=300)
    return [line for line in r.stdout.splitlines() if line.startswith("loss")][0]


def test_a_pytorch_program_runs_unchanged(tmp_path):
    program_dir = tmp_path / "prog"
    program_dir.mkdir()
    (program_dir / "train.py").write_text(_PROGRAM)
    (program_dir / "helper_module.py").write_text("VALUE = 42\n")
    r = _run([str(program_dir / "train.py"), "first", "3"], cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    lines = r.stdout.splitlines()
    assert f"argv {[str(program_dir / 'train.py'), 'first', '3']}" in lines
    assert f"path0 {program_dir}" in lines
    assert "helper 42" in lines
    assert "module numgrad numgrad.nn.modules.linear" in lines
    assert _loss_from_pytorch(program_dir) in lines


def test_exit_status_and_tracebacks_propagate(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import torch\nraise ValueError('boom from the script')\n")
    r = _run([str(script)], cwd=tmp_path)
    assert r.returncode == 1 and "ValueError: boom from the script" in r.stderr
    script.write_text("import torch\nprint(torch.ones(2).sum().item())\n")
    r = _run([str(script)], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "2.0"


def test_missing_torch_submodule_is_a_clear_import_error(tmp_path):
    script = tmp_path / "missing.py"
    script.write_text(textwrap.dedent('''
        try:
            import torch.distributed.fsdp
        except ModuleNotFoundError as exc:
            print("name", exc.name)
            print("message", exc)
        from torch.cuda.amp import autocast
        import torch.nn.functional
        print("still fine", torch.nn.functional.relu(torch.tensor([-1.0, 2.0])).tolist())
    '''))
    r = _run([str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "name torch.distributed.fsdp" in r.stdout
    assert "numgrad does not provide 'torch.distributed.fsdp'" in r.stdout
    assert "still fine [0.0, 2.0]" in r.stdout


def test_run_a_module_and_usage(tmp_path):
    (tmp_path / "pkgmod.py").write_text("import sys, torch\nprint(__name__, sys.argv[1:], torch.__name__)\n")
    r = _run(["-m", "pkgmod", "a"], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.split() == ["__main__", "['a']", "numgrad"], r.stderr
    r = _run([], cwd=tmp_path)
    assert r.returncode == 2 and "usage" in r.stderr
    r = _run([str(tmp_path / "absent.py")], cwd=tmp_path)
    assert r.returncode == 2 and "can't open file" in r.stderr


def test_install_from_python(tmp_path):
    code = textwrap.dedent('''
        import sys
        import numgrad, numgrad.compat
        numgrad.compat.install()
        import torch, torch.nn, torch.optim, torch.amp, torch.linalg, torch.special, torch.backends.mps
        assert torch is numgrad and torch.nn is numgrad.nn and torch.optim is numgrad.optim
        assert torch.nn.__spec__.name == "numgrad.nn"
        numgrad.compat.uninstall()
        assert "torch" not in sys.modules
        print("ok")
    ''')
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_install_refuses_once_pytorch_is_imported():
    import numgrad.compat
    with pytest.raises(RuntimeError, match="already imported"):
        numgrad.compat.install()


def test_type_names_print_as_pytorch_prints_them(tmp_path):
    script = tmp_path / "shapes.py"
    script.write_text(textwrap.dedent('''
        import torch
        x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
        print(x.shape, x.dtype, torch.strided)
        print(x)
        print(x.max(dim=1))
    '''))
    ours = subprocess.run([sys.executable, "-m", "numgrad.compat", str(script)], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    assert ours == theirs
