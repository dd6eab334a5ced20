"""What a derivative rule reads of its arguments, derived once from the rule's source.

A node saves only what its rules read: an input they never touch is not kept alive, and one they
only ask for ``x.shape`` (or dtype, device, ...) is kept as metadata without its data. The answer
comes from the rule's syntax tree, which is the same on every Python version.
"""
from __future__ import annotations

import ast
import inspect
import linecache

from ..memo import Memo

FULL, META, NONE = 2, 1, 0

# Attributes and methods that read only a tensor's geometry, never its elements.
META_ATTRS = frozenset({"shape", "dtype", "device", "ndim", "_shape", "_strides", "_offset", "size",
                        "stride", "dim", "numel", "is_floating_point", "storage_offset"})

_FUNCTION_NODES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)
_indexes = Memo()


def argument_reads(fn, first: int, nargs: int) -> list:
    """How ``fn`` uses its positional args ``first .. first+nargs-1``: ``NONE``, ``META`` (only
    their geometry) or ``FULL``. Callables whose source cannot be found are assumed to read all."""
    code = getattr(fn, "__code__", None)
    nodes = _definitions(code) if code is not None else ()
    if not nodes:
        return [FULL] * nargs
    # Several nodes only where the compiler's output cannot be paired with the source: reading
    # what any of them reads saves more than needed, never less.
    return [max(levels) for levels in zip(*(_reads_of(n, first, nargs) for n in nodes))]


def _reads_of(node, first: int, nargs: int) -> list:
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    star = args.vararg.arg if args.vararg is not None else None
    levels = _name_levels(node)
    out = []
    for i in range(first, first + nargs):
        if i < len(positional):
            out.append(levels.get(positional[i], NONE))
        else:
            out.append(FULL if levels.get(star, NONE) else NONE)
    return out


def _name_levels(fn_node) -> dict:
    """For each name in ``fn_node``'s body, the strongest way it is read."""
    levels: dict = {}
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]

    def visit(node, nested: bool):
        if isinstance(node, ast.Name):
            # Any other use, including capture by an inner function or rebinding, counts as a full
            # read: what a closure does with the value is not followed.
            levels[node.id] = FULL
            return
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and not nested
                and isinstance(node.value.ctx, ast.Load) and node.attr in META_ATTRS):
            name = node.value.id
            levels[name] = max(levels.get(name, NONE), META)
            return
        inner = nested or isinstance(node, _FUNCTION_NODES + (ast.ListComp, ast.SetComp, ast.DictComp,
                                                              ast.GeneratorExp, ast.ClassDef))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    for stmt in body:
        visit(stmt, False)
    return levels


def _definitions(code) -> list:
    """The syntax-tree nodes that may have compiled to ``code``: one, unless its source is ambiguous;
    none when the source is missing or is no longer what was compiled (edited since)."""
    index = _source_index(code.co_filename)
    if index is None:
        return []
    nodes_by_line, codes_by_line = index
    line, signature = code.co_firstlineno, _code_signature(code)
    codes = [k for k in codes_by_line.get(line, ()) if _code_signature(k) == signature]
    if code not in codes:
        return []
    # Identical definitions read alike (and 3.10 compiles them to one shared code object).
    unique = {ast.dump(n): n for n in reversed(nodes_by_line.get(line, ())) if _node_signature(n) == signature}
    nodes = sorted(unique.values(), key=lambda n: (n.lineno, n.col_offset))
    if len(nodes) < 2:
        return nodes
    # Look-alike definitions share the line: pair the line's code objects, in the order the
    # compiler emitted them, with its definitions in source order. A count that differs (code
    # the compiler dropped) leaves them all as candidates.
    if len(codes) != len(nodes):
        return nodes
    return [n for n, k in zip(nodes, codes) if k == code] or nodes


def _source_index(filename: str):
    """``filename``'s function definitions and the code objects they compile to, by first line."""
    cached = _indexes.get(filename)
    if cached is not None:
        return cached or None
    index = False
    source = "".join(linecache.getlines(filename))
    if source:
        try:
            tree = ast.parse(source, filename)
            module = compile(source, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            nodes: dict = {}
            for node in ast.walk(tree):
                if isinstance(node, _FUNCTION_NODES):
                    decorators = getattr(node, "decorator_list", ())
                    first = min([node.lineno] + [d.lineno for d in decorators])
                    nodes.setdefault(first, []).append(node)
            for group in nodes.values():
                group.sort(key=lambda n: (n.lineno, n.col_offset))
            codes: dict = {}
            _collect_codes(module, codes)
            index = (nodes, codes)
    _indexes[filename] = index
    return index or None


def _collect_codes(code, out: dict):
    for const in code.co_consts:
        if hasattr(const, "co_firstlineno"):
            out.setdefault(const.co_firstlineno, []).append(const)
            _collect_codes(const, out)


def _node_signature(node) -> tuple:
    args = node.args
    names = tuple(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)
    return ("<lambda>" if isinstance(node, ast.Lambda) else node.name, names,
            args.vararg is not None, args.kwarg is not None)


def _code_signature(code) -> tuple:
    count = code.co_argcount + code.co_kwonlyargcount
    return (code.co_name, code.co_varnames[:count], bool(code.co_flags & inspect.CO_VARARGS),
            bool(code.co_flags & inspect.CO_VARKEYWORDS))
