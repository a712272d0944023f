"""A stacked group's network is walked by Keras's saving code once, whatever the number of its
members saved: the first save is written from the plan that walk made, and so are the rest."""

import keras
import pytest
from keras.src.saving import saving_lib

from roundlab.run.job import resolve
from roundlab.serving import saved_models
from roundlab.sweep import vectorized


@pytest.fixture
def group(compose):
    cfgs = [
        resolve(compose("approach=rounding", "activation=soft_round", f"activation.alpha={a}"))
        for a in (1.0, 4.0)
    ]
    return vectorized.train_group(cfgs)


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
