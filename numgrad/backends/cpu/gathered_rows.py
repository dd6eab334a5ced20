"""Table rows picked by a list of row numbers: prefetching them, and summing them in LLVM vector
code.

An embedding bag adds up rows that lie anywhere in its table. A Numba loop over a row keeps the
running sum in memory and checks, for every row, that the sum does not overlap the row. Here the
sum of ``_BLOCKS`` vectors of a row's columns stays in registers while the whole list is added,
one row after another (each column is the sequential sum, bit for bit, as PyTorch's CPU kernel
adds), and the row a few positions ahead is fetched into the caches meanwhile.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

# How many positions ahead of the row being added the caches are asked for a row.
PREFETCH_DISTANCE = 16
_CACHE_LINE = 64
# One prefetch per two lines: the caches fetch a line's neighbour in its aligned pair with it.
PREFETCH_STEP = 128
# One vector of the widest x86 registers; LLVM splits it where the registers are narrower.
_VECTOR_BYTES = 64
# Vectors of a row summed in one pass over the list: four hold 64 float32 columns.
_BLOCKS = 4
_I32 = ir.IntType(32)


def _prefetch(builder, address):
    """Asks the caches for the line at ``address`` (an i8 pointer): a read (0), to be kept in
    every cache level (3), of data (1)."""
    prefetch = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, _I32, _I32, _I32]), "llvm.prefetch.p0i8")
    builder.call(prefetch, [address, _I32(0), _I32(3), _I32(1)])


def _row_bytes(context, builder, table_type, table_value):
    """``(row_start, width)`` of a 2-D array: ``row_start(r)`` the i8 address of row ``r``."""
    table = context.make_array(table_type)(context, builder, table_value)
    width = cgutils.unpack_tuple(builder, table.shape, 2)[1]
    row_stride = cgutils.unpack_tuple(builder, table.strides, 2)[0]
    data = builder.bitcast(table.data, cgutils.voidptr_t)
    return (lambda r: builder.gep(data, [builder.mul(r, row_stride)])), width


def _reader(context, builder, array_type, array_value, as_type):
    """``(read, length)`` of a contiguous 1-D array: ``read(i)`` its element ``i`` cast to ``as_type``."""
    array = context.make_array(array_type)(context, builder, array_value)

    def read(i):
        return context.cast(builder, builder.load(builder.gep(array.data, [i])), array_type.dtype, as_type)
    return read, cgutils.unpack_tuple(builder, array.shape, 1)[0]


def _splat(builder, value, vector_type):
    """A vector of ``vector_type`` with ``value`` in every lane."""
    one = builder.insert_element(ir.Constant(vector_type, None), value, _I32(0))
    lanes = ir.Constant(ir.VectorType(_I32, vector_type.count), [0] * vector_type.count)
    return builder.shuffle_vector(one, ir.Constant(vector_type, None), lanes)


@intrinsic
def prefetch_row(typingctx, table, r):
    """Hints the CPU to bring row ``r`` of the 2-D ``table`` into its caches, one prefetch per
    cache line of a row with contiguous columns."""
    if not (isinstance(table, types.Array) and table.ndim == 2 and isinstance(r, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        row_start, width = _row_bytes(context, builder, table, args[0])
        start = row_start(context.cast(builder, args[1], r, types.intp))
        itemsize = context.get_abi_sizeof(context.get_data_type(table.dtype))
        nbytes = builder.mul(width, width.type(itemsize))
        with cgutils.for_range_slice(builder, width.type(0), nbytes, width.type(_CACHE_LINE)) as (offset, _):
            _prefetch(builder, builder.gep(start, [offset]))
        return context.get_dummy_value()
    return types.none(table, r), codegen


@intrinsic
def sum_rows(typingctx, dest, table, rows, start, stop, skip, scales):
    """``dest`` = the sum, in order, of the rows ``rows[start:stop]`` of ``table`` other than
    those numbered ``skip``, each times ``scales`` at its position unless ``scales`` is None.
    ``dest`` and ``table`` are float32 or float64 alike; ``dest``, ``rows``, ``scales`` and the
    table's columns are contiguous, and every row number is a row of the table: nothing here
    checks the numbers."""
    floats = (types.float32, types.float64)
    if not (isinstance(table, types.Array) and table.ndim == 2 and table.dtype in floats
            and isinstance(dest, types.Array) and dest.ndim == 1 and dest.layout == "C"
            and dest.dtype == table.dtype
            and isinstance(rows, types.Array) and rows.ndim == 1 and rows.layout == "C"
            and isinstance(rows.dtype, types.Integer)
            and (isinstance(scales, types.NoneType)
                 or isinstance(scales, types.Array) and scales.ndim == 1 and scales.layout == "C"
                 and scales.dtype == table.dtype)):
        return None

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        element = context.get_data_type(table.dtype)
        itemsize = context.get_abi_sizeof(element)
        lanes = _VECTOR_BYTES // itemsize
        vector = ir.VectorType(element, lanes)
        mask_type = ir.VectorType(ir.IntType(1), lanes)
        # Masked loads and stores never touch the lanes left out: the last row may end a page.
        # Named for the pointer types as llvmlite writes them; LLVM renames for opaque pointers.
        suffix = f"v{lanes}f{8 * itemsize}.p0v{lanes}f{8 * itemsize}"
        masked_load = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vector, [vector.as_pointer(), _I32, mask_type, vector]),
            "llvm.masked.load." + suffix)
        masked_store = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [vector, vector.as_pointer(), _I32, mask_type]),
            "llvm.masked.store." + suffix)
        dest_data = builder.bitcast(context.make_array(dest)(context, builder, args[0]).data, cgutils.voidptr_t)
        row_start, width = _row_bytes(context, builder, table, args[1])
        row_at, n = _reader(context, builder, rows, args[2], types.intp)
        scale_at = None if isinstance(scales, types.NoneType) else _reader(context, builder, scales, args[6],
                                                                            table.dtype)[0]
        first, stop_at, skipped = (context.cast(builder, value, kind, types.intp)
                                   for value, kind in zip(args[3:6], (start, stop, skip)))

        def add_rows(column, count, mask):
            """``dest`` from ``column`` on, ``count`` vectors of it, the last one masked by
            ``mask`` unless it is None."""
            offset = builder.mul(column, intp(itemsize))
            sums = [cgutils.alloca_once_value(builder, ir.Constant(vector, None)) for _ in range(count)]
            last = [None] * (count - 1) + [mask]

            with cgutils.for_range_slice(builder, first, stop_at, intp(1)) as (i, _):
                ahead = builder.add(i, intp(PREFETCH_DISTANCE))
                with builder.if_then(builder.icmp_signed("<", ahead, n), likely=True):
                    ahead_columns = builder.gep(row_start(row_at(ahead)), [offset])
                    for line in range(0, count * _VECTOR_BYTES, PREFETCH_STEP):
                        _prefetch(builder, builder.gep(ahead_columns, [intp(line)]))
                row = row_at(i)
                with builder.if_then(builder.icmp_signed("!=", row, skipped)):
                    row_columns = builder.gep(row_start(row), [offset])
                    scale = None if scale_at is None else _splat(builder, scale_at(i), vector)
                    for j, (total, lane_mask) in enumerate(zip(sums, last)):
                        address = builder.bitcast(builder.gep(row_columns, [intp(j * _VECTOR_BYTES)]),
                                                  vector.as_pointer())
                        if lane_mask is None:
                            term = builder.load(address, align=itemsize)
                        else:
                            term = builder.call(masked_load, [address, _I32(itemsize), lane_mask,
                                                              ir.Constant(vector, None)])
                        if scale is not None:
                            term = builder.fmul(scale, term)
                        builder.store(builder.fadd(builder.load(total), term), total)
            for j, (total, lane_mask) in enumerate(zip(sums, last)):
                address = builder.bitcast(builder.gep(dest_data, [builder.add(offset, intp(j * _VECTOR_BYTES))]),
                                          vector.as_pointer())
                if lane_mask is None:
                    builder.store(builder.load(total), address, align=itemsize)
                else:
                    builder.call(masked_store, [builder.load(total), address, _I32(itemsize), lane_mask])

        step = lanes * _BLOCKS
        whole = builder.mul(builder.sdiv(width, intp(step)), intp(step))
        with cgutils.for_range_slice(builder, intp(0), whole, intp(step)) as (column, _):
            add_rows(column, _BLOCKS, None)
        # The columns after the whole passes: one pass of as many vectors as they fill, the last
        # of them masked to the columns that are left.
        rest = builder.sub(width, whole)
        count = builder.sdiv(builder.add(rest, intp(lanes - 1)), intp(lanes))
        in_last = builder.sub(rest, builder.mul(builder.sub(count, intp(1)), intp(lanes)))
        lane_numbers = ir.Constant(ir.VectorType(intp, lanes), list(range(lanes)))
        mask = builder.icmp_signed("<", lane_numbers, _splat(builder, in_last, ir.VectorType(intp, lanes)))
        done = builder.append_basic_block("rest.done")
        choose = builder.switch(count, done)
        for vectors in range(1, _BLOCKS + 1):
            case = builder.append_basic_block(f"rest.{vectors}")
            choose.add_case(intp(vectors), case)
            builder.position_at_end(case)
            add_rows(whole, vectors, mask)
            builder.branch(done)
        builder.position_at_end(done)
        return context.get_dummy_value()
    return types.none(dest, table, rows, start, stop, skip, scales), codegen
