"""Every public op record has a row in the op table, so that the generic tests check it.

A record of ``numgrad.ops.records.OPS`` is public when its name is a function of ``numgrad``,
``numgrad.linalg``, ``numgrad.special`` or ``numgrad.nn.functional``, or a Tensor method; it has
a row when a row of ``numgrad.testing.OP_DB`` bears its name. ``WITHOUT_ROW`` lists the public
records that have none yet: it may only shrink (the test fails when a listed record gains a row
or stops being public, so the list is kept exact), and nothing may be added to it.
"""
import numgrad
import numgrad.linalg
import numgrad.nn.functional
import numgrad.special
from numgrad.ops.records import OPS
from numgrad.testing import OP_DB

WITHOUT_ROW = frozenset({
    "poisson",
})

_NAMESPACES = (numgrad, numgrad.linalg, numgrad.special, numgrad.nn.functional, numgrad.Tensor)


def _public_records() -> set:
    return {name for name in OPS if any(callable(getattr(ns, name, None)) for ns in _NAMESPACES)}


def _row_names() -> set:
    return {info.name for info in OP_DB}


def test_every_public_record_has_a_row():
    missing = _public_records() - _row_names() - WITHOUT_ROW
    assert sorted(missing) == [], "public op records without a row in numgrad.testing.OP_DB"


def test_without_row_only_shrinks():
    assert sorted(WITHOUT_ROW & _row_names()) == [], "these have rows now: remove them from WITHOUT_ROW"
    assert sorted(WITHOUT_ROW - _public_records()) == [], "no longer public records: remove them from WITHOUT_ROW"

