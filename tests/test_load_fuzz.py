"""numgrad.load on crafted files: every malformed header raises RuntimeError naming the problem,
never another exception, a crash or an allocation the data section cannot back."""
import io
import json
import math
import struct
import tracemalloc
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

import numgrad as ng

_PREAMBLE = struct.Struct("<8sIQQI")
_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
_ITEMSIZE = {name: getattr(ng, name).itemsize for name in _NAMES}


def _file(header, data: bytes = b"") -> io.BytesIO:
    """A file with a correct preamble and checksum around ``header`` (a dict, or raw bytes)."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    crc = zlib.crc32(data, zlib.crc32(raw))
    return io.BytesIO(_PREAMBLE.pack(b"\x93NUMGRAD", 1, len(raw), len(data), crc) + raw + data)


def _spec(dtype="float32", shape=(2,), offset=0, nbytes=None, **extra):
    nbytes = math.prod(shape) * _ITEMSIZE[dtype] if nbytes is None else nbytes
    return {"dtype": dtype, "shape": list(shape), "offset": offset, "nbytes": nbytes,
            "requires_grad": False, "device": "cpu", "parameter": False, **extra}


def _load_one(spec, data=bytes(64)):
    return ng.load(_file({"object": {"$tensor": 0}, "tensors": [spec]}, data))


def test_valid_crafted_file_loads():
    t = _load_one(_spec("int16", (2, 3), nbytes=12), np.arange(6, dtype="<i2").tobytes())
    assert t.dtype == ng.int16 and t.tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("spec, why", [
    (_spec(shape=(0, 2 ** 63)), "overflows int64"),
    (_spec(shape=(2 ** 64, 0)), "overflows int64"),
    (_spec(shape=(0, 2 ** 62, 4)), "overflows int64"),
    (_spec(shape=(1,) * 65), "65 dims"),
    (_spec(shape=(2, -1), nbytes=0), "negative size"),
    (_spec(shape=(2, 1.5), nbytes=0), "not a list of integers"),
    (_spec(shape=(True, 2), nbytes=8), "not a list of integers"),
    (dict(_spec(), shape="ab"), "not a list of integers"),
    (dict(_spec(), dtype=["float32"]), "unknown dtype"),
    (dict(_spec(), dtype={"float32": 1}), "unknown dtype"),
    (dict(_spec(), dtype="complex64"), "unknown dtype"),
    (dict(_spec(), dtype=None), "unknown dtype"),
    (_spec(offset=-8), "byte range"),
    (_spec(offset=1.0), "byte range"),
    (_spec(offset=64), "outside the data section"),
    (_spec(offset=2 ** 70), "outside the data section"),
    (_spec(nbytes=4), "shape needs 8"),
    (_spec(device="tpu"), "bad device"),
    (_spec(device=["cpu"]), "bad device"),
    (_spec(device="cuda:\u00b2"), "bad device"),
    (_spec(requires_grad="yes"), "true or false"),
    (_spec(parameter=1), "true or false"),
    (["float32", [2], 0, 8], "malformed description"),
])
def test_malformed_tensor_description(spec, why):
    with pytest.raises(RuntimeError, match="not a valid numgrad file") as info:
        _load_one(spec)
    assert why in str(info.value)


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
def test_integer_tensor_that_requires_grad_is_refused(dtype):
    for extra in ({"parameter": True, "requires_grad": True}, {"parameter": True, "requires_grad": None},
                  {"requires_grad": True}):
        spec = _spec(dtype, **extra)
        if extra["requires_grad"] is None:
            del spec["requires_grad"]  # a Parameter requires grad unless told otherwise
        with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can "
                                               "require gradients"):
            _load_one(spec)


def test_integer_parameter_without_grad_loads_as_in_pytorch():
    p = _load_one(_spec("int64", parameter=True))
    assert isinstance(p, ng.nn.Parameter) and p.dtype == ng.int64 and not p.requires_grad
    q = _load_one(_spec("float32", parameter=True, requires_grad=True))
    assert isinstance(q, ng.nn.Parameter) and q.requires_grad


def test_overlapping_byte_ranges_are_refused():
    # Two descriptions of the same bytes would let a small file load many copies of its data.
    header = {"object": [{"$tensor": 0}, {"$tensor": 1}], "tensors": [_spec(shape=(16,)), _spec(shape=(16,))]}
    with pytest.raises(RuntimeError, match="overlaps"):
        ng.load(_file(header, bytes(64)))


@pytest.mark.parametrize("obj, why", [
    ({"$tensor": 1}, "bad tensor reference"),
    ({"$tensor": True}, "bad tensor reference"),
    ({"$dict": [[[1], 2]]}, "unhashable dict key"),
    ({"$dict": [[1]]}, "malformed dict entry"),
    ({"$size": [2 ** 64]}, "unknown entry"),
    ({"$dtype": ["float32"]}, "unknown entry"),
    ({"$device": "cpu:-1"}, "bad device"),
    ({"$float": "1e999"}, "unknown entry"),
    ({"$tuple": 3}, "unknown entry"),
    ({"a": 1, "b": 2}, "unexpected value"),
])
def test_malformed_object_tree(obj, why):
    with pytest.raises(RuntimeError, match=why):
        ng.load(_file({"object": obj, "tensors": [_spec()]}, bytes(8)))


def test_deep_nesting_is_refused():
    assert ng.load(_file({"object": [[[[]]]], "tensors": []})) == [[[[]]]]
    raw = ('{"object": ' + "[" * 100_000 + "]" * 100_000 + ', "tensors": []}').encode()
    with pytest.raises(RuntimeError, match="nests too deeply"):
        ng.load(_file(raw))
    # Around Python's recursion limit either JSON parsing or decoding is the one to give up.
    for depth in (300, 400, 450, 500, 600, 5000):
        raw = ('{"object": ' + '{"$tuple": [' * depth + "null" + "]}" * depth + ', "tensors": []}').encode()
        try:
            out = ng.load(_file(raw))
        except RuntimeError as e:
            assert "nests too deeply" in str(e)
        else:
            assert depth < 5000 and isinstance(out, tuple)


# Fuzzing: tables laid out as ``save`` lays them out, with some fields replaced by malformed values.
_BAD_INTS = st.sampled_from([-1, -2 ** 63, 2 ** 63 - 1, 2 ** 63, 2 ** 64, 10 ** 30])
_JUNK = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False), st.text(max_size=4),
                  st.lists(st.integers(0, 3), max_size=2),
                  st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))
_DIM = st.one_of(st.integers(0, 4), _BAD_INTS, st.sampled_from([1.0, "2", True, None]))


_BAD = {
    "dtype": st.one_of(st.sampled_from(["float128", "complex64", "", "Float"]), _JUNK),
    "shape": st.one_of(st.lists(_DIM, min_size=1, max_size=6), st.just([1] * 65), st.just([0] * 70), _JUNK),
    "offset": st.one_of(_BAD_INTS, _JUNK),
    "nbytes": st.one_of(st.integers(0, 200), _BAD_INTS, _JUNK),
    "requires_grad": _JUNK, "parameter": _JUNK,
    "device": st.sampled_from(["tpu", "cpu:x", "cuda:\u00b2", "meta", "", 0]),
}


@st.composite
def _tensor_table(draw, data_len):
    """Tensors laid out as ``save`` lays them out, then a few fields replaced by bad values."""
    entries, end = [], 0
    for _ in range(draw(st.integers(1, 3))):
        dtype = draw(st.sampled_from(_NAMES))
        shape = draw(st.lists(st.integers(0, 3), max_size=3))
        offset = draw(st.integers(end, max(end, data_len)))
        entry = {"dtype": dtype, "shape": shape, "offset": offset,
                 "nbytes": math.prod(shape) * _ITEMSIZE[dtype]}
        end = offset + entry["nbytes"]
        for key, good in (("requires_grad", st.booleans()), ("parameter", st.booleans()),
                          ("device", st.sampled_from(["cpu", "cpu:0"]))):
            if draw(st.booleans()):
                entry[key] = draw(good)
        entries.append(entry)
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        entry = draw(st.sampled_from(entries))
        key = draw(st.sampled_from(sorted(_BAD)))
        if draw(st.integers(0, 9)) == 0:
            entry.pop(key, None)
        else:
            entry[key] = draw(_BAD[key])
    return entries


def _well_formed(entry, data_len) -> bool:
    """An independent statement of which descriptions are valid (on this CPU-only process)."""
    if not isinstance(entry, dict):
        return False
    dtype, shape = entry.get("dtype"), entry.get("shape")
    offset, nbytes = entry.get("offset"), entry.get("nbytes")
    if not isinstance(dtype, str) or dtype not in _ITEMSIZE or not isinstance(shape, list) or len(shape) > 64:
        return False
    if not all(type(s) is int and 0 <= s < 2 ** 63 for s in shape):
        return False
    if math.prod(max(s, 1) for s in shape[1:]) >= 2 ** 63:
        return False
    if type(offset) is not int or type(nbytes) is not int or offset < 0:
        return False
    if nbytes != math.prod(shape) * _ITEMSIZE[dtype] or offset + nbytes > data_len:
        return False
    if entry.get("device", "cpu") not in ("cpu", "cpu:0"):
        return False
    parameter = entry.get("parameter", False)
    requires_grad = entry.get("requires_grad", parameter)
    if type(parameter) is not bool or type(requires_grad) is not bool:
        return False
    return not requires_grad or dtype.startswith("float")


def _ranges_disjoint(entries) -> bool:
    end = 0
    for e in entries:
        if e["nbytes"]:
            if e["offset"] < end:
                return False
            end = e["offset"] + e["nbytes"]
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_fuzz_tensor_table(data):
    data_len = data.draw(st.integers(0, 96))
    entries = data.draw(_tensor_table(data_len))
    refs = data.draw(st.lists(st.integers(0, len(entries) - 1) | st.integers(-1, 3), min_size=1, max_size=4))
    payload = bytes(range(data_len))
    f = _file({"object": [{"$tensor": i} for i in refs], "tensors": entries}, payload)
    valid = (all(_well_formed(e, data_len) for e in entries) and _ranges_disjoint(entries)
             and all(0 <= i < len(entries) for i in refs))
    event("well-formed" if valid else "malformed")
    tracemalloc.start()
    try:
        out = ng.load(f)
    except RuntimeError as e:
        assert "numgrad.load" in str(e) or "require gradients" in str(e), e
        assert not valid, f"a well-formed file was refused: {e}"
        return
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    # No allocation beyond a small multiple of what the file holds.
    assert peak < 64 * (len(f.getvalue()) + 4096)
    assert valid, f"a malformed file loaded: {entries}"
    for i, t in zip(refs, out):
        e = entries[i]
        assert t.dtype.name == e["dtype"] and list(t.shape) == e["shape"]
        want = np.frombuffer(payload, dtype=np.dtype(e["dtype"]).newbyteorder("<"),
                             count=math.prod(e["shape"]), offset=e["offset"])
        assert np.array_equal(t.detach().numpy().reshape(-1), want, equal_nan=t.dtype.is_floating_point)


_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6)),
                     lambda inner: st.one_of(st.lists(inner, max_size=3),
                                             st.dictionaries(st.sampled_from(["$tensor", "$tuple", "$dict", "$odict",
                                                                              "$size", "$dtype", "$device",
                                                                              "$float", "x"]),
                                                             inner, max_size=2)),
                     max_leaves=12)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=_JSON, tensors=st.one_of(st.just([_spec()]), _JSON))
def test_fuzz_object_tree(obj, tensors):
    header = {"object": obj, "tensors": tensors}
    try:
        ng.load(_file(header, bytes(8)))
    except RuntimeError as e:
        assert "numgrad.load" in str(e)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_fuzz_mutated_header_bytes(data):
    buf = io.BytesIO()
    ng.save({"w": ng.arange(6.0).reshape(2, 3), "n": (ng.tensor([1, 2]), 3.5, "s")}, buf)
    blob = bytearray(buf.getvalue())
    n_header = _PREAMBLE.unpack_from(blob)[2]
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(_PREAMBLE.size, _PREAMBLE.size + n_header - 1))
        blob[i] = data.draw(st.integers(0, 255))
    raw, payload = bytes(blob[_PREAMBLE.size:_PREAMBLE.size + n_header]), bytes(blob[_PREAMBLE.size + n_header:])
    for f in (_file(raw, payload), io.BytesIO(bytes(blob))):
        try:
            ng.load(f)
        except RuntimeError as e:
            assert "numgrad.load" in str(e) or "require gradients" in str(e)
