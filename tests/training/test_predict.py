"""Saved models and `python -m roundlab.predict`: a fresh process predicts from the saved file
and from MLflow exactly what the evaluation scored; bad input fails in one line, exit 2."""

import csv
import subprocess
import sys

import numpy as np
import pytest

from roundlab import data, metrics, predict
from roundlab.serving.saved_models import Predictor, model_path
from roundlab.train import train

from .processes import environment

SMALL = ["dataset=count", "dataset.n_train=200", "model.hidden_sizes=[8]"]


def _write_split(path, names, split):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["row", *names])
        for i, row in enumerate(split.x):
            writer.writerow([f"r{i}", *(repr(float(v)) for v in row)])


def _read_predictions(path):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["row", "prediction"]
    return np.array([int(r["prediction"]) for r in rows])


def _predict(tmp_path, store, *args):
    env = environment(tmp_path, MLFLOW_TRACKING_URI=store)
    cmd = [sys.executable, "-m", "roundlab.predict", *map(str, args)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("approach", [["approach=classification"], ["activation=sine_round"]])
def test_predictions_from_the_file_and_from_mlflow_reproduce_the_test_metrics(
    compose, store, tmp_path, approach
):
    cfg = compose(*approach)
    result = train(cfg)
    path = result.key.result_path(cfg.results_dir)
    assert model_path(path).is_file() and result.model["file"] == "seed=0.keras"
    test = data.materialize(cfg.dataset).test
    _write_split(tmp_path / "test.csv", result.model["features"], test)
    for source in ([path], [path.parent], ["--run", result.mlflow_run_id]):
        out = tmp_path / "preds.csv"
        done = _predict(
            tmp_path,
            store,
            *source,
            "--input",
            tmp_path / "test.csv",
            "--output",
            out,
            "--id",
            "row",
        )
        assert done.returncode == 0, done.stderr
        assert metrics.integer_metrics(test.y, _read_predictions(out)) == result.metrics["test"]


@pytest.mark.parametrize(
    "approach",
    [
        ["approach=ordinal", "approach.method=corn"],
        ["approach=ordinal", "approach.method=coral"],
        ["approach=poisson"],
    ],
)
def test_a_saved_ordinal_or_poisson_model_predicts_what_its_evaluation_scored(compose, approach):
    cfg = compose(*approach, "tracking.enabled=false")
    result = train(cfg)
    predictor = Predictor.load(result.key.result_path(cfg.results_dir))
    test = data.materialize(cfg.dataset).test
    scored = metrics.integer_metrics(test.y, predictor.predict(test.x))
    assert scored == {k: result.metrics["test"][k] for k in scored}  # poisson adds mode_*


@pytest.mark.parametrize(
    "overrides",
    [
        ["activation=sigmoid_round_np", "model.hidden_activation=spiky_np"],
        ["approach=ordinal", "approach.method=coral"],  # its bias layer is roundlab's own
    ],
)
def test_plain_keras_loads_the_saved_model_after_import_roundlab(compose, tmp_path, overrides):
    cfg = compose(*overrides)
    result = train(cfg)
    path = model_path(result.key.result_path(cfg.results_dir))
    x = data.materialize(cfg.dataset).test.x[:5]
    np.save(tmp_path / "x.npy", x)
    code = (
        "import sys, numpy as np, roundlab, keras\n"
        f"m = keras.saving.load_model({str(path)!r})\n"
        f"x = np.load({str(tmp_path / 'x.npy')!r})\n"
        f"np.save({str(tmp_path / 'y.npy')!r}, np.asarray(m(x)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment(tmp_path),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    expected = Predictor.load(result.key.result_path(cfg.results_dir)).model(x)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), np.asarray(expected))


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    from roundlab.run import config

    results_dir = tmp_path_factory.mktemp("saved") / "results"
    cfg = config.compose(
        [
            *SMALL,
            f"results_dir={results_dir}",
            "approach=regression",
            "tracking.enabled=false",
            "trainer.epochs=1",
        ]
    )
    result = train(cfg)
    return result.key.result_path(results_dir), result.model["features"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda rows: [r[:2] + r[3:] for r in rows], "missing=['x2']"),
        (lambda rows: rows[:2] + [[*rows[2][:2], "nan", *rows[2][3:]]], "line 3: column 'x2'"),
        (lambda rows: rows[:1] + [[*rows[1][:1], "abc", *rows[1][2:]]], "line 2: column 'x1'"),
    ],
    ids=["missing-column", "nan", "non-numeric"],
)
def test_bad_input_names_the_column_and_line_and_exits_2(
    saved_run, tmp_path, capsys, change, expected
):
    path, names = saved_run
    rows = [names, *([str(0.5 * i) for i in range(len(names))] for _ in range(3))]
    with open(tmp_path / "bad.csv", "w", newline="") as handle:
        csv.writer(handle).writerows(change(rows))
    assert predict.main([str(path), "--input", str(tmp_path / "bad.csv")]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1, err


def test_predictions_go_to_stdout_as_one_prediction_column(saved_run, tmp_path, capsys):
    path, names = saved_run
    with open(tmp_path / "ok.csv", "w", newline="") as handle:
        csv.writer(handle).writerows([names, ["0.0"] * len(names), ["1.0"] * len(names)])
    assert predict.main([str(path), "--input", str(tmp_path / "ok.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction" and len(lines) == 3
    assert all(line.lstrip("-").isdigit() for line in lines[1:])
