"""Properties every generator must have: determinism, integral labels, disjoint splits, an
extrapolate split outside the training label range, and refusal of impossible parameters."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab.data import compose_config, generate, to_config

from .support import BUILTIN, CONF, GENERATORS, digest


def rows(x: np.ndarray) -> set[bytes]:
    return {row.tobytes() for row in x}


@pytest.mark.parametrize("name", GENERATORS)
def test_same_config_gives_identical_bytes(small_config, name):
    first, second = generate(small_config(name)), generate(small_config(name))
    assert first.meta["splits"] == second.meta["splits"]  # the SHA-256 of every array
    for split in first.splits:
        assert first.splits[split].x.tobytes() == second.splits[split].x.tobytes()
        assert first.splits[split].y.tobytes() == second.splits[split].y.tobytes()


@pytest.mark.parametrize("name", GENERATORS)
def test_other_seed_gives_other_data(small_config, name):
    assert (
        generate(small_config(name)).meta["splits"]["train"]
        != generate(small_config(name, "seed=1")).meta["splits"]["train"]
    )


@pytest.mark.parametrize("name", GENERATORS)
def test_arrays_have_the_documented_dtypes_shapes_and_integral_labels(small_config, name):
    dataset = generate(small_config(name))
    assert set(dataset.splits) == {"train", "val", "test", "extrapolate"}
    for split in dataset.splits.values():
        assert split.x.dtype == np.float32 and split.x.ndim == 2
        assert split.y.dtype == np.int64 and split.y.shape == (len(split.x),)
        assert split.x.shape[1] == dataset.n_features == dataset.meta["n_features"]
        assert np.isfinite(split.x).all()
    assert len(dataset.meta["feature_names"]) == dataset.n_features


@pytest.mark.parametrize("name", ["affine", "count", "digit_sum", "poisson"])
def test_sized_generators_return_the_configured_sizes(small_config, name):
    dataset = generate(small_config(name))
    assert {split: len(part) for split, part in dataset.splits.items()} == {
        "train": 80,
        "val": 30,
        "test": 30,
        "extrapolate": 30,
    }


@pytest.mark.parametrize("name", GENERATORS)
def test_splits_are_disjoint(small_config, name):
    dataset = generate(small_config(name))
    names = list(dataset.splits)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            shared = rows(dataset.splits[first].x) & rows(dataset.splits[second].x)
            assert not shared, f"{first} and {second} share {len(shared)} rows"


@pytest.mark.parametrize("name", GENERATORS)
def test_extrapolate_labels_lie_outside_the_training_range(small_config, name):
    dataset = generate(small_config(name))
    lo, hi = dataset.label_range("train")
    y = dataset.extrapolate.y
    assert len(y) > 0
    assert np.all((y < lo) | (y > hi))
    assert dataset.meta["splits"]["extrapolate"]["label_range"] == [int(y.min()), int(y.max())]


@pytest.mark.parametrize("name", ["count", "digit_sum"])
def test_in_range_splits_keep_the_configured_label_window(small_config, name):
    dataset = generate(small_config(name, "train_label_min=2", "train_label_max=4"))
    for split in ("train", "val", "test"):
        lo, hi = dataset.label_range(split)
        assert lo >= 2 and hi <= 4
    assert set(np.unique(dataset.extrapolate.y)) <= set(range(0, 2)) | set(range(5, 19))


def test_affine_labels_are_the_rounded_affine_function_of_the_stored_features(small_config):
    dataset = generate(small_config("affine"))
    cfg = to_config(small_config("affine"))
    for split in dataset.splits.values():
        values = split.x.astype(np.float64) @ np.array(cfg.weights) + cfg.bias
        # half-up rounding; the matrix product may differ from the generator's ordered sum
        # in the last bit, so compare away from the .5 boundaries
        clear = np.abs(values - np.floor(values) - 0.5) > 1e-9
        assert np.array_equal(split.y[clear], np.floor(values[clear] + 0.5).astype(np.int64))


def test_affine_noise_moves_labels(small_config):
    clean = generate(small_config("affine")).train.y
    noisy = generate(small_config("affine", "noise=1.0")).train.y
    assert 0 < np.mean(clean != noisy) < 1


def test_count_labels_count_the_features_above_the_threshold(small_config):
    dataset = generate(small_config("count", "threshold=0.3"))
    for split in dataset.splits.values():
        assert np.array_equal(split.y, (split.x.astype(np.float64) > 0.3).sum(axis=1))


def test_poisson_labels_are_non_negative_counts_with_the_glm_mean(small_config):
    dataset = generate(small_config("poisson", "n_train=4000"))
    cfg = to_config(small_config("poisson"))
    rate = np.exp(dataset.train.x.astype(np.float64) @ np.array(cfg.weights) + cfg.bias)
    assert dataset.train.y.min() >= 0
    # mean of Poisson(rate) - rate has standard error sqrt(mean(rate) / n) ~ 0.05 here
    assert abs(np.mean(dataset.train.y - rate)) < 0.25


def test_digit_sum_never_shows_a_val_or_test_image_in_training(small_config):
    dataset = generate(small_config("digit_sum"))

    def images(split):
        x = dataset.splits[split].x
        return rows(x[:, :64]) | rows(x[:, 64:])

    assert not images("train") & images("test")
    assert not images("train") & images("val")
    assert not images("train") & images("extrapolate")
    assert np.all(dataset.train.y == np.round(dataset.train.y))


def test_diabetes_keeps_every_patient_and_standardizes_with_training_statistics():
    dataset = generate(compose_config("diabetes", conf_dir=CONF))
    assert sum(len(split) for split in dataset.splits.values()) == 442
    labels = np.concatenate([split.y for split in dataset.splits.values()])
    assert labels.min() == 25 and labels.max() == 346
    assert np.allclose(dataset.train.x.mean(axis=0), 0, atol=1e-5)
    assert np.allclose(dataset.train.x.std(axis=0), 1, atol=1e-4)
    assert len(dataset.meta["standardization"]["mean"]) == 10


def test_zero_extrapolate_quantile_means_no_extrapolate_split():
    dataset = generate(compose_config("diabetes", ["extrapolate_quantile=0"], conf_dir=CONF))
    assert dataset.extrapolate is None and "extrapolate" not in dataset.meta["splits"]


def test_zero_n_extrapolate_means_no_extrapolate_split(small_config):
    assert generate(small_config("affine", "n_extrapolate=0")).extrapolate is None


# SHA-256 over the recorded SHA-256 of every array of the default configs (conf/dataset/).
# A change here means the data changed: intended only together with the generator or config.
RECORDED = {
    "affine": "6398f600cb2c65d6d59beb984db11c50fc22aed0d03553dc98a22f02b589a673",
    "count": "1b87a489577217012c7435f787c1a2e2fbd7c4c0040c03aa031748724ddbba6f",
    "digit_sum": "2a504e2823c9a61127ee9f4b222692ef71aeb7c62512a4780c838b44ee2f82f5",
    "poisson": "42760a6302139b7238cbef405798cecdb94227063855a2ae167a1577bb23a96c",
    "diabetes": "127d61545ca95e8aff6dce51d3a20e200d279f7b7a40ca9f457d4d449e94e858",
}


@pytest.mark.parametrize("name", BUILTIN)
def test_default_configs_reproduce_the_recorded_bytes(name):
    assert digest(generate(compose_config(name, conf_dir=CONF)).meta) == RECORDED[name]


@pytest.mark.parametrize(
    ("name", "overrides", "expected"),
    [
        ("affine", ["n_train=-5"], "n_train=-5"),
        ("affine", ["n_extrapolate=-1"], "n_extrapolate=-1"),
        ("affine", ["low=1.0", "high=0.0"], "low=1.0, high=0.0"),
        ("affine", ["noise=-0.5"], "noise=-0.5"),
        ("affine", ["weights=[]"], "weights=[]"),
        ("affine", ["seed=-1"], "seed=-1"),
        ("affine", ["weights=[0.0,0.0]"], "extrapolate_margin=0.5"),
        ("poisson", ["weights=[10.0]"], "log_rate="),
        ("count", ["threshold=1.5"], "threshold=1.5"),
        ("count", ["train_label_min=5", "train_label_max=4"], "train_label_min=5"),
        ("count", ["train_label_min=0", "train_label_max=6"], "n_extrapolate=30"),
        ("digit_sum", ["train_label_max=19"], "train_label_max=19"),
        ("digit_sum", ["val_images=0.9", "test_images=0.2"], "val_images=0.9"),
        ("diabetes", ["extrapolate_quantile=0.6"], "extrapolate_quantile=0.6"),
        ("diabetes", ["val_fraction=0.0"], "val_fraction=0.0"),
    ],
)
def test_impossible_parameters_are_refused_naming_parameter_and_value(
    small_config, name, overrides, expected
):
    with pytest.raises(ValueError, match="Received: .*") as error:
        generate(small_config(name, *overrides))
    assert expected in str(error.value)


def test_a_config_without_a_mandatory_parameter_is_refused():
    with pytest.raises(ValueError, match=r"missing=\['n_train'\]"):
        to_config(
            {
                "name": "affine",
                "seed": 0,
                "standardize": False,
                "n_val": 1,
                "n_test": 1,
                "n_extrapolate": 0,
                "weights": [1.0],
                "bias": 0.0,
                "low": 0.0,
                "high": 1.0,
                "noise": 0.0,
                "extrapolate_margin": 0.5,
            }
        )


def test_an_unknown_generator_is_refused_listing_the_known_ones():
    with pytest.raises(ValueError, match=r"generator must be one of \['affine'.*'csv'\]"):
        to_config({"name": "mnist"})


def test_a_wrongly_typed_parameter_fails_at_compose_time():
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException):
        compose_config("affine", ["n_train=many"], conf_dir=CONF)
