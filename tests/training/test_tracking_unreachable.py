"""A dead tracking server costs seconds, not minutes: checked once per process, then fail
before training or train untracked, per tracking.on_unreachable."""

import socket

import pytest

from roundlab.tracking import server as tracking_server
from roundlab.tracking.server import policy, unreachable

from .processes import environment, result_files, run

DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there


def test_an_explicit_unreachable_uri_fails_before_training_in_one_line_within_seconds(
    tmp_path, tiny
):
    """The dead server costs seconds on top of what a run that fails its config check costs
    (process start and the TensorFlow import, most of the total on a loaded machine)."""
    env = environment(tmp_path, MLFLOW_TRACKING_URI=DEAD)
    code, _, stderr, seconds = run(tmp_path, [*tiny, "trainer.epochs=2"], env)
    _, _, _, config_error = run(tmp_path, [*tiny, "trainer.epochs=0"], env)
    assert code == 1 and seconds < 30 and seconds - config_error < 5, (seconds, config_error)
    assert f"tracking error: MLflow tracking server {DEAD} is not reachable" in stderr
    assert "Traceback" not in stderr
    assert result_files(tmp_path) == []


def test_with_warn_a_sweep_trains_untracked_and_warns_once_per_process(tmp_path, tiny):
    env = environment(tmp_path, MLFLOW_TRACKING_URI=DEAD)
    args = [
        "-m",
        *tiny,
        "trainer.epochs=2",
        "tracking.on_unreachable=warn",
        "approach=regression",
        "seed=0,1",
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
    ]
    code, stdout, stderr, seconds = run(tmp_path, args, env)
    assert code == 0, stderr[-2000:]
    assert seconds < 40  # two jobs; no MLflow retries
    assert (stdout + stderr).count("is not reachable") == 1
    found = result_files(tmp_path)
    assert [(r.status, r.mlflow_run_id) for r in found] == [("FINISHED", None)] * 2


def test_a_closed_port_is_reported_and_a_local_store_is_never_checked():
    assert "ConnectionRefusedError" in unreachable(DEAD, 2.0)
    assert unreachable("sqlite:////nowhere/mlflow.db", 2.0) is None


def test_an_open_port_is_reachable():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert unreachable(f"http://127.0.0.1:{server.getsockname()[1]}", 2.0) is None


def test_auto_fails_for_an_explicit_uri_and_warns_for_the_project_default(monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    from roundlab import paths

    assert policy(paths.default_tracking_uri(), "auto") == "warn"
    assert policy(DEAD, "auto") == "fail"
    assert policy(DEAD, "warn") == "warn"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", DEAD)
    assert policy(DEAD, "auto") == "fail"
    with pytest.raises(ValueError, match="tracking.on_unreachable must be one of"):
        policy(DEAD, "maybe")


def test_mlflow_retries_are_bounded_unless_the_user_set_them(monkeypatch):
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "5")
    for name in ("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "MLFLOW_HTTP_REQUEST_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    tracking_server.bound_retries()
    import os

    assert os.environ["MLFLOW_HTTP_REQUEST_MAX_RETRIES"] == "5"
    assert os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] == "10"
