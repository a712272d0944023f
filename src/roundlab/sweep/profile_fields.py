"""Strictly typed fields of a profile: a boolean is ``true`` or ``false``, an integer is an
integer, a list is a list of its kind. YAML gives ``"no"`` a string and ``0.7`` a float, and
``bool("no")`` is True and ``int(0.7)`` is 0: converting would run what the profile does not
say, so a value of the wrong type is refused with the key and the value received.

Overrides are checked for the keys that decide where files go: the names that become result
directories (against :data:`roundlab.runs.SAFE_NAME`), and ``results_dir`` and ``hydra.*``,
which the sweep sets for every multirun.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from roundlab.errors import ConfigError
from roundlab.runs import check_name

# Override keys whose values become result directories (a group's choice, or its `name`).
NAME_KEYS = (
    "dataset",
    "dataset.name",
    "approach",
    "approach.name",
    "approach.method",
    "activation",
    "activation.name",
)
_ABSENT = object()
# Launchers that submit stacked groups as jobs; only they take `launcher_options`.
SUBMITIT_LAUNCHERS = ("vectorized_submitit_local", "vectorized_submitit_slurm")


def boolean(profile: str, raw: Mapping[str, Any], key: str, default: bool) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        _fail(profile, key, value, "must be true or false")
    return value


def integer(profile: str, raw: Mapping[str, Any], key: str, default: int) -> int:
    """An integer >= 1 (True and 1.0 are not integers here)."""
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        _fail(profile, key, value, "must be an integer >= 1")
    return value


def count(profile: str, raw: Mapping[str, Any], key: str, default: int) -> int:
    """An integer >= 0 (True and 1.0 are not integers here)."""
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        _fail(profile, key, value, "must be an integer >= 0")
    return value


def seeds(profile: str, raw: Mapping[str, Any]) -> tuple[int, ...]:
    value = raw.get("seeds", _ABSENT)
    good = (
        isinstance(value, list)
        and value
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)
        and len(set(value)) == len(value)
    )
    if not good:
        _fail(profile, "seeds", None if value is _ABSENT else value, _SEEDS_RULE)
    return tuple(value)


_SEEDS_RULE = "must be distinct integers >= 0, at least one, in a list"


def names(
    profile: str, raw: Mapping[str, Any], key: str, default: tuple[str, ...]
) -> tuple[str, ...]:
    """A list of names that become directories (datasets, approaches)."""
    value = raw.get(key, list(default))
    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        _fail(profile, key, value, "must be a list of names")
    for name in value:
        check_name(name, f"profiles.{profile}.{key}")
    return tuple(value)


def number(value: Any) -> float | None:
    """A finite number as a float; None for anything else. A string that reads as a number
    counts: PyYAML reads ``1e-3`` (no decimal point) as a string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def overrides(profile: str, key: str, value: Any, prefix: str = "") -> tuple[str, ...]:
    """A list of Hydra overrides (``key=value`` strings); ``prefix`` is what the sweep puts
    before each (``dataset.`` for a dataset's own overrides)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(o, str) for o in value):
        _fail(profile, key, value, "must be a list of overrides (key=value strings)")
    for text in value:
        check_override(f"profiles.{profile}.{key}", prefix + text)
    return tuple(value)


def check_override(where: str, text: str) -> None:
    """Refuse an override that would send files elsewhere: an unsafe name, or a key the sweep
    sets itself (``results_dir``, ``hydra.*``)."""
    key, _, value = text.partition("=")
    key = key.lstrip("+~").split("@")[0].strip()
    sweep_keys = ("results_dir", "sweep.only", "sweep.jobs", "sweep.queue")
    if key in sweep_keys or key.startswith(("hydra.", "hydra/")):
        raise ConfigError(
            f"{where} must not set {key}: the sweep sets where every multirun writes. "
            f"Received: {text!r}"
        )
    if key in NAME_KEYS:
        check_name(value.strip().strip("'\""), f"{where}: {key}")


def _fail(profile: str, key: str, value: Any, rule: str) -> None:
    raise ConfigError(f"profiles.{profile}.{key} {rule}. Received: {key}={value!r}")


def launcher_options(profile: str, raw: Mapping[str, Any], launcher: str) -> tuple[str, ...]:
    """``launcher_options`` (a mapping of ``hydra.launcher`` keys to values: a string, number,
    boolean or list of strings) as overrides; for a submitit launcher only, as the other
    launchers have nothing to set there."""
    value = raw.get("launcher_options")
    if value is None:
        return ()
    if launcher not in SUBMITIT_LAUNCHERS:
        _fail(profile, "launcher_options", value, f"goes with launcher: {SUBMITIT_LAUNCHERS}")
    if not isinstance(value, dict):
        _fail(profile, "launcher_options", value, "must map launcher keys to values")
    return tuple(f"hydra.launcher.{k}={_option(profile, k, v)}" for k, v in value.items())


def _option(profile: str, key: Any, value: Any) -> str:
    """A value in Hydra's override syntax; strings are quoted, so none may hold a quote."""
    where = f"launcher_options.{key}"
    if not isinstance(key, str) or not key.isidentifier():
        _fail(profile, "launcher_options", key, "must have keys that are plain names")
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) and not set(v) & set("'\\\"") for v in items):
        _fail(profile, where, value, "must be a number, boolean, or string(s) without quotes")
    quoted = [f"'{v}'" for v in items]
    return f"[{','.join(quoted)}]" if isinstance(value, list) else quoted[0]
