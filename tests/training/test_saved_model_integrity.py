"""A finished run's saved model must be whole to be trusted: a resumed sweep retrains a FINISHED
run whose ``.keras`` file is missing, truncated or not a Keras archive, and
``python -m roundlab.predict`` says what is wrong with such a file (or one holding a Lambda
layer's code) in one line, exit 2."""

import subprocess
import sys
import zipfile

import pytest

from roundlab import predict, results
from roundlab.run.job import resolve
from roundlab.serving.saved_models import model_path, model_problem
from roundlab.sweep import resume
from roundlab.sweep.housekeeping import REUSED_MARK
from roundlab.train import train

from .processes import environment, result_files


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _empty(path):
    path.write_bytes(b"")


def _not_keras(path):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")


def _corrupt_member(path):
    """Flip bytes inside the weights member's data, leaving the archive's directory intact."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("model.weights.h5")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 64
    data[start : start + 16] = bytes(16)
    path.write_bytes(bytes(data))


DAMAGE = {
    "missing": lambda p: p.unlink(),
    "truncated": _truncate,
    "empty": _empty,
    "not a keras archive": _not_keras,
    "corrupt member": _corrupt_member,
}


@pytest.fixture
def finished(compose):
    """A finished tiny run with its saved model: (resolved config, result file)."""
    cfg = resolve(compose("approach=regression", "tracking.enabled=false"))
    result = train(cfg)
    assert result.status == "FINISHED"
    return cfg, result.key.result_path(cfg.results_dir)


def test_a_finished_run_whose_model_is_whole_is_reused(finished):
    cfg, path = finished
    assert model_problem(model_path(path)) is None
    assert resume.reusable(cfg).status == "FINISHED"


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_finished_run_whose_model_is_damaged_is_retrained(finished, damage):
    cfg, path = finished
    DAMAGE[damage](model_path(path))
    assert model_problem(model_path(path)) is not None
    assert resume.reusable(cfg) is None


def _csv(tmp_path, result_file):
    """One row of the run's feature columns."""
    features = results.read(result_file).model["features"]
    path = tmp_path / "rows.csv"
    path.write_text(",".join(features) + "\n" + ",".join("0.5" for _ in features) + "\n")
    return path


def test_predict_names_a_truncated_model_instead_of_file_not_found(finished, tmp_path, capsys):
    cfg, path = finished
    rows = _csv(tmp_path, path)
    _truncate(model_path(path))
    assert predict.main([str(path), "--input", str(rows)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "File not found" not in err
    assert err.startswith("roundlab.predict: the saved model must be a whole .keras file.")
    assert f"{model_path(path)} is not a whole .keras archive (truncated or corrupt" in err


def _lambda_model(path):
    import keras

    inputs = keras.Input((2,))
    outputs = keras.layers.Dense(1)(keras.layers.Lambda(lambda t: t * 2)(inputs))
    keras.Model(inputs, outputs).save(path)


def test_predict_refuses_a_lambda_layer_in_one_line_exit_2(finished, tmp_path, store):
    cfg, path = finished
    rows = _csv(tmp_path, path)
    _lambda_model(model_path(path))
    cmd = [sys.executable, "-m", "roundlab.predict", str(path), "--input", str(rows)]
    done = subprocess.run(cmd, env=environment(tmp_path), capture_output=True, text=True)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"roundlab.predict: {model_path(path)} holds Python code (a Lambda layer), which "
        "roundlab.predict does not run; roundlab saves no such layer. Received: Requested the "
        "deserialization of a `Lambda` layer whose `function` is a Python lambda"
    )


@pytest.mark.parametrize(
    "break_it, expected",
    [
        (lambda path, out: path.write_text("{"), "not valid JSON"),
        (lambda path, out: None, "No such file or directory"),  # --output in a missing dir
    ],
)
def test_every_predict_error_is_one_line_exit_2(finished, tmp_path, capsys, break_it, expected):
    cfg, path = finished
    out = tmp_path / "absent" / "preds.csv"
    rows = _csv(tmp_path, path)
    break_it(path, out)
    assert predict.main([str(path), "--input", str(rows), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("roundlab.predict: ") and expected in err


def test_a_missing_input_file_is_refused_naming_input(finished, tmp_path, capsys):
    cfg, path = finished
    missing, out = tmp_path / "nofile.csv", tmp_path / "preds.csv"
    assert predict.main([str(path), "--input", str(missing), "--output", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"roundlab.predict: --input must name an existing CSV file. Received: --input={missing}\n"
    )
    assert not out.exists()


@pytest.mark.slow
def test_a_rerun_retrains_the_run_whose_model_was_truncated(tmp_path, tiny):
    def multirun():
        cmd = [
            sys.executable,
            "-m",
            "roundlab.train",
            "-m",
            *tiny,
            "approach=regression",
            "tracking.enabled=false",
            f"results_dir={tmp_path / 'results'}",
            f"hydra.sweep.dir={tmp_path / 'sweep'}",
        ]
        done = subprocess.run(cmd, env=environment(tmp_path), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    multirun()
    [first] = result_files(tmp_path)
    keras_file = next((tmp_path / "results").rglob("seed=0.keras"))
    _truncate(keras_file)
    done = multirun()
    assert "is retrained" in done.stdout + done.stderr
    assert not list((tmp_path / "sweep").rglob(REUSED_MARK))
    [again] = result_files(tmp_path)
    assert again.status == "FINISHED" and again.duration_s != first.duration_s
    assert model_problem(keras_file) is None
