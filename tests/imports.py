"""The import graph of src/, read from the code with ``ast`` (nothing is imported): which
project modules each module imports, at module level or inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    """Every module under src/ by dotted name (a package by its ``__init__.py``)."""
    return {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports anywhere in the file; ``from a import b`` counts
    as importing ``a.b`` when that is a module, else ``a``; relative imports are resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in modules else base)
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(path, modules) for name, path in modules.items()}


def closure(entries: list[str]) -> set[str]:
    """Every module that importing ``entries`` runs: their imports, transitively, and the
    ``__init__`` of every package on the way (importing ``a.b.c`` runs ``a`` and ``a.b``)."""
    modules = all_modules()
    seen: set[str] = set()
    todo = list(entries)
    while todo:
        parts = todo.pop().split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            if name in modules and name not in seen:
                seen.add(name)
                todo.extend(imports_of(modules[name], modules))
    return seen
