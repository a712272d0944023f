"""The oracle: the Bayes predictor of each generator's model, scored on the split's rows."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import poisson as scipy_poisson

from roundlab.data import generate, load, save, to_config
from roundlab.data.oracle import affine_oracle, poisson_median, poisson_mode, poisson_oracle

from .support import BUILTIN


def column(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32).reshape(-1, 1)


def test_poisson_mode_and_median_match_hand_computed_cases():
    # rate 0.8: P(0) = e^-0.8 = 0.449 < 1/2 <= P(<=1) = 0.809 -> median 1; P(1)/P(0) = 0.8 -> mode 0
    # rate 2.5: P(<=1) = 0.287, P(<=2) = 0.544 -> median 2; P(2)/P(1) = 1.25, P(3)/P(2) = 0.83 -> 2
    # rate 3: P(2) = P(3) = 0.224, both modes, 3 chosen; P(<=2) = 0.423, P(<=3) = 0.647 -> 3
    rate = np.array([0.8, 2.5, 3.0])
    assert poisson_mode(rate).tolist() == [0, 2, 3]
    assert poisson_median(rate).tolist() == [1, 2, 3]


def test_poisson_median_is_the_exact_median_up_to_large_rates():
    rate = np.linspace(0.01, 600.0, 997)
    assert np.array_equal(poisson_median(rate), scipy_poisson.median(rate).astype(np.int64))


def test_poisson_oracle_scores_mode_for_exact_match_and_median_for_mae(small_config):
    cfg = to_config(small_config("poisson", "weights=[1.0]", "bias=0.0"))
    # rates 0.8, 0.8, 2.5, 2.5: mode 0, 0, 2, 2 and median 1, 1, 2, 2
    x = column(math.log(0.8), math.log(0.8), math.log(2.5), math.log(2.5))
    y = np.array([0, 1, 2, 4])
    oracle = poisson_oracle(cfg, {"test": (x, y)})
    # mode: right on rows 0 and 2; median: errors 1, 0, 0, 2
    assert oracle == {"test": {"exact_match": 0.5, "mae": 0.75}}


def test_affine_oracle_rounds_the_noise_free_value_half_up(small_config):
    cfg = to_config(small_config("affine", "weights=[2.0]", "bias=0.5", "noise=1.0"))
    # 2x + 0.5 = 0.9, 3.3, 5.5 -> predictions 1, 3, 6 (5.5 rounds up)
    x = column(0.2, 1.4, 2.5)
    oracle = affine_oracle(cfg, {"val": (x, np.array([1, 2, 6]))})
    assert oracle == {"val": {"exact_match": pytest.approx(2 / 3), "mae": pytest.approx(1 / 3)}}


def test_affine_with_noise_has_an_oracle_below_perfect(small_config):
    noisy = generate(small_config("affine", "noise=0.5"))
    for split, best in noisy.oracle.items():
        # exact match of the nearest integer under N(0, 0.5^2) noise averages about 0.6
        assert 0.4 < best["exact_match"] < 0.85, split
        assert 0.2 < best["mae"] < 0.7, split


@pytest.mark.parametrize("name", ["affine", "count", "digit_sum"])
def test_noise_free_generators_have_a_perfect_oracle_on_every_split(small_config, name):
    dataset = generate(small_config(name))
    assert dataset.oracle == {split: {"exact_match": 1.0, "mae": 0.0} for split in dataset.splits}


def test_the_oracle_uses_the_features_before_standardization(small_config):
    dataset = generate(small_config("affine", "standardize=true"))
    assert dataset.meta["standardization"] is not None
    assert dataset.oracle["test"] == {"exact_match": 1.0, "mae": 0.0}


@pytest.mark.parametrize("name", ["diabetes", "csv"])
def test_real_data_has_no_oracle(small_config, name):
    dataset = generate(small_config(name))
    assert dataset.oracle is None and dataset.meta["oracle"] is None


@pytest.mark.parametrize("name", BUILTIN)
def test_meta_json_holds_the_oracle_and_the_loaded_dataset_carries_it(tmp_path, small_config, name):
    generated = generate(small_config(name))
    directory = save(generated, tmp_path / name)
    meta = json.loads((directory / "meta.json").read_text())
    assert meta["oracle"] == generated.oracle
    assert load(directory).oracle == generated.oracle
