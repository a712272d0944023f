"""Where a run's MLflow store is, as README says: ``<project root>/mlflow.db``, the root being
``$ROUNDLAB_ROOT``, else the nearest directory at or above the working directory holding
``dvc.yaml`` or ``pyproject.toml``, else the working directory, which is then said in a warning
when the store is created there; ``predict --run`` never creates a store."""

import logging

import pytest

from roundlab import paths, predict
from roundlab.tracking import store as tracking_store
from roundlab.train import train

SMALL = [
    "dataset=count",
    "dataset.n_train=120",
    "dataset.n_val=40",
    "dataset.n_test=40",
    "dataset.n_extrapolate=40",
    "model.hidden_sizes=[4]",
    "trainer.epochs=2",
    "trainer.selection=holdout",
    "tracking.log_models=false",
]


@pytest.fixture
def unset(monkeypatch):
    """No store or root chosen by the environment: the rule alone decides."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("ROUNDLAB_ROOT", raising=False)
    return monkeypatch


def _train_here(results_dir):
    from roundlab.run import config

    result = train(config.compose([*SMALL, f"results_dir={results_dir}"]))
    assert result.ok and result.mlflow_run_id, result.error
    return result


def _runs_in(db):
    client = tracking_store.client(f"sqlite:///{db}")
    experiments = [e.experiment_id for e in client.search_experiments()]
    return {r.info.run_id for r in client.search_runs(experiments)}


def test_a_run_from_a_subdirectory_lands_in_the_projects_store(tmp_path, unset, caplog):
    project = tmp_path / "project"
    (project / "notebooks" / "deep").mkdir(parents=True)
    (project / "dvc.yaml").write_text("stages: {}\n")
    unset.chdir(project / "notebooks" / "deep")
    with caplog.at_level(logging.WARNING, logger=tracking_store.__name__):
        result = _train_here(tmp_path / "results")
    assert result.config["tracking"]["uri"] == f"sqlite:///{project / 'mlflow.db'}"
    assert result.mlflow_run_id in _runs_in(project / "mlflow.db")
    assert not (project / "notebooks" / "deep" / "mlflow.db").exists()
    assert "new MLflow store" not in caplog.text  # inside a checkout: nothing to announce


def test_a_run_from_outside_with_roundlab_root_lands_in_that_roots_store(tmp_path, unset):
    project, outside = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir(), outside.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    unset.setenv("ROUNDLAB_ROOT", str(project))
    unset.chdir(outside)
    result = _train_here(tmp_path / "results")
    assert result.mlflow_run_id in _runs_in(project / "mlflow.db")
    assert list(outside.iterdir()) == []


def test_a_store_created_outside_a_checkout_is_announced_with_its_path(tmp_path, unset, caplog):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    if paths.project_root(outside) != outside.resolve():
        pytest.skip("a dvc.yaml or pyproject.toml above the tmp directory makes it a project")
    unset.chdir(outside)
    with caplog.at_level(logging.WARNING, logger=tracking_store.__name__):
        result = _train_here(tmp_path / "results")
    db = outside.resolve() / "mlflow.db"
    assert result.mlflow_run_id in _runs_in(db)
    announced = [r.getMessage() for r in caplog.records if "new MLflow store" in r.getMessage()]
    assert len(announced) == 1, caplog.text
    assert announced[0].startswith(f"new MLflow store {db}: no dvc.yaml or pyproject.toml")
    assert "set ROUNDLAB_ROOT=<checkout>" in announced[0]


def test_predict_run_without_a_store_names_where_it_looked_and_creates_none(
    tmp_path, unset, capsys
):
    project = tmp_path / "project"
    project.mkdir()
    (project / "dvc.yaml").write_text("stages: {}\n")
    unset.chdir(project)
    (project / "new.csv").write_text("x0\n1\n")
    run_id = "0123456789abcdef0123456789abcdef"
    assert predict.main(["--run", run_id, "--input", str(project / "new.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"no store at {project.resolve() / 'mlflow.db'}" in err
    assert f"the project root {project.resolve()} holds dvc.yaml" in err
    assert not (project / "mlflow.db").exists()
