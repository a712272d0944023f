"""The model a run logs to MLflow takes a DataFrame as ``pandas.read_csv`` reads it: whole-number
columns come as int64, and ``mlflow.pyfunc.load_model(uri).predict(df)`` must give the integers
``python -m roundlab.predict`` gives for the same file, with MLflow's schema enforcement on."""

import csv

import mlflow.pyfunc
import numpy as np
import pandas as pd
import pytest

from roundlab import predict
from roundlab.train import train

SMALL = ["dataset=count", "dataset.n_train=200", "model.hidden_sizes=[8]", "trainer.epochs=2"]


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A 2-epoch regression run logged, model included, to a tmp sqlite store, and a CSV of
    whole numbers in its feature columns."""
    from roundlab.run import config

    tmp = tmp_path_factory.mktemp("signature")
    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MLFLOW_TRACKING_URI", uri)
        cfg = config.compose([*SMALL, f"results_dir={tmp / 'results'}", "approach=regression"])
        result = train(cfg)
        assert result.ok and result.mlflow_run_id, result.error
        features = result.model["features"]
        rows = np.random.default_rng(0).integers(-3, 4, size=(40, len(features)))
        with open(tmp / "ints.csv", "w", newline="") as handle:
            csv.writer(handle).writerows([features, *rows.tolist()])
        yield result, result.key.result_path(cfg.results_dir), tmp


def _roundlab_predict(source_args, csv_path, out):
    assert predict.main([*source_args, "--input", str(csv_path), "--output", str(out)]) == 0
    return pd.read_csv(out)["prediction"].to_numpy()


def test_the_logged_model_predicts_int64_columns_as_roundlab_predict_does(logged):
    result, result_path, tmp = logged
    frame = pd.read_csv(tmp / "ints.csv")
    assert set(frame.dtypes) == {np.dtype("int64")}
    model = mlflow.pyfunc.load_model(f"runs:/{result.mlflow_run_id}/model")
    from_mlflow = model.predict(frame)["prediction"].to_numpy()
    from_file = _roundlab_predict([str(result_path)], tmp / "ints.csv", tmp / "file.csv")
    from_run = _roundlab_predict(["--run", result.mlflow_run_id], tmp / "ints.csv", tmp / "run.csv")
    assert from_mlflow.dtype == np.int64 and len(from_mlflow) == 40
    assert len(set(from_mlflow.tolist())) > 1  # the inputs spread over several labels
    np.testing.assert_array_equal(from_mlflow, from_file)
    np.testing.assert_array_equal(from_mlflow, from_run)
    # The same values as floats, and a mix of int64 and float64 columns, predict the same.
    np.testing.assert_array_equal(model.predict(frame.astype("float64"))["prediction"], from_file)
    mixed = frame.astype({frame.columns[0]: "float64"})
    np.testing.assert_array_equal(model.predict(mixed)["prediction"], from_file)


def test_the_logged_model_still_refuses_a_missing_column_and_a_non_number(logged):
    result, _, tmp = logged
    frame = pd.read_csv(tmp / "ints.csv")
    model = mlflow.pyfunc.load_model(f"runs:/{result.mlflow_run_id}/model")
    with pytest.raises(mlflow.exceptions.MlflowException, match=r"missing inputs \['x0'\]"):
        model.predict(frame.drop(columns="x0"))
    with pytest.raises(ValueError, match="column 'x1' must hold a finite number"):
        model.predict(frame.assign(x1=["a"] * len(frame)))
