"""A network's ``.keras`` file written again without Keras walking the network each time.

``model.save`` writes three archive members: ``metadata.json``, ``config.json`` (the
network serialised) and ``model.weights.h5``. For the last, Keras walks every attribute of
every layer to find what holds state (``saving_lib._save_state``): for the small networks of
a sweep that walk is two thirds of a save's 30-45 ms, and a stacked group saves the same
network once per member, with other weights loaded. :func:`plan` runs Keras's own walk once,
into a store that writes nothing and keeps, in order, each group Keras creates (its path and
metadata) and each entry it sets (its key and the variable). :func:`write` then writes the
archive as ``saving_lib`` does, its weights file through Keras's own ``H5IOStore`` from that
plan, reading each variable's value at that moment, and its config serialised again (an
activation's parameter lives there).

A plan holds only while it describes the network: :func:`plan` gives None, and the caller
saves with Keras, when the walk sets anything but a variable (a value computed at save time)
or writes assets; :func:`write` gives False, and the caller saves with Keras, when the
network's variables are no longer the planned ones. ``tests/training/test_weights_plan.py``
checks that the archive equals Keras's own member by member (config, metadata keys, every h5
group, attribute and dataset) and loads to the same predictions.
"""

from __future__ import annotations

import datetime
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keras
from keras.src.saving import saving_lib

WEIGHTS_MEMBER = "model.weights.h5"


@dataclass(frozen=True)
class Plan:
    """``steps``: ``(path, metadata, [(key, variable), ...])`` in Keras's order;
    ``variables``: the ids of the network's variables when planned."""

    steps: tuple[tuple[str, dict | None, tuple[tuple[str, Any], ...]], ...]
    variables: tuple[int, ...]


class _Recorder(saving_lib.H5IOStore):
    """A write-mode weights store that writes nothing: it keeps what it was asked to write."""

    def __init__(self) -> None:  # no h5 file: nothing is written
        self.mode = "w"
        self.steps: list[tuple[str, dict | None, list[tuple[str, Any]]]] = []

    def __bool__(self) -> bool:
        return True

    def make(self, path: str, metadata: dict | None = None) -> _Recorder:
        self.steps.append((path, metadata, []))
        return self

    def __setitem__(self, key: str, value: Any) -> None:
        self.steps[-1][2].append((key, value))


def plan(model: keras.Model) -> Plan | None:
    """What saving ``model`` writes into its weights file, by Keras's own walk; None when a
    later save could not replay it (a value that is not a variable, or assets)."""
    recorder = _Recorder()
    assets_store = saving_lib.DiskIOStore("assets", mode="w")  # in a temporary directory
    try:
        saving_lib._save_state(model, recorder, assets_store, "", set())
        wrote_assets = any(Path(assets_store.working_dir).rglob("*"))
    finally:
        assets_store.close()
    entries = [value for _, _, items in recorder.steps for _, value in items]
    if wrote_assets or not all(isinstance(v, keras.Variable) for v in entries):
        return None
    return Plan(
        steps=tuple((p, m, tuple(items)) for p, m, items in recorder.steps),
        variables=tuple(id(v) for v in model.variables),
    )


def write(model: keras.Model, planned: Plan, path: Path) -> bool:
    """Write ``model`` to the ``.keras`` file ``path`` from ``planned``, as ``model.save``
    would; False (nothing written) when the network's variables are not the planned ones."""
    if tuple(id(v) for v in model.variables) != planned.variables:
        return False
    config_json, metadata_json = _serialised(model)
    with open(path, "wb") as file, zipfile.ZipFile(file, "w") as archive:
        with archive.open(saving_lib._METADATA_FILENAME, "w") as member:
            member.write(metadata_json.encode())
        with archive.open(saving_lib._CONFIG_FILENAME, "w") as member:
            member.write(config_json.encode())
        store = saving_lib.H5IOStore(WEIGHTS_MEMBER, archive=archive, mode="w")
        try:
            for inner_path, metadata, items in planned.steps:
                group = store.make(inner_path, metadata=metadata)
                for key, variable in items:
                    group[key] = variable
        finally:
            store.close()
    return True


def _serialised(model: keras.Model) -> tuple[str, str]:
    with saving_lib.ObjectSharingScope():
        config = keras.saving.serialize_keras_object(model)
    metadata = {
        "keras_version": keras.version(),
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    return json.dumps(config), json.dumps(metadata)
