"""The pipeline's datasets as params.yaml lists them: one entry per dataset, by value.

::

    datasets:
      affine: {}                                   # conf/dataset/affine.yaml as it is
      fair: {path: inputs/fair.csv, label: rate_marriage}
      big_affine: {config: affine, n_train: 6000}

An entry's key names the dataset (``data/<name>/``, ``results/<name>/``); ``config`` names the
dataset config it starts from: by default the config of the same name when there is one, else
``csv``; every other key overrides one of that config's keys. A user's CSV is therefore one
entry, with no config file and no dvc.yaml edit. The older form, a list of config names, means
the same as entries without keys.

The entry becomes overrides of its config (``dataset=csv dataset.name=fair dataset.path=…``
in a job): the generate stage composes data/<name>/ from them and every job of the sweep
composes the same config (the profile's ``dataset_overrides`` lead with them), so both agree on
what the data is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from roundlab import paths
from roundlab.runs import check_name

CONFIG_KEY = "config"
# The generator of a dataset entry that names no config of its own: a user's file.
DEFAULT_CONFIG = "csv"
CSV_PATHS = {"path", "train_path", "test_path"}
# Read the same way by Hydra's override grammar and by YAML only without these.
UNSAFE = ("'", "\\", "${")


@dataclass(frozen=True)
class Entry:
    """One dataset of params.yaml: its ``name``, the ``config`` it starts from and the
    ``key=value`` overrides of that config's keys (``name=…`` first when the two differ)."""

    name: str
    config: str
    overrides: tuple[str, ...] = ()


def parse(raw: Any, conf_dir: Path | None = None) -> dict[str, Entry]:
    """The entries of params.yaml's ``datasets`` (a mapping of entries, or a list of config
    names), in their order; a ValueError names the entry and what it received."""
    if raw is None:
        return {}
    if isinstance(raw, list):
        return {str(name): Entry(str(name), str(name)) for name in raw}
    if not isinstance(raw, dict):
        raise ValueError(
            "params.yaml `datasets` must map dataset names to their keys "
            f"(e.g. fair: {{path: inputs/fair.csv, label: y}}). Received: datasets={raw!r}"
        )
    known = config_names(conf_dir)
    return {str(name): _entry(str(name), keys, known) for name, keys in raw.items()}


def load(params_file: Path) -> dict[str, Entry]:
    """The entries of ``params_file`` (none when it does not exist)."""
    params_file = Path(params_file)
    if not params_file.is_file():
        return {}
    return parse((yaml.safe_load(params_file.read_text()) or {}).get("datasets"))


def _entry(name: str, keys: Any, known: set[str]) -> Entry:
    check_name(name, "params.yaml datasets")
    if keys is None:
        keys = {}
    if not isinstance(keys, dict):
        raise ValueError(
            f"params.yaml datasets.{name} must be a mapping of the dataset's keys "
            f"(or {{}}). Received: {keys!r}"
        )
    keys = dict(keys)
    if CONFIG_KEY not in keys and name not in known and not keys.keys() & CSV_PATHS:
        raise ValueError(
            f"params.yaml datasets.{name} must name a dataset config {sorted(known)} (its key "
            "or `config`) or be a CSV file (path, or train_path and test_path, and label). "
            f"Received: {keys!r}"
        )
    config = str(keys.pop(CONFIG_KEY, name if name in known else DEFAULT_CONFIG))
    if config not in known:
        raise ValueError(
            f"params.yaml datasets.{name}.config must name a dataset config {sorted(known)}. "
            f"Received: config={config!r}"
        )
    keys.pop("name", None)  # the entry's key is the name
    named = () if config == name else (f"name={name}",)
    return Entry(name, config, (*named, *(f"{k}={_value(k, v)}" for k, v in keys.items())))


def _value(key: str, value: Any) -> str:
    """A value in Hydra's override grammar: strings quoted (a path may hold a comma, which
    would otherwise start a sweep), lists and numbers as JSON. A string with a quote, a
    backslash or ``${`` is refused: Hydra and YAML would read it differently (or interpolate
    it)."""
    if isinstance(value, str):
        if any(u in value for u in UNSAFE):
            raise ValueError(
                f"params.yaml dataset keys must not hold a quote, a backslash or '${{' "
                f"(rename the file). Received: {key}={value!r}"
            )
        return f"'{value}'"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ",".join(_value(key, v) for v in value) + "]"
    return json.dumps(value)


def config_names(conf_dir: Path | None = None) -> set[str]:
    """The dataset configs (``conf/dataset/<name>.yaml``) an entry may start from."""
    return {p.stem for p in (Path(conf_dir or paths.CONF_DIR) / "dataset").glob("*.yaml")}
