"""The package is built in layers: every import in src/ (at module level or inside a function)
goes to a module of the same layer or one below, and no modules import each other in a circle.

The layers, lowest first, are :data:`LAYERS`; ``roundlab/__init__.py`` explains them. Also: no
module is longer than 300 lines, and ``src/roundlab/`` holds at most 12 top-level modules
besides its subpackages.
"""

from __future__ import annotations

import pytest

from imports import SRC, all_modules, graph, module_name

PACKAGE = SRC / "roundlab"

# Lowest first. A name is a subpackage of roundlab, a top-level module, or a top-level package.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "paths", "versions", "metrics", "interruption", "device"),
    ("activations",),
    ("approaches",),
    ("runs", "results"),
    ("data",),
    ("engine",),
    ("serving",),
    ("tracking",),
    ("run",),
    ("sweep",),
    ("report",),
    ("train", "predict", "roundlab", "hydra_plugins", "study"),
]
MAX_LINES = 300
MAX_TOP_LEVEL_MODULES = 12


def layer_of(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if parts[0] == "roundlab" and len(parts) > 1 else parts[0]
    for rank, names in enumerate(LAYERS):
        if key in names:
            return rank
    raise AssertionError(f"{module} belongs to no layer of LAYERS: add it where it fits")


def test_every_module_belongs_to_a_layer():
    for module in all_modules():
        layer_of(module)


def test_no_import_goes_up_a_layer():
    upward = [
        f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
        for a, targets in graph().items()
        for b in sorted(targets)
        if layer_of(b) > layer_of(a)
    ]
    assert not upward, "\n".join(upward)


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
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
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_circles_are_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_modules_import_each_other_in_a_circle():
    assert circles(graph()) == []


def test_the_walk_sees_imports_inside_functions():
    edges = graph()
    # roundlab.tracking.tracker imports the MLflow model module inside a method.
    assert "roundlab.tracking.model" in edges["roundlab.tracking.tracker"]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=module_name)
def test_no_module_is_longer_than_300_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC)} has {lines} lines"


def test_the_package_root_holds_at_most_12_modules():
    top = sorted(p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top
