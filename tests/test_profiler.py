"""numgrad.autograd.profiler: op and backward-node events, tables, Chrome traces, ranges."""
import json

import pytest

import numgrad as ng
from numgrad.autograd import profiler


def _run():
    x = ng.randn(2, 3, requires_grad=True)
    y = ng.rand(2, 3, requires_grad=True)
    z = ng.ones(2, 3, requires_grad=True)
    with profiler.profile() as prof:
        for _ in range(5):
            z = (z / x) * y
        with profiler.record_function("my_backward"):
            z.sum().backward()
    return prof


def test_records_forward_ops_backward_nodes_and_ranges():
    prof = _run()
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::div"].count >= 5
    assert avg["aten::mul"].count >= 5
    assert avg["DivBackward0"].count == 5 and avg["MulBackward0"].count == 5
    assert avg["my_backward"].count == 1
    assert avg["my_backward"].cpu_time_total >= avg["DivBackward0"].cpu_time_total
    total = sum(e.self_cpu_time_total for e in prof.function_events)
    assert prof.self_cpu_time_total == pytest.approx(total)
    for e in prof.function_events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-9


def test_table_layout():
    table = _run().key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
    lines = table.rstrip("\n").split("\n")
    assert lines[0].startswith("-") and lines[0] == lines[2] == lines[-2]
    header = lines[1].split()
    assert " ".join(header) == "Name Self CPU % Self CPU CPU total % CPU total CPU time avg # of Calls"
    assert len(lines) == 3 + 3 + 2
    assert lines[-1].startswith("Self CPU time total: ")
    assert lines[3].endswith("  ") and "%" in lines[3]
    selfs = [float(line.split()[1].rstrip("%")) for line in lines[3:6]]
    assert selfs == sorted(selfs, reverse=True)
    with pytest.raises(ValueError):
        _run().key_averages().table(sort_by="bogus")


def test_chrome_trace_is_valid_json(tmp_path):
    path = tmp_path / "trace.json"
    _run().export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    events = data["traceEvents"]
    assert events and all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    assert {"aten::mul", "MulBackward0", "my_backward"} <= {e["name"] for e in events}


def test_disabled_outside_and_nested_profiles_refused():
    assert not profiler.enabled
    with profiler.record_function("ignored"):
        ng.ones(2) + 1
    with profiler.profile(enabled=False) as prof:
        ng.ones(2) + 1
    with pytest.raises(RuntimeError):
        prof.key_averages()
    with profiler.profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            profiler.profile().__enter__()
    assert not profiler.enabled


def test_record_function_as_decorator():
    @profiler.record_function("block")
    def f(x):
        return x * 2

    with profiler.profile() as prof:
        f(ng.ones(2))
    block = [e for e in prof.function_events if e.name == "block"][0]
    assert [c.name for c in block.cpu_children] == ["aten::mul"]


def test_record_shapes_groups_by_input_shape():
    x, w = ng.ones(5, 3, 8, 8), ng.ones(4, 3, 3, 3)
    with profiler.profile(record_shapes=True) as prof:
        ng.nn.functional.conv2d(x, w)
        ng.nn.functional.conv2d(x[:2], w)
        x.flatten(1) + 2.0
    rows = {(e.key, str(e.input_shapes)): e.count for e in prof.key_averages(group_by_input_shape=True)}
    assert rows[("aten::conv2d", "[[5, 3, 8, 8], [4, 3, 3, 3]]")] == 1
    assert rows[("aten::conv2d", "[[2, 3, 8, 8], [4, 3, 3, 3]]")] == 1
    assert rows[("aten::add", "[[5, 192], []]")] == 1
    assert prof.key_averages().table().split("\n")[1].split()[-3:] == ["#", "of", "Calls"]
    grouped = prof.key_averages(group_by_input_shape=True).table(sort_by="count")
    assert grouped.split("\n")[1].endswith("Input Shapes  ")
    assert "[[5, 3, 8, 8], [4, 3, 3, 3]]" in grouped
    with profiler.profile() as prof:
        x + 1
    assert prof.function_events[0].input_shapes == []


def test_recorded_shapes_are_pytorchs_tensor_operands():
    # PyTorch records every argument of the aten op (options too, as []); numgrad the operands,
    # which are PyTorch's list up to its trailing options.
    torch = pytest.importorskip("torch")

    def calls(lib):
        x, w, a, b = lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), lib.ones(4, 5), lib.ones(5, 6)
        return [lambda: lib.nn.functional.conv2d(x, w), lambda: x + 2.0, lambda: x.sum(1),
                lambda: lib.matmul(a, b), lambda: x.transpose(0, 1)]

    for ours, theirs in zip(calls(ng), calls(torch)):
        with profiler.profile(record_shapes=True) as prof:
            ours()
        with torch.profiler.profile(record_shapes=True) as tprof:
            theirs()
        got = [e for e in prof.function_events if e.cpu_parent is None][0]
        want = [e for e in tprof.events() if e.cpu_parent is None][0]
        assert got.name == want.name
        assert got.input_shapes == want.input_shapes[:len(got.input_shapes)]
