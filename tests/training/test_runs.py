"""RunKey: one value names a run's result file, MLflow run, variant and Hydra overrides."""

import subprocess
import sys

import pytest

from roundlab.runs import RunKey


def test_rounding_run_path_name_and_variant_carry_the_parameter_and_learning_rate():
    key = RunKey.of("count", "rounding", "sigmoid_round", {"steepness": 5.0}, 2, 0.003)
    assert key.variant == "sigmoid_round-steepness=5"
    assert key.run_name == "rounding/sigmoid_round-steepness=5/lr=0.003/seed=2"
    assert (
        key.result_path("/r").as_posix()
        == "/r/count/rounding/sigmoid_round-steepness=5/lr=0.003/seed=2.json"
    )


def test_approaches_without_activation_have_the_default_variant():
    key = RunKey.of("affine", "classification", seed=0)
    assert key.variant == "default"
    assert key.overrides() == [
        "dataset=affine",
        "approach=classification",
        "trainer.learning_rate=0.001",
        "seed=0",
    ]


def test_default_learning_rate_is_the_trainer_config_default():
    from roundlab.run.config import TrainerConfig

    assert RunKey.of("count", "regression").learning_rate == TrainerConfig.learning_rate


def test_learning_rate_of_a_config_is_part_of_its_key(compose):
    cfg = compose("approach=regression", "trainer.learning_rate=0.01")
    assert RunKey.from_config(cfg) == RunKey.of("count", "regression", seed=0, learning_rate=0.01)
    assert RunKey.from_config(cfg) != RunKey.of("count", "regression", seed=0)


def test_overrides_select_the_same_run_when_composed(compose):
    key = RunKey.of("count", "rounding", "sine_round", {"width": 0.25}, seed=3, learning_rate=3e-4)
    assert RunKey.from_config(compose(*key.overrides())) == key


def test_config_of_an_approach_without_activation_ignores_the_activation_group(compose):
    cfg = compose("approach=regression", "activation=sigmoid_round")
    assert RunKey.from_config(cfg) == RunKey.of("count", "regression", seed=0, learning_rate=0.02)


def test_keys_are_equal_and_hash_alike_whatever_the_parameter_order():
    a = RunKey.of("d", "rounding", "x", {"b": 1.0, "a": 2.0})
    b = RunKey.of("d", "rounding", "x", {"a": 2.0, "b": 1.0})
    assert a == b and hash(a) == hash(b) and a.with_seed(4).seed == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("d", "rounding"), "approach=rounding needs an output activation"),
        (("d", "regression", "soft_round"), "approach=regression uses no output activation"),
        (("d", "softmax"), "approach.name must be one of"),
        (("d", "ordinal", None, None, 0, 1e-3, "clm"), "approach=ordinal takes approach.method"),
        (("d", "regression", None, None, 0, 1e-3, "corn"), "approach=regression takes approach"),
        (("d", "regression", None, None, 0, 0.0), "learning_rate must be > 0"),
    ],
)
def test_impossible_keys_are_refused_with_the_reason(args, message):
    with pytest.raises(ValueError, match=message):
        RunKey.of(*args)


def test_planning_with_run_keys_imports_no_tensorflow():
    code = "import sys, roundlab.runs, roundlab.approaches; print('tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_run_on_a_resample_has_a_resample_segment_before_its_seed():
    key = RunKey.of("ratings", "ordinal", seed=2, method="coral", resample=4)
    assert key.run_name == "ordinal/coral/lr=0.001/resample=4/seed=2"
    assert (
        key.result_path("/r").as_posix()
        == "/r/ratings/ordinal/coral/lr=0.001/resample=4/seed=2.json"
    )
    assert key.overrides()[:2] == ["dataset=ratings", "dataset.resample=4"]
    plain = RunKey.of("ratings", "ordinal", seed=2, method="coral")
    assert plain.resample is None and "resample" not in plain.result_path("/r").as_posix()
    assert plain.run_name == "ordinal/coral/lr=0.001/seed=2"
    assert key != plain and key.with_seed(3).resample == 4


@pytest.mark.parametrize("resample", [None, 0, 2])
def test_keys_with_and_without_resample_round_trip_through_config_and_result(
    store, tmp_path, resample
):
    from omegaconf import OmegaConf

    from roundlab import results
    from roundlab.run import config

    key = RunKey.of("csv", "regression", seed=1, learning_rate=0.01, resample=resample)
    csv = ["dataset.path=x.csv", "dataset.label=y", "dataset.resamples=3"]
    cfg = config.compose([*key.overrides(), *csv])
    assert RunKey.from_config(cfg) == key
    result = results.RunResult(
        status="FINISHED",
        dataset="csv",
        approach="regression",
        seed=1,
        config=OmegaConf.to_container(cfg),
    )
    path = results.write(result, key.result_path(tmp_path))
    assert results.read(path).key == key
    assert path.relative_to(tmp_path).parts[-2] == (
        "lr=0.01" if resample is None else f"resample={resample}"
    )


@pytest.mark.parametrize(("value", "shown"), [(-1, "must be >= 0"), (True, "non-negative integer")])
def test_a_negative_or_non_integer_resample_is_refused(value, shown):
    with pytest.raises(ValueError, match=shown):
        RunKey.of("csv", "regression", resample=value)
