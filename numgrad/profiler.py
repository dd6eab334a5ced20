"""numgrad.profiler: PyTorch's profiler API (``torch.profiler``) over the autograd profiler.

``profile`` records the same events as :class:`numgrad.autograd.profiler.profile` (every op as
PyTorch names it, backward nodes, :class:`record_function` ranges), in the windows a
:func:`schedule` picks from the steps a training loop marks with :meth:`profile.step`, and
hands each finished window to ``on_trace_ready`` (for instance :func:`tensorboard_trace_handler`).

>>> with numgrad.profiler.profile(activities=[ProfilerActivity.CPU]) as prof:
...     model(inputs)
>>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
"""
from __future__ import annotations

import enum
import gzip
import os
import socket
import time
import warnings

from .autograd import profiler as _autograd_profiler
from .autograd.profiler import EventList, record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """What a profile records: numgrad records CPU-side events whatever is asked."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does at a step: nothing, warm up (record nothing), record, or record and
    then hand the window to ``on_trace_ready``."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0) -> callable

    The action at each step: after ``skip_first`` steps, cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded ones (the last of which saves), ``repeat`` times
    (0: until the profile ends). ``skip_first_wait`` skips the first cycle's wait."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        within = step % cycle
        if within < wait:
            return ProfilerAction.NONE
        if within < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if within < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _record_every_step(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """profile(*, activities=None, schedule=None, on_trace_ready=None, record_shapes=False, profile_memory=False, with_stack=False, with_flops=False, with_modules=False, ...)

    Records numgrad's events while active, as a context manager or between :meth:`start` and
    :meth:`stop`. With a ``schedule``, :meth:`step` marks each training step and only the
    steps it marks for recording are recorded; every finished window goes to
    ``on_trace_ready(prof)``, in which :meth:`events`, :meth:`key_averages` and
    :meth:`export_chrome_trace` read that window (every window so far with ``acc_events``)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None):
        self.activities = set(activities) if activities else {ProfilerActivity.CPU}
        self.schedule = schedule or _record_every_step
        # With a schedule, each recorded step is a range of its own, ProfilerStep*.
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recorder = None
        self._step_range = None
        self._events = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self) -> None:
        """Begins profiling at the current step."""
        if self.current_action in _RECORDING:
            self._begin_window()
        self._open_step()

    def stop(self) -> None:
        """Ends profiling; a window still recording is finished and handed on."""
        self._close_step()
        if self._recorder is not None:
            self._end_window()

    def step(self) -> None:
        """Marks the end of a training step: the schedule decides what the next one does."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self._recorder is not None and (previous is ProfilerAction.RECORD_AND_SAVE
                                           or self.current_action not in _RECORDING):
            self._end_window()
        if self._recorder is None and self.current_action in _RECORDING:
            self._begin_window()
        self._open_step()

    def _open_step(self) -> None:
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def _begin_window(self) -> None:
        self._recorder = _autograd_profiler.profile(record_shapes=self.record_shapes)
        self._recorder.__enter__()

    def _end_window(self) -> None:
        recorder, self._recorder = self._recorder, None
        recorder.__exit__(None, None, None)
        if self.acc_events and self._events is not None:
            self._events = EventList(self._events + recorder.function_events)
        else:
            self._events = recorder.function_events
        for event in self._events:
            # PyTorch reports the steps under one name, so that they average together.
            if event.name.startswith("ProfilerStep#"):
                event.name = "ProfilerStep*"
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def events(self) -> EventList:
        """The events of the last finished window (of all of them with ``acc_events``)."""
        if self._events is None:
            raise AssertionError("Profiler didn't finish running")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """The last window's events grouped by name: counts and total/self times."""
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path: str) -> None:
        """Writes the last window's events as a Chrome trace JSON file (gzipped for ``.gz``)."""
        if path.endswith(".gz"):
            plain = path[:-len(".gz")]
            self.events().export_chrome_trace(plain)
            with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
                dst.write(src.read())
            os.remove(plain)
        else:
            self.events().export_chrome_trace(path)


def tensorboard_trace_handler(dir_name: str, worker_name=None, use_gzip: bool = False):
    """tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False) -> callable

    An ``on_trace_ready`` that writes each window to ``dir_name`` as
    ``<worker_name>.<time in ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the files
    TensorBoard's profiler plugin reads; ``worker_name`` defaults to ``<host>_<pid>``."""
    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else ""))
        prof.export_chrome_trace(path)
    return handler
