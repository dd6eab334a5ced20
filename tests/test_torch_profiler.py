"""numgrad.profiler, PyTorch's ``torch.profiler`` API: schedules step for step as PyTorch's,
windows handed to ``on_trace_ready``, TensorBoard trace files, and the tutorial recipe."""
import gzip
import json
import os
import subprocess
import sys

import pytest

import numgrad
from numgrad.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule, \
    tensorboard_trace_handler

SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=2),
             dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3), dict(wait=0, warmup=2, active=1),
             dict(wait=3, warmup=1, active=2, skip_first=1, skip_first_wait=1)]


@pytest.mark.parametrize("kwargs", SCHEDULES)
def test_schedule_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = schedule(**kwargs), torch.profiler.schedule(**kwargs)
    assert [ours(s).name for s in range(30)] == [theirs(s).name for s in range(30)]


def test_schedule_refuses_bad_arguments_and_warns_without_warmup():
    with pytest.raises(AssertionError):
        schedule(wait=1, warmup=1, active=0)
    with pytest.warns(UserWarning, match="warmup"):
        schedule(wait=1, warmup=0, active=1)


def _train(prof, steps, x):
    for _ in range(steps):
        with record_function("train_step"):
            (x * 2).sum().backward()
        prof.step()


def test_windows_go_to_on_trace_ready():
    x = numgrad.ones(3, requires_grad=True)
    windows = []

    def ready(prof):
        windows.append([e.name for e in prof.events() if e.name == "train_step"])

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=ready) as prof:
        _train(prof, 10, x)
    # Steps 2-3 and 6-7 are recorded, each window of two steps saved as it ends.
    assert windows == [["train_step"] * 2, ["train_step"] * 2]
    assert prof.step_num == 10 and prof.current_action is ProfilerAction.NONE


def test_without_schedule_everything_is_one_window():
    x = numgrad.ones(2, 2)
    with profile() as prof:
        numgrad.nn.functional.relu(x @ x)
    names = [e.key for e in prof.key_averages()]
    assert "aten::matmul" in names and "aten::relu" in names
    assert "aten::relu" in prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)


def test_a_window_open_at_stop_is_handed_on():
    windows = []
    prof = profile(schedule=schedule(wait=0, warmup=1, active=5), on_trace_ready=windows.append)
    prof.start()
    _train(prof, 3, numgrad.ones(2, requires_grad=True))
    prof.stop()
    assert windows == [prof]
    assert len([e for e in prof.events() if e.name == "train_step"]) == 2
    with pytest.raises(AssertionError):
        profile().events()


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler_writes_chrome_traces(tmp_path, use_gzip):
    handler = tensorboard_trace_handler(str(tmp_path / "log"), worker_name="worker0", use_gzip=use_gzip)
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as prof:
        _train(prof, 5, numgrad.ones(2, requires_grad=True))
    files = sorted(os.listdir(tmp_path / "log"))
    suffix = ".pt.trace.json.gz" if use_gzip else ".pt.trace.json"
    assert len(files) == 2 and all(f.startswith("worker0.") and f.endswith(suffix) for f in files)
    path = tmp_path / "log" / files[0]
    text = gzip.open(path, "rt").read() if use_gzip else path.read_text()
    assert any(e["name"] == "train_step" for e in json.loads(text)["traceEvents"])


RECIPE = """
import torch
import torch.nn as nn
from torch.profiler import profile, record_function, ProfilerActivity

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(36, 10),
                      nn.Dropout(0.1), nn.LogSoftmax(dim=1))
inputs, target = torch.randn(5, 3, 8, 8), torch.tensor([0, 1, 2, 3, 4])
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("model_inference"):
        loss = nn.functional.nll_loss(model(inputs), target)
    loss.backward()
table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
print("model_inference" in table)
step = [e for e in prof.events() if e.name == "model_inference"][0]
print([e.name for e in step.cpu_children])
"""


def test_the_recipe_prints_pytorchs_ops(tmp_path):
    # PyTorch's profiler recipe, unchanged: the model's layers appear as the same ops.
    pytest.importorskip("torch")
    script = tmp_path / "recipe.py"
    script.write_text(RECIPE)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    ours = subprocess.run([sys.executable, "-m", "numgrad.compat", str(script)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


def test_scheduled_steps_are_ranges_as_pytorchs():
    torch = pytest.importorskip("torch")

    def windows(lib, profiler_module):
        x, seen = lib.ones(3, requires_grad=True), []

        def ready(prof):
            seen.append(sorted({e.name for e in prof.events() if e.cpu_parent is None}))

        with profiler_module.profile(schedule=profiler_module.schedule(wait=1, warmup=1, active=2),
                                     on_trace_ready=ready) as prof:
            for _ in range(6):
                (x * 2).sum().backward()
                prof.step()
        return seen, [e.key for e in prof.key_averages()]

    assert windows(numgrad, numgrad.profiler) == windows(torch, torch.profiler)


def test_acc_events_keeps_every_window():
    x = numgrad.ones(3, requires_grad=True)
    for acc, steps in ((False, 2), (True, 4)):
        with profile(schedule=schedule(wait=0, warmup=1, active=2, repeat=2), acc_events=acc) as prof:
            _train(prof, 6, x)
        assert len([e for e in prof.events() if e.name == "train_step"]) == steps
