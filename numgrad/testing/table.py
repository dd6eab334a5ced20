"""The op table: every family's rows in one list, and the lookup by row id."""
from .rows import activations, attention, composites, conv, elementwise, linalg, losses, movement, nn
from .rows import namespace, normalization, recurrent, reductions, sampling, special

# Tests are parametrized over the rows in this order: a new row goes at the end of its family's
# list, and a new family at the end of the table.
OP_DB: list = [
    *elementwise.ROWS,
    *reductions.ROWS,
    *movement.ROWS,
    *linalg.ROWS,
    *activations.ROWS,
    *elementwise.MORE_MATH_ROWS,
    *activations.MORE_ROWS,
    *special.ROWS,
    *composites.ROWS,
    *nn.ROWS,
    *conv.ROWS,
    *sampling.ROWS,
    *normalization.ROWS,
    *losses.ROWS,
    *recurrent.ROWS,
    *attention.ROWS,
    *namespace.ROWS,
]


def op_db_by_id() -> dict:
    """The table as ``{row id: OpInfo}`` (ids are ``name`` or ``name.variant``)."""
    return {info.id: info for info in OP_DB}
