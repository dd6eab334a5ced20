"""Packed and padded sequences for the recurrent layers.

A packed sequence stores a batch of variable-length sequences time step by time step: the rows
of step ``t`` are the ``batch_sizes[t]`` sequences still running, longest first, so that a
recurrent layer only computes what exists. Everything here is composed of numgrad ops, so
gradients flow from packed data back to the padded tensors or the sequences it came from.
"""
from __future__ import annotations

from collections import namedtuple

from ... import creation, dtypes
from ...ops.movement import cat, stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    order = [0] * permutation.shape[0]
    for i, p in enumerate(permutation.tolist()):
        order[p] = i
    return creation.tensor(order, dtype=dtypes.int64, device=permutation.device)


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """PackedSequence(data, batch_sizes, sorted_indices=None, unsorted_indices=None)

    A batch of variable-length sequences packed time step by time step: ``data`` holds the rows
    of every step, ``batch_sizes[t]`` how many sequences step ``t`` holds, ``sorted_indices`` the
    batch order the packing used (None when the batch came sorted) and ``unsorted_indices`` its
    inverse. Build one with :func:`pack_padded_sequence` or :func:`pack_sequence`."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packing with ``data`` moved or cast as ``Tensor.to`` does (the indices follow
        its device)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        sorted_indices = None if self.sorted_indices is None else self.sorted_indices.to(device)
        unsorted_indices = None if self.unsorted_indices is None else self.unsorted_indices.to(device)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        return self.to("cuda" if not args else args[0], **kwargs)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=dtypes.float64)

    def float(self):
        return self.to(dtype=dtypes.float32)

    def half(self):
        return self.to(dtype=dtypes.float16)

    def bfloat16(self):
        return self.to(dtype=dtypes.bfloat16)

    def long(self):
        return self.to(dtype=dtypes.int64)

    def int(self):
        return self.to(dtype=dtypes.int32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def _lengths_list(lengths) -> list:
    if isinstance(lengths, Tensor):
        return [int(n) for n in lengths.tolist()]
    return [int(n) for n in lengths]


def _batch_sizes(lengths: list) -> list:
    """How many of the (longest-first) sequences reach each time step."""
    sizes, count = [], len(lengths)
    for t in range(lengths[0] if lengths else 0):
        while count and lengths[count - 1] <= t:
            count -= 1
        sizes.append(count)
    return sizes


def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True) -> PackedSequence

    Packs a padded batch, (T, B, *) or (B, T, *) with ``batch_first``, whose sequence ``b`` is
    ``lengths[b]`` long. With ``enforce_sorted=False`` the batch may come in any order: it is
    sorted by decreasing length and the order is kept in ``sorted_indices``."""
    sizes = _lengths_list(lengths)
    if len(sizes) != input.shape[0 if batch_first else 1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(sizes)} "
                           f"(batch_size={input.shape[0 if batch_first else 1]})")
    if enforce_sorted:
        sorted_indices = None
        if any(a < b for a, b in zip(sizes, sizes[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                "requirement if you do not need ONNX exportability.")
    else:
        order = sorted(range(len(sizes)), key=lambda b: -sizes[b])
        sizes = [sizes[b] for b in order]
        sorted_indices = creation.tensor(order, dtype=dtypes.int64, device=input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if sizes and sizes[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    if sizes[0] > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to {sizes[0]}, "
                           f"but got {input.shape[0]}")
    batch_sizes = _batch_sizes(sizes)
    data = cat([input[t, :n] for t, n in enumerate(batch_sizes)], 0)
    return PackedSequence(data, creation.tensor(batch_sizes, dtype=dtypes.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first: bool = False, padding_value: float = 0.0, total_length=None):
    """pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None) -> (Tensor, Tensor)

    The inverse of :func:`pack_padded_sequence`: the padded batch, (T, B, *) or (B, T, *), in
    the batch's original order, and each sequence's length (an int64 tensor). ``total_length``
    pads to that many steps instead of the longest sequence's."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in "
                             f"input, but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = batch_sizes[0] if batch_sizes else 0
    rows, start = [], 0
    for n in batch_sizes:
        step = data[start:start + n]
        start += n
        if n < batch:
            step = cat([step, data.new_full((batch - n,) + tuple(data.shape[1:]), padding_value)], 0)
        rows.append(step)
    padded = stack(rows, 0)
    if steps > len(batch_sizes):
        fill = data.new_full((steps - len(batch_sizes), batch) + tuple(data.shape[1:]), padding_value)
        padded = cat([padded, fill], 0)
    lengths = [sum(1 for n in batch_sizes if n > b) for b in range(batch)]
    lengths = creation.tensor(lengths, dtype=dtypes.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.to(lengths.device)]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"):
    """pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right') -> Tensor

    Stacks tensors of shapes (L_i, *) into one (T, B, *) tensor, or (B, T, *) with
    ``batch_first``, T the longest L_i; the rest is ``padding_value``, on the ``padding_side``
    ('right' or 'left') of each sequence."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    steps = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = steps - s.shape[0]
        if missing:
            fill = s.new_full((missing,) + tuple(s.shape[1:]), padding_value)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    """unpad_sequence(padded_sequences, lengths, batch_first=False) -> list of Tensors

    The inverse of :func:`pad_sequence`: sequence ``b`` is the first ``lengths[b]`` steps of
    batch entry ``b``."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[b, :n] for b, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """pack_sequence(sequences, enforce_sorted=True) -> PackedSequence

    Packs a list of tensors of shapes (L_i, *), longest first unless ``enforce_sorted=False``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """unpack_sequence(packed_sequences) -> list of Tensors: the inverse of :func:`pack_sequence`."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
