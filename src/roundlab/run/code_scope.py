"""Which files of the package a run's result depends on: the code part of its fingerprint.

The files are found from the package's static import graph, read with ``ast`` (nothing is
imported, so no TensorFlow). A module imports another when any of its ``import roundlab.…`` or
``from roundlab.… import …`` statements names it, at module level or inside a function
(``from a import b`` names ``a`` and, when it is a module, ``a.b``; relative imports are
resolved); every module also imports its package (Python runs a package's ``__init__`` before
its modules); and a module that imports by a computed name (``importlib.import_module``: the
approach catalogue's builders, the data package's lazy exports) imports every module of its
package.

The walk starts from the modules that compute a result, :data:`ROOTS`: ``roundlab.run.job``
(one job's steps: resolve, validate, load, build, fit, record) and
``roundlab.sweep.vectorized`` (a stacked group's ``train_group`` and ``record_member``). It
never enters :data:`EXCLUDED`, code that runs around a result without changing it:

- ``roundlab.tracking``: MLflow receives a copy of what the result file holds.
- ``roundlab.serving``: the model is saved (and loaded by ``predict``) after its metrics are
  computed.
- ``roundlab.sweep`` but :data:`KEPT` (``vectorized`` trains and records a group,
  ``grouping`` decides which jobs share a stacked program and each member's parameter value):
  planning, launching, workers, resume, progress, locks and the Hydra callback decide which
  jobs run, when and where, not what one computes.
- ``roundlab.engine.epoch_log``: the per-epoch log lines of a run started by hand.
- ``roundlab.run.fingerprint`` and this module: they compute the fingerprint; a change to what
  they cover changes the hashes they give.
- ``roundlab.run.config``: the schemas and the composition make the config, and the resolved
  config is hashed itself (a changed default changes it; an edit that changes no config, such
  as a faster composition, retrains nothing).
- ``roundlab.report`` and ``roundlab.study``: they read result files and start the
  pipeline's commands (no root reaches them; listed so that no future import pulls them in).
- every ``__main__``: a command-line entry, never imported by a run.

Per run: the catalogues' edges to the modules that define their entries are followed only for
the entries the run uses. ``roundlab.activations.catalogue`` imports every activation from the
module that defines it (``from roundlab.activations.sigmoid import sigmoid_round``): a run
follows that edge for its output activation (approach ``rounding``) and for a catalogued hidden
activation. ``roundlab.approaches`` imports ``roundlab.approaches.<name>`` by name: a run
follows it for its own approach. So editing ``activations/sigmoid.py`` retrains the
``sigmoid_round`` runs only, and ``approaches/ordinal.py`` the ordinal runs only. A module one of
those defines things with is followed like any other (``gaussian_comb`` imports
``straight_through``), and one that another module imports too (``approaches/poisson.py``,
which the references use) is in every run's files.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

from roundlab import approaches

ROOTS = ("roundlab.run.job", "roundlab.sweep.vectorized")
EXCLUDED = (
    "roundlab.tracking",
    "roundlab.serving",
    "roundlab.sweep",
    "roundlab.engine.epoch_log",
    "roundlab.run.fingerprint",
    "roundlab.run.code_scope",
    # the schemas and composition: what they make is the config, which is hashed itself
    "roundlab.run.config",
    "roundlab.report",
    "roundlab.study",
)
KEPT = ("roundlab.sweep.vectorized", "roundlab.sweep.grouping")
ACTIVATION_CATALOGUE = "roundlab.activations.catalogue"
APPROACH_CATALOGUE = "roundlab.approaches"
_DYNAMIC_IMPORTS = ("import_module", "__import__")


@functools.cache
def code_files(
    package_dir: Path, approach: str | None, activations: tuple[str, ...]
) -> tuple[str, ...]:
    """The files (relative to ``package_dir``, sorted) a run of ``approach`` whose network
    uses the catalogued ``activations`` depends on; ``approach=None`` and no activations give the
    files every run depends on. Cached per process: the code a process runs is the code it
    loaded."""
    defined = activation_modules(package_dir)
    per_entry = {(ACTIVATION_CATALOGUE, m) for m in defined.values()}
    per_entry |= {(APPROACH_CATALOGUE, m) for m in approach_modules(package_dir).values()}
    own = [defined[name] for name in activations if name in defined]
    if approach is not None and approach in approach_modules(package_dir):
        own.append(approach_modules(package_dir)[approach])
    seen: set[str] = set()
    todo = [*ROOTS, *own]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(
            target
            for target in _imports(package_dir, module)
            if not _excluded(target) and (module, target) not in per_entry
        )
    return tuple(sorted(_file(package_dir, m).relative_to(package_dir).as_posix() for m in seen))


@functools.cache
def activation_modules(package_dir: Path) -> dict[str, str]:
    """Activation name -> the module defining it: each name the activation catalogue imports
    from a module of ``roundlab.activations`` that defines it with ``def``."""
    found = {}
    for module, names in _imported_names(package_dir, ACTIVATION_CATALOGUE):
        tree = ast.parse(_file(package_dir, module).read_text())
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        found.update({name: module for name in names if name in functions})
    return found


@functools.cache
def approach_modules(package_dir: Path) -> dict[str, str]:
    """Approach name -> ``roundlab.approaches.<name>``, for the approaches that have a module
    (the network approaches; the references are fitted by the engine)."""
    return {
        name: f"{APPROACH_CATALOGUE}.{name}"
        for name in approaches.names()
        if (package_dir / "approaches" / f"{name}.py").is_file()
    }


def _excluded(module: str) -> bool:
    if module in KEPT:
        return False
    return module.endswith(".__main__") or any(
        module == prefix or module.startswith(prefix + ".") for prefix in EXCLUDED
    )


def _file(package_dir: Path, module: str) -> Path:
    """The file of a module of the package (a package's is its ``__init__.py``)."""
    path = package_dir.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _exists(package_dir: Path, module: str) -> bool:
    return module.split(".")[0] == "roundlab" and _file(package_dir, module).is_file()


def _package(package_dir: Path, module: str) -> str:
    """The package a module's relative imports and computed imports are relative to."""
    is_package = _file(package_dir, module).name == "__init__.py"
    return module if is_package else module.rpartition(".")[0]


@functools.cache
def _imports(package_dir: Path, module: str) -> frozenset[str]:
    """The modules of the package importing ``module`` runs directly (see the module
    docstring for what counts)."""
    package = _package(package_dir, module)
    found = {module.rpartition(".")[0]} if "." in module else set()
    for node in ast.walk(ast.parse(_file(package_dir, module).read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(package, node)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _called_name(node.func) in _DYNAMIC_IMPORTS:
            found.update(_modules_of(package_dir, package))
    return frozenset(m for m in found if m != module and _exists(package_dir, m))


def _absolute(package: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    anchor = parts[: len(parts) - node.level + 1]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _modules_of(package_dir: Path, package: str) -> Iterable[str]:
    folder = _file(package_dir, package).parent
    return (f"{package}.{path.stem}" for path in folder.glob("*.py") if path.stem != "__init__")


def _imported_names(package_dir: Path, module: str) -> Iterable[tuple[str, list[str]]]:
    """(module, names) of each ``from roundlab.… import names`` statement of ``module``."""
    package = _package(package_dir, module)
    tree = ast.parse(_file(package_dir, module).read_text())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = _absolute(package, node)
            if _exists(package_dir, base):
                yield base, [alias.name for alias in node.names]
