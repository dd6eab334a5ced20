"""numgrad.save / numgrad.load: round trips, views, map_location, safety and corrupt files."""
import io
import math
import struct
from collections import OrderedDict

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn as nn


def _round_trip(obj, **kwargs):
    buf = io.BytesIO()
    ng.save(obj, buf)
    buf.seek(0)
    return ng.load(buf, **kwargs)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64, ng.float16, ng.int64, ng.int32, ng.int16,
                                   ng.int8, ng.uint8, ng.bool])
def test_tensor_round_trip_every_dtype(dtype):
    t = (ng.arange(12) % 3).to(dtype).reshape(3, 4)
    r = _round_trip(t)
    assert r.dtype == dtype and r.shape == (3, 4)
    np.testing.assert_array_equal(r.numpy(), t.numpy())


def test_nested_containers_and_numbers(tmp_path):
    obj = {"a": [ng.ones(2), (1, 2.5, "x", None, True)], 3: {"inf": math.inf, "nan": math.nan},
           "od": OrderedDict(b=ng.zeros(1)), "dtype": ng.float64, "dev": ng.device("cpu"),
           "size": ng.Size([2, 3]), "empty": ng.empty(0, 3)}
    path = tmp_path / "obj.pt"
    ng.save(obj, path)
    r = ng.load(str(path))
    assert r["a"][0].tolist() == [1.0, 1.0] and r["a"][1] == (1, 2.5, "x", None, True)
    assert r[3]["inf"] == math.inf and math.isnan(r[3]["nan"])
    assert isinstance(r["od"], OrderedDict) and r["od"]["b"].tolist() == [0.0]
    assert r["dtype"] is ng.float64 and r["dev"] == ng.device("cpu")
    assert r["size"] == ng.Size([2, 3]) and isinstance(r["size"], ng.Size)
    assert r["empty"].shape == (0, 3)


def test_views_save_only_their_elements():
    big = ng.arange(100000.0)
    view = big[10:20:2]
    buf = io.BytesIO()
    ng.save(view, buf)
    assert len(buf.getvalue()) < 1000
    buf.seek(0)
    assert ng.load(buf).tolist() == [10.0, 12.0, 14.0, 16.0, 18.0]
    t = ng.arange(6.0).reshape(2, 3).t()
    np.testing.assert_array_equal(_round_trip(t).numpy(), t.numpy())


def test_shared_tensor_saved_once_and_requires_grad_kept():
    t = ng.ones(3, requires_grad=True)
    a, b = _round_trip([t, t])
    assert a is b and a.requires_grad and a.is_leaf
    p = _round_trip(nn.Parameter(ng.ones(2)))
    assert isinstance(p, nn.Parameter)


def test_module_state_dict_round_trip(tmp_path):
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    ng.save(m.state_dict(), tmp_path / "m.ngt")
    m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    m2.load_state_dict(ng.load(tmp_path / "m.ngt"))
    for (k, v), (_, w) in zip(m.state_dict().items(), m2.state_dict().items()):
        np.testing.assert_array_equal(v.numpy(), w.numpy(), err_msg=k)


def test_map_location_forms():
    t = ng.ones(2)
    assert _round_trip(t, map_location="cpu").device == ng.device("cpu")
    assert _round_trip(t, map_location=ng.device("cpu")).device.type == "cpu"
    assert _round_trip(t, map_location={"cuda:1": "cpu"}).device.type == "cpu"
    seen = []
    r = _round_trip(t, map_location=lambda storage, loc: seen.append(loc) or storage)
    assert seen == ["cpu"] and r.tolist() == [1.0, 1.0]


def test_refuses_unsupported_objects():
    with pytest.raises(TypeError, match="numgrad.save can store"):
        ng.save({"f": lambda: 0}, io.BytesIO())


def _saved_bytes():
    buf = io.BytesIO()
    ng.save({"w": ng.arange(64.0)}, buf)
    return buf.getvalue()


def test_truncated_file_raises_clear_error():
    data = _saved_bytes()
    for cut in (5, 40, len(data) - 10):
        with pytest.raises(RuntimeError, match="not a valid numgrad file"):
            ng.load(io.BytesIO(data[:cut]))
    with pytest.raises(RuntimeError, match="truncated"):
        ng.load(io.BytesIO(data[:-10]))


def test_corrupt_file_raises_clear_error():
    data = bytearray(_saved_bytes())
    data[-3] ^= 0xFF
    with pytest.raises(RuntimeError, match="checksum"):
        ng.load(io.BytesIO(bytes(data)))
    with pytest.raises(RuntimeError, match="missing numgrad header"):
        ng.load(io.BytesIO(b"PK\x03\x04" + b"\0" * 64))


def test_forged_header_cannot_escape_the_data_section():
    import json
    import zlib
    header = json.dumps({"object": {"$tensor": 0}, "tensors": [
        {"dtype": "float64", "shape": [1000], "offset": 0, "nbytes": 8000}]}).encode()
    body = header + b"\0" * 8
    blob = struct.pack("<8sIQQI", b"\x93NUMGRAD", 1, len(header), 8, zlib.crc32(body)) + body
    with pytest.raises(RuntimeError, match="outside the data section"):
        ng.load(io.BytesIO(blob))
    header = json.dumps({"object": {"$pickle": "os.system"}, "tensors": []}).encode()
    blob = struct.pack("<8sIQQI", b"\x93NUMGRAD", 1, len(header), 0, zlib.crc32(header)) + header
    with pytest.raises(RuntimeError, match="unknown entry"):
        ng.load(io.BytesIO(blob))
