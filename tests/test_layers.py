"""The package's layers: every import, at the top of a module or inside a function, goes from a
higher layer to a lower one (or stays within its layer).

numgrad's layers, lowest first (docs/architecture.md says what each holds):
base (dtypes, shapes, devices, grad modes, the op record) -> backends (arrays in, arrays out) ->
storage -> tensor -> tape (recording, forward-mode tangents) -> ops (declarations, dispatchers,
factories) -> engine (backward, func, vmap) -> library (nn, optim, utils, serialization, testing,
the Tensor methods' binder, the package's namespace).

No import reaches up. ``LARGEST_CYCLE`` is the size of the largest import cycle: it may only
shrink (the test fails when it shrinks without the number being lowered, so it stays exact).
"""
import ast
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "numgrad")

LAYERS = [
    ("base", ["numgrad.names", "numgrad.dtypes", "numgrad.shapes", "numgrad.devices", "numgrad.layouts", "numgrad.memo",
              "numgrad.return_types", "numgrad.autograd.grad_mode", "numgrad.autograd.profiler",
              "numgrad.autograd.autocast_state",
              "numgrad.ops.records", "numgrad.ops.scalar_math"]),
    ("backends", ["numgrad.backends"]),
    ("storage", ["numgrad.storage"]),
    ("tensor", ["numgrad.tensor"]),
    ("tape", ["numgrad.autograd.tape", "numgrad.autograd.nodes", "numgrad.autograd.saving",
              "numgrad.autograd.forward_ad", "numgrad.autograd.inplace", "numgrad.autograd.rule_reads",
              "numgrad.autograd.variable"]),
    ("ops", ["numgrad.ops", "numgrad.creation", "numgrad.random", "numgrad.printing", "numgrad.legacy",
             "numgrad.typed_storage", "numgrad.linalg", "numgrad.special", "numgrad.cuda"]),
    ("engine", ["numgrad.autograd", "numgrad.func", "numgrad.batched"]),
    ("library", ["numgrad.nn", "numgrad.compiler", "numgrad.optim", "numgrad.utils", "numgrad.serialization", "numgrad.testing",
                 "numgrad"]),
]

LARGEST_CYCLE = 3


def _modules() -> dict:
    """Module name -> the numgrad modules it imports (any import statement in the file)."""
    paths = {}
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
                paths[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = path
    imports = {}
    for name, path in paths.items():
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                # ``from package import name`` imports the submodule ``name`` where there is one.
                found = [base + "." + a.name if base + "." + a.name in paths else base for a in node.names]
            else:
                continue
            for target in found:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        imports[name] = targets
    return imports


def _layer(module: str) -> int:
    best, length = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > length:
                best, length = i, len(p)
    return best


def _largest_cycle(imports: dict) -> list:
    """The largest strongly connected component of the import graph (Tarjan's algorithm)."""
    index, low, stack, on_stack, best = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in imports.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > len(best):
                best[:] = component

    for v in sorted(imports):
        if v not in index:
            visit(v)
    return sorted(best) if len(best) > 1 else []


@pytest.fixture(scope="module")
def imports():
    return _modules()


def test_every_module_has_a_layer(imports):
    assert [m for m in imports if _layer(m) is None] == []


def test_no_import_reaches_up(imports):
    upward = {(m, t) for m, targets in imports.items() for t in targets if _layer(t) > _layer(m)}
    assert sorted(upward) == [], "imports from a lower layer to a higher one"


def test_import_cycles_only_shrink(imports):
    cycle = _largest_cycle(imports)
    assert len(cycle) <= LARGEST_CYCLE, cycle
    assert len(cycle) == LARGEST_CYCLE, f"the largest cycle shrank to {len(cycle)}: lower LARGEST_CYCLE"


def test_the_package_never_imports_itself_by_name():
    # Inside numgrad, imports are relative: ``import numgrad`` would load the public namespace,
    # the top layer, from anywhere below it. The op table, itself on the top layer, names ops
    # by their public names.
    found = []
    for folder, _, files in os.walk(PACKAGE):
        if os.path.relpath(folder, PACKAGE).split(os.sep)[0] == "testing":
            continue
        for f in files:
            if folder == PACKAGE and f == "testing.py":
                continue
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                    names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                             [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
                    if any(n == "numgrad" or n.startswith("numgrad.") for n in names):
                        found.append(f"{os.path.relpath(path, PACKAGE)}:{node.lineno}")
    assert found == []
