"""count: the band around the threshold that no feature enters, and the rule still holding."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab.data import compose_config, generate

from .support import CONF, digest

# The count data of the defaults before the margin existed (seed 0, 12 features, threshold 0.5,
# window 2..9), as recorded then: margin 0 must reproduce it.
WITHOUT_MARGIN = "7da843bdc426230a95b712a35520690fa244f5c31be823f5ac60477786cb4971"
BEFORE_MARGIN = ["n_features=12", "train_label_min=2", "train_label_max=9", "margin=0.0"]


def features(dataset) -> np.ndarray:
    return np.concatenate([split.x for split in dataset.splits.values()]).astype(np.float64)


def test_no_feature_lies_inside_the_band_and_both_sides_are_used(small_config):
    dataset = generate(small_config("count", "threshold=0.4", "margin=0.15"))
    x = features(dataset)
    assert not np.any((x > 0.25) & (x < 0.55))
    assert np.any(x <= 0.25) and np.any(x >= 0.55)
    assert x.min() >= 0 and x.max() <= 1


def test_labels_still_count_the_features_above_the_threshold(small_config):
    dataset = generate(small_config("count", "threshold=0.4", "margin=0.15"))
    for split in dataset.splits.values():
        assert np.array_equal(split.y, (split.x.astype(np.float64) > 0.4).sum(axis=1))


def test_features_are_uniform_on_the_two_pieces(small_config):
    dataset = generate(small_config("count", "threshold=0.4", "margin=0.15", "n_train=4000"))
    x = dataset.train.x.astype(np.float64).ravel()
    # P(x > 0.4) = (1 - 0.55) / (1 - 0.3) = 0.643 before the label window; the window 2..9 of
    # 12 features cuts the upper tail, so compare the pieces' own shapes instead: uniform on
    # [0, 0.25) has mean 0.125, uniform on [0.55, 1) has mean 0.775.
    assert abs(x[x < 0.4].mean() - 0.125) < 0.01
    assert abs(x[x > 0.4].mean() - 0.775) < 0.01


def test_the_same_seed_gives_the_same_bytes_with_a_margin(small_config):
    first = generate(small_config("count", "margin=0.2"))
    second = generate(small_config("count", "margin=0.2"))
    assert first.meta["splits"] == second.meta["splits"]
    assert first.train.x.tobytes() == second.train.x.tobytes()


def test_margin_zero_reproduces_the_data_drawn_before_the_margin_existed():
    dataset = generate(compose_config("count", BEFORE_MARGIN, conf_dir=CONF))
    assert digest(dataset.meta) == WITHOUT_MARGIN


@pytest.mark.parametrize(
    ("overrides", "received"),
    [
        (["margin=-0.1"], "margin=-0.1"),
        (["margin=0.5"], "margin=0.5"),
        (["threshold=0.8", "margin=0.2"], "margin=0.2"),
    ],
)
def test_a_margin_leaving_no_room_on_one_side_is_refused(small_config, overrides, received):
    with pytest.raises(ValueError, match=r"0 <= margin < min\(threshold, 1 - threshold\)") as error:
        generate(small_config("count", *overrides))
    assert f"Received: {received}" in str(error.value)
