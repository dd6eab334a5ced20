"""The autograd profiler: records every op call (forward ops and backward nodes) with its time.

The dispatcher reads the module flag ``enabled`` on each op and only then calls :func:`timed`,
so an unprofiled program pays one attribute lookup per op. Events nest: an op's *self* time
excludes the ops it calls (a backward node's time excludes the ops its VJP rule runs).
"""
from __future__ import annotations

import functools
import json
import os
import threading
import time

from . import autocast_state

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventList"]

enabled = False
_session = None


def now_us() -> float:
    """The clock of the events' times, in microseconds."""
    return time.perf_counter_ns() / 1000.0


class FunctionEvent:
    """One timed call: its name, thread, start and end (microseconds) and the calls it made."""

    __slots__ = ("id", "name", "thread", "start_us", "end_us", "cpu_children", "cpu_parent", "input_shapes")
    count = 1

    def __init__(self, id: int, name: str, thread: int, start_us: float, parent=None, input_shapes=()):
        self.id = id
        self.name = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = start_us
        self.cpu_children = []
        self.cpu_parent = parent
        # With record_shapes: per argument, a tensor's shape or [] for a number.
        self.input_shapes = list(input_shapes)

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    cpu_time = cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} thread={self.thread}>")


class FunctionEventAvg:
    """The totals of all events sharing one key (``count`` calls)."""

    def __init__(self, key: str, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event) -> "FunctionEventAvg":
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def self_cpu_time(self) -> float:
        return self.self_cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} count={self.count}>")


_MAX_SHAPES_WIDTH = 80
_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "self_cpu_time", "count")


class EventList(list):
    """A list of events (or of per-key averages) that can print itself as PyTorch's table."""

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False) -> "EventList":
        """One :class:`FunctionEventAvg` per event name (and, with ``group_by_input_shape``, per
        list of input shapes recorded with ``record_shapes=True``), in order of first appearance."""
        table = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else e.key
            avg = table.get(key)
            if avg is None:
                avg = table[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None)
            avg.add(e)
        return EventList(table.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit: int = 100, max_name_column_width: int = 55,
              header=None, top_level_events_only: bool = False) -> str:
        """The events as a text table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time
        avg and # of Calls, sorted (descending) by ``sort_by``."""
        rows = list(self)
        if top_level_events_only:
            rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"sort_by must be one of {', '.join(_SORT_KEYS)}; got {sort_by!r}")
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        total = self.self_cpu_time_total
        name_width = min(max([len(e.key) for e in rows] + [4]) + 4, max_name_column_width)
        widths = [name_width] + [12] * 6
        titles = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        # Averages grouped by input shape show them, as PyTorch's table does.
        shapes = [getattr(e, "input_shapes", None) for e in rows]
        with_shapes = any(s is not None for s in shapes)
        shapes = [str(s) if s is not None else "" for s in shapes]
        if with_shapes:
            widths.append(min(max([len(s) for s in shapes] + [12]) + 4, _MAX_SHAPES_WIDTH))
            titles.append("Input Shapes")
        rule = "".join("-" * w + "  " for w in widths)

        def line(cells):
            return "".join(f"{c:>{w}}  " for c, w in zip(cells, widths))

        out = []
        if header is not None:
            out += ["=" * len(rule), header]
        out += [rule, line(titles), rule]
        for e, shape in zip(rows, shapes):
            name = e.key if len(e.key) <= name_width - 3 else e.key[:name_width - 6] + "..."
            cells = [name, _percent(e.self_cpu_time_total, total), _format_time(e.self_cpu_time_total),
                     _percent(e.cpu_time_total, total), _format_time(e.cpu_time_total),
                     _format_time(e.cpu_time), str(e.count)]
            if with_shapes:
                cells.append(shape if len(shape) <= widths[-1] - 3 else shape[:widths[-1] - 6] + "...")
            out.append(line(cells))
        out.append(rule)
        out.append(f"Self CPU time total: {_format_time(total)}")
        return "\n".join(out) + "\n"

    def export_chrome_trace(self, path: str) -> None:
        """Writes the events as Chrome trace JSON (open it in chrome://tracing or Perfetto)."""
        pid = os.getpid()
        events = [{"ph": "X", "cat": "cpu_op", "name": e.name, "pid": pid, "tid": e.thread,
                   "ts": e.start_us, "dur": e.cpu_time_total, "args": {}} for e in self
                  if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": events}, f)


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _percent(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.2f}%" if whole > 0 else "0.00%"


class _Session:
    """The events of one ``profile()`` block; open events form a stack per thread."""

    def __init__(self, record_shapes: bool = False):
        self.events = EventList()
        self.local = threading.local()
        self.lock = threading.Lock()
        self.record_shapes = record_shapes

    def _stack(self) -> list:
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack

    def _new(self, name: str, start_us: float, stack: list, args=()) -> FunctionEvent:
        parent = stack[-1] if stack else None
        shapes = _input_shapes(args) if self.record_shapes else ()
        with self.lock:
            ev = FunctionEvent(len(self.events), name, threading.get_ident(), start_us, parent, shapes)
            self.events.append(ev)
        if parent is not None:
            parent.cpu_children.append(ev)
        return ev

    def begin(self, name: str, args=()) -> FunctionEvent:
        """Opens the event ``name`` of a call with arguments ``args``."""
        stack = self._stack()
        ev = self._new(name, now_us(), stack, args)
        stack.append(ev)
        return ev

    def add(self, name: str, start_us: float, args=()) -> None:
        """A finished event that ran no other op, from ``start_us`` until now."""
        self._new(name, start_us, self._stack(), args).end_us = now_us()

    def end(self, ev: FunctionEvent) -> None:
        ev.end_us = now_us()
        stack = self.local.stack
        # Pop down to ev: an exception may have skipped inner ends.
        while stack and stack.pop() is not ev:
            pass


def timed(name: str, fn, /, *args, **kwargs):
    """Runs ``fn(*args, **kwargs)`` as one profiled event called ``name``."""
    session = _session
    if session is None:
        return fn(*args, **kwargs)
    ev = session.begin(name, args)
    try:
        return fn(*args, **kwargs)
    finally:
        session.end(ev)


def leaf_event(name: str, start_us: float, args=()) -> None:
    """Records an op on ``args`` that ran no other op, from ``start_us`` (:func:`now_us`) until
    now: cheaper for the op than :func:`timed`, as it needs no call around its work."""
    session = _session
    if session is not None:
        session.add(name, start_us, args)


def _input_shapes(args) -> list:
    """PyTorch's record of a call's inputs: per tensor its shape, per number or list of numbers
    [], the elements of a tuple or list of operands in place of it; anything else (an op record,
    a dtype, a flag) is not an input."""
    shapes = []
    for a in args:
        if isinstance(a, (tuple, list)) and any(hasattr(x, "_storage") for x in a):
            shapes += _input_shapes(a)
        elif hasattr(a, "_storage"):
            shapes.append(list(a._shape))
        elif isinstance(a, (int, float, tuple, list)) and not isinstance(a, bool):
            shapes.append([])
    return shapes


def op_event(name: str, autocast=None):
    """Decorator: each call of the decorated op function is one profiled event ``name``, PyTorch's
    name for the op (``"aten::flip"``), with the ops it runs as its children. For ops whose
    dispatcher (elementwise, reduction, kernel op) does not already time them. ``autocast``
    ("lower" or "float32") is the op's cast policy in autocast regions."""
    def decorate(fn):
        @functools.wraps(fn)
        def op(*args, **kwargs):
            if autocast is not None and autocast_state.regions[0]:
                return autocast_state.run(autocast, functools.partial(timed, name, fn), args, kwargs)
            if _session is None:
                return fn(*args, **kwargs)
            return timed(name, fn, *args, **kwargs)
        return op
    return decorate


class profile:
    """profile(enabled=True, *, use_cuda=False, record_shapes=False, ...)

    Context manager recording every numgrad op run inside it (forward ops as ``aten::name``,
    backward nodes by their grad_fn name) and every :class:`record_function` range.

    >>> with numgrad.autograd.profiler.profile() as prof:
    ...     y = (x * 2).sum()
    >>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config=None, acc_events: bool = False):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self._events = None

    def __enter__(self):
        global enabled, _session
        if not self.enabled:
            return self
        if _session is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        _session = _Session(self.record_shapes)
        enabled = True
        return self

    def __exit__(self, *exc):
        global enabled, _session
        if not self.enabled:
            return False
        self._events = _session.events
        _session = None
        enabled = False
        return False

    def _check_finished(self):
        if self._events is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self) -> EventList:
        """Every recorded event, in order of start."""
        self._check_finished()
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """Events grouped by name: counts and total/self times."""
        return self.function_events.key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit: int = 100, max_name_column_width: int = 55, header=None,
              top_level_events_only: bool = False) -> str:
        return self.function_events.table(sort_by, row_limit, max_name_column_width, header,
                                          top_level_events_only)

    def export_chrome_trace(self, path: str) -> None:
        """Writes the recorded events as a Chrome trace JSON file."""
        self.function_events.export_chrome_trace(path)

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table()


class record_function:
    """record_function(name): a named range in the profile, as a context manager or decorator."""

    def __init__(self, name: str, args=None):
        self.name = name
        self._event = None

    def __enter__(self):
        if _session is not None:
            self._event = _session.begin(self.name)
        return self

    def __exit__(self, *exc):
        if self._event is not None and _session is not None:
            _session.end(self._event)
        self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapper
