"""A network saved again from its weights plan (roundlab.serving.weights_plan) is the archive
Keras itself writes, member by member, holding the weights and parameter loaded at that
moment; a plan that no longer describes the network, or a network whose state is not all
variables, is saved by Keras; and Keras's saving code walks a stacked group's network once,
however many of its members are saved."""

import gc
import io
import json
import weakref
import zipfile

import h5py
import keras
import numpy as np
import pytest
from keras.src.saving import saving_lib

from roundlab.run.job import resolve
from roundlab.serving import saved_models, weights_plan
from roundlab.sweep import vectorized


@pytest.fixture
def group(compose):
    cfgs = [
        resolve(compose("approach=rounding", "activation=soft_round", f"activation.alpha={a}"))
        for a in (1.0, 4.0)
    ]
    return vectorized.train_group(cfgs)


def _uncompiled(network):
    return keras.Model(network.input, network.output, name=network.name)


def _contents(path):
    """Everything a .keras archive holds, but the time it was saved."""
    with zipfile.ZipFile(path) as archive:
        metadata = json.loads(archive.read("metadata.json"))
        found = {
            "members": archive.namelist(),
            "config": json.loads(archive.read("config.json")),
            "metadata": {k: v for k, v in metadata.items() if k != "date_saved"},
        }
        weights = h5py.File(io.BytesIO(archive.read("model.weights.h5")))
    items = []

    def visit(name, node):
        data = node[()].tolist() if isinstance(node, h5py.Dataset) else None
        attrs = {k: np.asarray(v).tolist() for k, v in node.attrs.items()}
        items.append((name, type(node).__name__, attrs, data))

    weights.visititems(visit)
    found["weights"] = items
    return found


def _member(group, index):
    vectorized._load_member(group, index, group.weights[index])
    return group.network.model


def test_an_archive_written_from_the_plan_is_the_one_keras_writes(group, tmp_path):
    network = _member(group, 1)
    _uncompiled(network).save(tmp_path / "keras.keras")
    planned = weights_plan.plan(_uncompiled(network))
    assert planned is not None
    assert weights_plan.write(_uncompiled(network), planned, tmp_path / "plan.keras")
    expected = _contents(tmp_path / "keras.keras")
    assert _contents(tmp_path / "plan.keras") == expected
    assert expected["members"] == ["metadata.json", "config.json", "model.weights.h5"]
    assert len(expected["weights"]) > 6  # groups and datasets of every layer


def test_each_member_saved_from_one_plan_holds_its_own_weights_and_parameter(group, tmp_path):
    x = group.x["test"]
    paths = []
    for index in (0, 1, 0):
        network = _member(group, index)
        result_path = tmp_path / f"m{len(paths)}.json"
        with saved_models.saving(network, result_path) as path:
            paths.append(path)
        loaded = keras.saving.load_model(path)
        # called eagerly: the network's compiled predict keeps the activation it was traced with
        np.testing.assert_array_equal(loaded(x).numpy(), network(x).numpy())
        for saved, live in zip(loaded.weights, network.weights, strict=True):
            np.testing.assert_array_equal(saved.numpy(), live.numpy())
    alphas = [_alpha(_contents(p)["config"]) for p in paths]
    assert alphas == [1.0, 4.0, 1.0]
    assert group.network.model in saved_models._plans  # the later saves came from the plan


def _alpha(config):
    (layer,) = [layer for layer in config["config"]["layers"] if "alpha" in layer["config"]]
    return layer["config"]["alpha"]


def test_a_plan_of_other_variables_writes_nothing(group, tmp_path):
    planned = weights_plan.plan(_uncompiled(_member(group, 0)))
    other = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert not weights_plan.write(other, planned, tmp_path / "other.keras")
    assert not (tmp_path / "other.keras").exists()


class _Computed(keras.layers.Layer):
    """A layer saving a value computed at save time: no plan can replay it."""

    def call(self, x):
        return x

    def save_own_variables(self, store):
        store["0"] = np.arange(3.0)


def test_a_network_saving_computed_values_has_no_plan_and_is_saved_by_keras(tmp_path):
    inputs = keras.Input((3,))
    network = keras.Model(inputs, _Computed()(keras.layers.Dense(2)(inputs)))
    assert weights_plan.plan(network) is None
    with saved_models.saving(network, tmp_path / "computed.json") as path:
        pass
    assert network not in saved_models._plans
    with zipfile.ZipFile(path) as archive:
        assert "model.weights.h5" in archive.namelist()


def test_a_plan_goes_with_its_network(tmp_path):
    inputs = keras.Input((3,))
    network = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    gc.collect()
    held_before = len(saved_models._plans)  # networks other tests' fixtures still hold
    with saved_models.saving(network, tmp_path / "gone.json"):
        pass
    assert network in saved_models._plans
    alive = weakref.ref(network)
    del network
    gc.collect()
    assert alive() is None
    assert len(saved_models._plans) == held_before


def test_saving_every_member_walks_the_network_once(group, tmp_path, monkeypatch):
    walks, keras_saves = [], []
    walk = saving_lib._save_state

    def counted(saveable, *args, **kwargs):
        if kwargs.get("inner_path", args[2] if len(args) > 2 else None) == "":
            walks.append(saveable)
        return walk(saveable, *args, **kwargs)

    monkeypatch.setattr(saving_lib, "_save_state", counted)
    save = keras.Model.save

    def counted_save(model, *args, **kwargs):
        keras_saves.append(model.name)
        return save(model, *args, **kwargs)

    monkeypatch.setattr(keras.Model, "save", counted_save)
    for index in (0, 1, 0, 1):
        vectorized._load_member(group, index, group.weights[index])
        with saved_models.saving(group.network.model, tmp_path / f"m{index}.json"):
            pass
    assert len(walks) == 1
    assert keras_saves == []
