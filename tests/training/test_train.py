"""train(cfg): every approach learns, failures are recorded, runs repeat exactly, MLflow gets it."""

import math
from pathlib import Path

import pytest
import yaml

from roundlab import results
from roundlab.run.exits import worst
from roundlab.runs import RunKey
from roundlab.tracking import store as tracking_store
from roundlab.train import train


def _client(uri):
    return tracking_store.client(uri)


@pytest.mark.parametrize(
    "overrides",
    [
        ["approach=classification"],
        ["approach=regression"],
        ["approach=regression", "trainer.loss=huber"],
        ["approach=rounding", "activation=soft_round"],
        ["approach=rounding", "activation=ste_round"],
    ],
    ids=lambda o: "-".join(v.split("=")[1] for v in o),
)
def test_each_approach_beats_the_constant_baseline(compose, overrides):
    result = train(compose(*overrides))
    assert result.status == results.FINISHED, result.error
    for split in ("val", "test"):
        got, base = result.metrics[split], result.baseline[split]
        assert got["exact_match"] > base["exact_match"] + 0.05, (split, got, base)
        assert got["mae"] < base["mae"], (split, got, base)
    # Early stopping keeps the best epoch's weights: its in-graph per-epoch metric reads out
    # like the final evaluation.
    kept = result.history["val_exact_match"][result.best_epoch]
    assert kept == pytest.approx(result.metrics["val"]["exact_match"])
    assert result.history["val_loss"][result.best_epoch] == min(result.history["val_loss"])


def test_result_file_is_written_where_result_path_says_with_the_run_recorded(compose, tmp_path):
    cfg = compose("approach=rounding", "activation=sigmoid_round", "activation.steepness=5")
    result = train(cfg)
    key = RunKey.of(
        "count", "rounding", "sigmoid_round", {"steepness": 5.0}, seed=0, learning_rate=0.02
    )
    path = key.result_path(tmp_path / "results")
    assert result.key == key
    assert path.relative_to(tmp_path / "results").as_posix() == (
        "count/rounding/sigmoid_round-steepness=5/lr=0.02/seed=0.json"
    )
    saved = results.read(path)
    assert saved.to_dict() == results.read(results.write(result, tmp_path / "again.json")).to_dict()
    assert saved.ok and saved.device == "CPU" and saved.duration_s > 0
    assert saved.activation_params == {"steepness": 5.0}
    assert set(saved.metrics) == {"val", "test", "extrapolate"} == set(saved.baseline)
    assert len(saved.history["loss"]) == 8 and len(saved.history["val_mae"]) == 8
    assert 0.0 <= saved.zero_grad_fraction <= 1.0
    assert {"keras", "mlflow", "python"} <= set(saved.versions)
    assert {"tensorflow", "tensorflow-cpu"} & set(saved.versions)
    assert saved.config["trainer"]["epochs"] == 8
    assert saved.config["tracking"]["experiment"] == "count"


def test_classification_cannot_predict_outside_the_training_label_range(compose):
    result = train(compose("approach=classification"))
    assert result.ok
    # count's extrapolate split holds only labels outside the training range.
    assert result.metrics["extrapolate"]["exact_match"] == 0.0


def test_hard_round_is_recorded_as_failed_with_its_reason(compose, store, tmp_path):
    result = train(compose("approach=rounding", "activation=hard_round"))
    assert result.status == results.FAILED
    assert result.error.startswith("no gradient")
    assert "hard_round" in result.error
    saved = results.read(tmp_path / "results/count/rounding/hard_round/lr=0.02/seed=0.json")
    assert saved.status == results.FAILED and saved.error == result.error
    run = _client(store).get_run(result.mlflow_run_id)
    assert run.info.status == "FAILED"
    assert run.data.tags["roundlab.error"] == result.error


def test_a_loss_that_turns_nan_is_recorded_as_failed(compose):
    result = train(
        compose("approach=regression", "trainer.optimizer=sgd", "trainer.learning_rate=1e12")
    )
    assert result.status == results.FAILED
    assert "NaN" in result.error
    assert result.metrics == {}


def test_same_config_and_seed_give_identical_metrics(compose):
    cfg = compose("approach=rounding", "activation=sine_round", "trainer.epochs=3")
    first, second = train(cfg), train(cfg)
    assert first.metrics == second.metrics
    assert first.history == second.history
    other = train(
        compose("approach=rounding", "activation=sine_round", "trainer.epochs=3", "seed=1")
    )
    assert other.history["loss"] != first.history["loss"]


def test_numpy_backed_activations_train_without_xla(compose, store):
    result = train(
        compose(
            "approach=rounding",
            "activation=sigmoid_round_np",
            "model.hidden_activation=spiky_np",
            "trainer.deterministic=false",
        )
    )
    assert result.ok, result.error
    assert _client(store).get_run(result.mlflow_run_id).data.tags["roundlab.jit_compile"] == "false"


def test_mlflow_run_has_params_epoch_metrics_and_artifacts(compose, store, tmp_path):
    result = train(compose("approach=regression"))
    client = _client(store)
    run = client.get_run(result.mlflow_run_id)
    assert run.info.status == "FINISHED"
    assert client.get_experiment(run.info.experiment_id).name == "count"
    assert run.data.params["trainer.epochs"] == "8"
    assert run.data.params["model.hidden_sizes"] == "[16]"
    assert run.data.metrics["test/exact_match"] == result.metrics["test"]["exact_match"]
    assert "baseline/val/mae" in run.data.metrics
    losses = client.get_metric_history(run.info.run_id, "train/loss")
    assert sorted(m.step for m in losses) == list(range(8))
    # One name per metric: the history at steps 0..7, the kept weights' evaluation after it.
    val = {m.step: m.value for m in client.get_metric_history(run.info.run_id, "val/mae")}
    assert val[result.epochs_run] == result.metrics["val"]["mae"]
    assert val[result.best_epoch] == pytest.approx(result.metrics["val"]["mae"])
    assert not {"loss", "val_loss", "val_mae", "val_exact_match"} & set(run.data.metrics)
    names = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert names == {"config.yaml", "history.csv", "seed=0.json"}
    local = client.download_artifacts(run.info.run_id, "config.yaml", str(tmp_path))
    assert yaml.safe_load(Path(local).read_text())["approach"]["name"] == "regression"
    # Artifacts live beside the sqlite store, not in the working directory.
    assert run.info.artifact_uri.startswith(Path(store[len("sqlite:///") :]).parent.as_uri())


def test_tracking_can_be_switched_off(compose):
    result = train(compose("approach=regression", "tracking.enabled=false", "trainer.epochs=1"))
    assert result.ok and result.mlflow_run_id is None


def test_failed_jobs_return_the_worst_objective_value():
    assert worst(maximise=True) == -math.inf
    assert worst(maximise=False) == math.inf


def test_replacing_a_result_of_another_setup_names_the_keys_that_differ(compose, caplog):
    train(compose("approach=regression"))
    with caplog.at_level("WARNING", logger="roundlab.run.recording"):
        train(compose("approach=regression", "trainer.loss=huber", "seed=0"))
    replaced = [r.getMessage() for r in caplog.records if "is replaced" in r.getMessage()]
    assert len(replaced) == 1 and "trainer.loss differ" in replaced[0]


def test_rerunning_the_same_setup_replaces_its_result_without_a_warning(compose, caplog):
    train(compose("approach=regression", "trainer.epochs=2"))
    with caplog.at_level("WARNING", logger="roundlab.run.recording"):
        train(compose("approach=regression", "trainer.epochs=2"))
    assert not [r for r in caplog.records if "is replaced" in r.getMessage()]
