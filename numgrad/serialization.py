"""numgrad.save / numgrad.load: tensors and nested containers in a safe single-file format.

Layout: a 32-byte preamble (magic, format version, header length, data length, CRC-32 of
everything after the preamble), a UTF-8 JSON header describing the object tree and each
tensor (dtype, shape, byte range), then the tensors' raw little-endian bytes. Loading only
parses JSON and copies bytes, so an untrusted file can never run code.
"""
from __future__ import annotations

import json
import math
import os
import struct
import zlib
from collections import OrderedDict

import numpy as np

from . import dtypes
from .devices import as_device, device as _device
from .shapes import Size
from .tensor import Tensor

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals"]

_MAGIC = b"\x93NUMGRAD"
_VERSION = 1
_PREAMBLE = struct.Struct("<8sIQQI")  # magic, version, header bytes, data bytes, crc32
_ALIGN = 64


class _Writer:
    """Turns an object tree into JSON-able values, collecting tensors' bytes on the way."""

    def __init__(self):
        self.tensors = []
        self.chunks = []
        self.size = 0
        self.seen = {}

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"$float": repr(obj)}
        if isinstance(obj, Tensor):
            return {"$tensor": self._tensor(obj)}
        if isinstance(obj, Size):
            return {"$size": list(obj)}
        if isinstance(obj, dtypes.dtype):
            return {"$dtype": obj.name}
        if isinstance(obj, _device):
            return {"$device": str(obj)}
        if isinstance(obj, (np.integer, np.floating, np.bool_)):
            return self.encode(obj.item())
        if isinstance(obj, tuple):
            return {"$tuple": [self.encode(v) for v in obj]}
        if isinstance(obj, list):
            return [self.encode(v) for v in obj]
        if isinstance(obj, dict):
            tag = "$odict" if isinstance(obj, OrderedDict) else "$dict"
            return {tag: [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
        from .nn.modules.module import Module
        from .optim.optimizer import Optimizer
        if isinstance(obj, (Module, Optimizer)):
            kind = "Module" if isinstance(obj, Module) else "Optimizer"
            raise TypeError(
                f"numgrad.save cannot store a whole {kind} ({type(obj).__name__}): numgrad's format is "
                "pickle-free and holds no code or classes, only tensors and plain containers. Save "
                f"its state dict instead: numgrad.save(obj.state_dict(), f), and restore it into a new "
                f"{type(obj).__name__} with load_state_dict(numgrad.load(f))")
        raise TypeError(
            f"numgrad.save can store tensors, numbers, strings, None, dtypes, devices and "
            f"dicts/lists/tuples of them; got an object of type {type(obj).__name__}")

    def _tensor(self, t: Tensor) -> int:
        if id(t) in self.seen:
            return self.seen[id(t)]
        # Only the elements the tensor shows are written, never the rest of its storage.
        arr = np.ascontiguousarray(t.detach().cpu()._np_view())
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        pad = -self.size % _ALIGN
        if pad:
            self.chunks.append(b"\0" * pad)
            self.size += pad
        from .nn.parameter import Parameter
        self.tensors.append({"dtype": t.dtype.name, "shape": list(t.shape), "offset": self.size,
                             "nbytes": len(data), "requires_grad": t.requires_grad,
                             "device": str(t.device), "parameter": isinstance(t, Parameter)})
        self.chunks.append(data)
        self.size += len(data)
        self.seen[id(t)] = len(self.tensors) - 1
        return self.seen[id(t)]


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True) -> None:
    """save(obj, f)

    Saves tensors, numbers, strings and (nested) dicts, lists and tuples of them to ``f`` (a
    path or a binary file object). A tensor that is a view is saved with its own elements
    only; a tensor appearing twice in ``obj`` is saved once and loads as one object."""
    writer = _Writer()
    tree = writer.encode(obj)
    header = json.dumps({"object": tree, "tensors": writer.tensors}, separators=(",", ":")).encode()
    crc = zlib.crc32(header)
    for chunk in writer.chunks:
        crc = zlib.crc32(chunk, crc)
    preamble = _PREAMBLE.pack(_MAGIC, _VERSION, len(header), writer.size, crc)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            _write_all(fh, preamble, header, writer.chunks)
    else:
        _write_all(f, preamble, header, writer.chunks)


def _write_all(fh, preamble, header, chunks):
    fh.write(preamble)
    fh.write(header)
    for chunk in chunks:
        fh.write(chunk)


# PyTorch keeps sizes and strides in int64, and NumPy (which copies the bytes in) allows 64 dims.
_INT64_MAX = (1 << 63) - 1
_MAX_DIMS = 64


class _Spec:
    """One entry of the tensor table, checked."""
    __slots__ = ("dtype", "shape", "count", "offset", "nbytes", "location", "requires_grad", "parameter")


class _Reader:
    """Rebuilds the object tree from a parsed header, creating each tensor once."""

    def __init__(self, specs, data: memoryview, map_location, source: str):
        self.specs = specs
        self.data = data
        self.map_location = map_location
        self.source = source
        self.made = {}

    def fail(self, why: str):
        raise RuntimeError(f"numgrad.load: {self.source} is not a valid numgrad file ({why})")

    def check_table(self, table) -> None:
        """Check every tensor description before any tensor is made. Byte ranges must follow
        one another without overlapping, as ``save`` writes them, so that loading never copies
        more than the data section holds, whatever the header says."""
        specs, end = [], 0
        for index, entry in enumerate(table):
            spec = self._spec(index, entry)
            if spec.nbytes:
                if spec.offset < end:
                    self.fail(f"tensor {index} overlaps the bytes of an earlier tensor")
                end = spec.offset + spec.nbytes
            specs.append(spec)
        self.specs = specs

    def _spec(self, index, entry) -> _Spec:
        bad = f"malformed description of tensor {index}"
        if not isinstance(entry, dict):
            self.fail(bad)
        spec = _Spec()
        name = entry.get("dtype")
        if not isinstance(name, str) or name not in dtypes._BY_NAME:
            self.fail(f"{bad}: unknown dtype {name!r}")
        spec.dtype = d = dtypes._BY_NAME[name]
        shape = entry.get("shape")
        if not isinstance(shape, list) or not all(type(s) is int for s in shape):
            self.fail(f"{bad}: its shape is not a list of integers")
        if len(shape) > _MAX_DIMS:
            self.fail(f"{bad}: {len(shape)} dims, more than the {_MAX_DIMS} supported")
        if any(s < 0 for s in shape):
            self.fail(f"{bad}: negative size in shape {shape}")
        # Each stride is the product of the sizes after its dim (a zero size counting as one).
        stride = 1
        for s in reversed(shape[1:]):
            stride *= max(s, 1)
        if stride > _INT64_MAX or any(s > _INT64_MAX for s in shape):
            self.fail(f"{bad}: shape {shape} overflows int64")
        spec.shape = tuple(shape)
        spec.count = count = math.prod(shape)
        spec.offset, spec.nbytes = offset, nbytes = entry.get("offset"), entry.get("nbytes")
        if type(offset) is not int or type(nbytes) is not int or offset < 0:
            self.fail(f"{bad}: its byte range is not two non-negative integers")
        if nbytes != count * d.itemsize:
            self.fail(f"tensor {index} has {nbytes} bytes but its shape needs {count * d.itemsize}")
        if offset + nbytes > len(self.data):
            self.fail(f"tensor {index} lies outside the data section")
        location = entry.get("device", "cpu")
        try:
            if not isinstance(location, str):
                raise ValueError
            _device(location)
        except (RuntimeError, ValueError):
            self.fail(f"{bad}: bad device {location!r}")
        spec.location = location
        spec.parameter = entry.get("parameter", False)
        # A Parameter requires grad unless told otherwise, as its constructor does.
        spec.requires_grad = entry.get("requires_grad", spec.parameter)
        if type(spec.parameter) is not bool or type(spec.requires_grad) is not bool:
            self.fail(f"{bad}: its flags are not true or false")
        if spec.requires_grad and not d.is_floating_point:
            self.fail(f"tensor {index} is {d.name} but requires grad: Only Tensors of floating point "
                      f"and complex dtype can require gradients")
        return spec

    def decode(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.decode(x) for x in v]
        if not isinstance(v, dict) or len(v) != 1:
            self.fail("unexpected value in the header")
        (tag, body), = v.items()
        if tag == "$tensor":
            return self._tensor(body)
        if tag == "$tuple" and isinstance(body, list):
            return tuple(self.decode(x) for x in body)
        if tag in ("$dict", "$odict") and isinstance(body, list):
            out = OrderedDict() if tag == "$odict" else {}
            for pair in body:
                if not isinstance(pair, list) or len(pair) != 2:
                    self.fail("malformed dict entry")
                key = self.decode(pair[0])
                try:
                    hash(key)
                except TypeError:
                    self.fail("unhashable dict key")
                out[key] = self.decode(pair[1])
            return out
        if tag == "$float" and body in ("inf", "-inf", "nan"):
            return float(body)
        if tag == "$size" and isinstance(body, list) and all(type(s) is int and abs(s) <= _INT64_MAX
                                                             for s in body):
            return Size(body)
        if tag == "$dtype" and isinstance(body, str) and body in dtypes._BY_NAME:
            return dtypes._BY_NAME[body]
        if tag == "$device" and isinstance(body, str):
            try:
                return _device(body)
            except (RuntimeError, ValueError):
                self.fail(f"bad device {body!r}")
        self.fail(f"unknown entry {tag!r}")

    def _tensor(self, index):
        if type(index) is not int or not 0 <= index < len(self.specs):
            self.fail("bad tensor reference")
        if index in self.made:
            return self.made[index]
        spec = self.specs[index]
        d = spec.dtype
        if spec.count:
            arr = np.frombuffer(self.data, dtype=d.numpy.newbyteorder("<"), count=spec.count, offset=spec.offset)
            t = Tensor._from_numpy_array(arr.astype(d.numpy, copy=True).reshape(spec.shape))
        else:
            t = Tensor._empty(spec.shape, d)
        t = self._place(t, spec.location)
        if spec.parameter:
            from .nn.parameter import Parameter
            t = Parameter(t, spec.requires_grad)
        elif spec.requires_grad:
            t.requires_grad_(True)
        self.made[index] = t
        return t

    def _place(self, t: Tensor, location: str) -> Tensor:
        ml = self.map_location
        if ml is None:
            return t if location == "cpu" else t.to(location)
        if callable(ml):
            r = ml(t, location)
            return t if r is None else r
        if isinstance(ml, dict):
            target = ml.get(location, location)
            return t if target == "cpu" else t.to(target)
        target = as_device(ml)
        return t if target.type == "cpu" else t.to(target)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """load(f, map_location=None)

    Loads an object saved by :func:`save` from a path or binary file object. ``map_location``
    is a device (or string) for every tensor, a dict mapping saved device names to new ones,
    or ``fn(tensor, location) -> tensor``. A truncated or corrupt file raises RuntimeError."""
    if isinstance(f, (str, os.PathLike)):
        source = repr(os.fspath(f))
        with open(f, "rb") as fh:
            blob = fh.read()
    else:
        source = "the file object"
        blob = f.read()
    reader = _Reader([], memoryview(b""), map_location, source)
    if len(blob) < _PREAMBLE.size:
        reader.fail("the file is truncated" if blob.startswith(_MAGIC[:len(blob)]) and blob
                    else "missing numgrad header")
    magic, version, n_header, n_data, crc = _PREAMBLE.unpack_from(blob)
    if magic != _MAGIC:
        reader.fail("missing numgrad header")
    if version != _VERSION:
        reader.fail(f"unsupported format version {version}")
    body = memoryview(blob)[_PREAMBLE.size:]
    if len(body) < n_header + n_data:
        reader.fail(f"the file is truncated: expected {n_header + n_data} bytes after the preamble, "
                    f"found {len(body)}")
    if len(body) > n_header + n_data:
        reader.fail("unexpected trailing bytes")
    if zlib.crc32(body) != crc:
        reader.fail("checksum mismatch: the file is corrupt")
    try:
        header = json.loads(bytes(body[:n_header]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        reader.fail("the header is not valid JSON")
    except RecursionError:
        reader.fail("the header nests too deeply")
    if not isinstance(header, dict) or not isinstance(header.get("tensors"), list) or "object" not in header:
        reader.fail("the header lacks its object or tensor table")
    reader.data = body[n_header:]
    reader.check_table(header["tensors"])
    try:
        return reader.decode(header["object"])
    except RecursionError:
        reader.fail("the header nests too deeply")


# The allowlist of PyTorch's ``weights_only`` unpickler. numgrad's files hold no pickled objects, so
# loading one never constructs a class: there is nothing to allow, and these accept and forget.
def add_safe_globals(safe_globals: list) -> None:
    """Accepted for PyTorch programs. numgrad's format holds no pickled objects, so :func:`load`
    never constructs a class and needs no allowlist."""


def clear_safe_globals() -> None:
    """Accepted for PyTorch programs; there is no allowlist to clear (see :func:`add_safe_globals`)."""


def get_safe_globals() -> list:
    """An empty list: numgrad's format holds no pickled objects, so :func:`load` constructs no
    classes and none need allowing."""
    return []


class safe_globals:
    """A context manager accepted for PyTorch programs; it changes nothing, as :func:`load` never
    unpickles (see :func:`add_safe_globals`)."""

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False
