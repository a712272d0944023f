"""Composed configs kept between sweeps: a resumed sweep does not ask Hydra again for a
composition it already made (Hydra's compose costs about 0.1 s; a sweep makes one per set of
jobs that differ only in a member's own values, :mod:`roundlab.sweep.decide`).

An entry is the *unresolved* composed config (``OmegaConf.to_yaml``, without the ``hydra``
node: interpolations, ``$MLFLOW_TRACKING_URI`` and the like are resolved fresh by whoever reads
it), stored atomically as ``<dir>/<context>/<key>.yaml`` under the sweep directory (not under
results/, which DVC tracks), with the SHA-256 of its text on its first line.

- ``context`` = SHA-256 of everything a composition depends on besides its overrides: the
  path and bytes of every file under the config directory (``roundlab/conf/``), the path and
  bytes of the package modules that register the structured configs (``roundlab.run.config``
  and every module it imports, through the static import graph of
  :mod:`roundlab.run.code_scope`), the versions of Python, omegaconf, the ANTLR runtime and
  every installed ``hydra*`` distribution (hydra-core and its plugins). Only one context is
  kept: entries of another are removed when the first entry of a new one is written.
- ``key`` = SHA-256 of the override list, in order.

A list with a Hydra override (``hydra.searchpath`` adds config directories the context does
not cover) is never cached. An entry that is missing, unreadable, or whose text does not match
its recorded hash is a miss: the caller composes. Nothing here decides whether a stored config
is faithful; :mod:`roundlab.sweep.decide` stores one only when what it derives from it equals
what it derives from the fresh composition.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

import roundlab.run.config  # noqa: F401  (loaded before _IMPORTED_AT, which dates it)
from roundlab import paths
from roundlab.run.code_scope import _imports
from roundlab.run.config import to_yaml

DIRECTORY = ".compose-cache"  # under the sweep directory
CONFIG_MODULE = "roundlab.run.config"
PACKAGE_DIR = Path(__file__).resolve().parents[1]
_VERSIONED = ("omegaconf", "antlr4-python3-runtime")
_IMPORTED_AT = time.time()


class ComposeCache:
    """The cache in ``directory`` for the config directory ``conf_dir``."""

    def __init__(self, directory: Path, conf_dir: Path | None = None) -> None:
        self.directory = Path(directory)
        self.conf_dir = Path(conf_dir or paths.CONF_DIR)

    @functools.cached_property
    def context(self) -> str:
        return context_hash(self.conf_dir)

    def _path(self, overrides: Sequence[str]) -> Path:
        return self.directory / self.context / f"{_sha256(json.dumps(list(overrides)))}.yaml"

    def lookup(self, overrides: Sequence[str]) -> DictConfig | None:
        """The stored composition of ``overrides`` (struct mode, as Hydra returns it), or None."""
        if not cacheable(overrides):
            return None
        try:
            recorded, _, text = self._path(overrides).read_text().partition("\n")
            if recorded != f"# sha256 {_sha256(text)}":
                return None
            return from_text(text)
        except Exception:  # unreadable, or not YAML omegaconf takes: the caller composes
            return None

    def current(self) -> str:
        """The context as the files are now (call it before composing, for :meth:`store`)."""
        return context_hash(self.conf_dir)

    def store(self, overrides: Sequence[str], raw: DictConfig, before: str) -> None:
        """Keep ``raw`` (unresolved, without its ``hydra`` node) for ``overrides``, composed
        when the context was ``before`` (:meth:`current`); a cache that cannot be written only
        costs the next sweep a composition. Kept only when the context is the same before the
        composition, after it and at the sweep's first lookup: a config file edited meanwhile
        (and perhaps reverted since) must not leave its composition under another context."""
        if not cacheable(overrides) or not before == self.current() == self.context:
            return
        path = self._path(overrides)
        text = to_text(raw)
        try:
            if not path.parent.is_dir():
                for old in self.directory.glob("*"):
                    if old.is_dir() and old.name != self.context:
                        shutil.rmtree(old, ignore_errors=True)
                path.parent.mkdir(parents=True, exist_ok=True)
            paths.atomic_write(path, f"# sha256 {_sha256(text)}\n{text}")
        except OSError:
            pass


def cacheable(overrides: Sequence[str]) -> bool:
    """No override of Hydra's own settings (a search path adds config files)."""
    return not any(o.lstrip("+~").startswith("hydra") for o in overrides)


def to_text(raw: DictConfig) -> str:
    return to_yaml(raw)


def from_text(text: str) -> DictConfig:
    """The config stored as ``text``, in struct mode like Hydra's (an unknown key is refused)."""
    cfg = OmegaConf.create(text)
    if not isinstance(cfg, DictConfig):
        raise ValueError(f"a stored config must be a mapping. Received: {type(cfg).__name__}")
    OmegaConf.set_struct(cfg, True)
    return cfg


def context_hash(conf_dir: Path) -> str:
    """SHA-256 of what a composition depends on besides its overrides (module docstring); a
    context of its own, matching no other, when a config module's file changed after this
    process imported it (the composition uses the module in memory, not the file)."""
    digest = hashlib.sha256()
    if any(_file(module).stat().st_mtime > _IMPORTED_AT for module in config_modules()):
        return f"edited-since-import-{time.time_ns()}"
    for file in sorted(p for p in conf_dir.rglob("*") if p.is_file()):
        if "__pycache__" not in file.parts:
            digest.update(b"conf/" + file.relative_to(conf_dir).as_posix().encode() + b"\0")
            digest.update(file.read_bytes() + b"\0")
    for module in config_modules():
        file = _file(module)
        digest.update(module.encode() + b"\0" + file.read_bytes() + b"\0")
    versions = {name: metadata.version(name) for name in _VERSIONED}
    versions |= {
        d.metadata["Name"]: d.version
        for d in metadata.distributions()
        if (d.metadata["Name"] or "").lower().startswith("hydra")
    }
    digest.update(json.dumps([sys.version, sorted(versions.items())]).encode())
    return digest.hexdigest()


@functools.cache
def config_modules() -> tuple[str, ...]:
    """``roundlab.run.config`` and every package module it imports, directly or not."""
    seen: set[str] = set()
    todo = [CONFIG_MODULE]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_imports(PACKAGE_DIR, module))
    return tuple(sorted(seen))


def _file(module: str) -> Path:
    path = PACKAGE_DIR.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
