"""What a derivative rule reads of its arguments is derived from its source, the same on every
Python: nothing, only geometry (shape, dtype, ...) or the data."""
import pytest

import numgrad
from numgrad.autograd import rule_reads, saving
from numgrad.autograd.rule_reads import FULL, META, NONE, argument_reads
from numgrad.ops.records import OPS


def test_every_rule_resolves_to_one_definition():
    # Look-alike lambdas sharing a line must still be told apart, or the tape would save the
    # union of what they read.
    ambiguous = []
    for op in OPS.values():
        for rule in op.vjp:
            if rule is None:
                continue
            fn = getattr(rule, "_derivative", None) or rule
            code = getattr(fn, "__code__", None)
            if code is not None and len(rule_reads._definitions(code)) != 1:
                ambiguous.append((op.name, code.co_firstlineno))
    assert ambiguous == []


@pytest.mark.parametrize("name, expected", [
    # (ans, x, y) per rule
    ("mul", ((NONE, NONE, FULL), (NONE, FULL, NONE))),
    ("add", ((NONE, NONE, NONE), (NONE, NONE, NONE))),
    ("div", ((NONE, NONE, FULL), (NONE, FULL, FULL))),
    ("exp", ((FULL, NONE),)),
    ("fmod", ((NONE, NONE, NONE), (NONE, FULL, FULL))),
])
def test_reads_of_known_rules(name, expected):
    assert saving.saved_args(OPS[name]) == expected


def test_sum_saves_only_geometry():
    levels = saving.saved_args(OPS["sum"])[0]
    assert levels[1] == META and levels[0] == NONE


def test_look_alike_lambdas_on_one_line():
    rules = (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g.shape, lambda g, ans, x, y: g)  # noqa: E731
    assert [argument_reads(r, 1, 3) for r in rules] == [[NONE, NONE, FULL], [NONE, NONE, NONE],
                                                        [NONE, NONE, NONE]]


def test_meta_reads_closures_and_rebinding():
    def geometry(g, ans, x):
        return g.reshape(x.shape).expand(x.size(0), *x.stride())

    def captured(g, ans, x):
        return [lambda: x.shape]

    def rebound(g, ans, x):
        x = g
        return x

    def starred(g, ans, *xs):
        return g * xs[0]

    assert argument_reads(geometry, 1, 2) == [NONE, META]
    assert argument_reads(captured, 1, 2) == [NONE, FULL]
    assert argument_reads(rebound, 1, 2) == [NONE, FULL]
    assert argument_reads(starred, 1, 3) == [NONE, FULL, FULL]


def test_rules_without_source_read_everything():
    namespace = {}
    exec("def rule(g, ans, x):\n    return g", namespace)  # noqa: S102
    assert argument_reads(namespace["rule"], 1, 2) == [FULL, FULL]
    assert argument_reads(abs, 1, 2) == [FULL, FULL]


def test_saved_values_follow_the_reads():
    x = numgrad.randn(3, requires_grad=True)
    y = numgrad.randn(3)
    z = x * y  # x's rule reads only y
    saved = z.grad_fn._saved
    assert saved[1] is None and saved[2] is not None


def test_source_edited_since_import_reads_everything(tmp_path, monkeypatch):
    path = tmp_path / "rules_module.py"
    path.write_text("def rule(g, ans, x):\n    return g\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import rules_module
    # Another definition now stands where the loaded one was compiled from.
    path.write_text("def rule(g, ans, x):\n    return g * x\n")
    import linecache
    linecache.checkcache(str(path))
    rule_reads._indexes.clear()
    assert argument_reads(rules_module.rule, 1, 2) == [FULL, FULL]
