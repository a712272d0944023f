"""A run logs to a real `mlflow server` reached through MLFLOW_TRACKING_URI."""

import csv
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from roundlab import data, metrics
from roundlab.tracking import store as tracking_store
from roundlab.train import train

from .processes import environment

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    mlflow = Path(sys.executable).with_name("mlflow")
    proc = subprocess.Popen(
        [
            str(mlflow),
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--backend-store-uri",
            f"sqlite:///{tmp_path / 'server.db'}",
            "--artifacts-destination",
            str(tmp_path / "server-artifacts"),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its workers go down with it
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"mlflow server exited: {proc.stderr.read()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail("mlflow server not healthy after 90 s")
            time.sleep(0.5)
        yield url, tmp_path / "server-artifacts"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_run_logs_to_a_real_mlflow_server_through_the_env_variable(server, compose, monkeypatch):
    url, artifacts = server
    monkeypatch.setenv("MLFLOW_TRACKING_URI", url)
    result = train(compose("approach=regression", "trainer.epochs=2"))
    assert result.ok and result.config["tracking"]["uri"] == url
    run = tracking_store.client(url).get_run(result.mlflow_run_id)
    assert run.info.status == "FINISHED"
    assert run.data.metrics["val/exact_match"] == result.metrics["val"]["exact_match"]
    # The server stored the artifacts where it was told to, proxied over HTTP.
    assert list(artifacts.rglob("history.csv"))


def test_predict_run_loads_a_model_served_by_a_real_server_and_matches_its_evaluation(
    server, compose, monkeypatch, tmp_path
):
    """The model logged as code comes back through the server's artifact proxy, passes the
    check of what loading it runs, and predicts what the run's evaluation scored."""
    url, _ = server
    monkeypatch.setenv("MLFLOW_TRACKING_URI", url)
    cfg = compose("approach=classification", "trainer.epochs=2")
    result = train(cfg)
    test = data.materialize(cfg.dataset).test
    with open(tmp_path / "test.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(result.model["features"])
        writer.writerows([repr(float(v)) for v in row] for row in test.x)
    cmd = [sys.executable, "-m", "roundlab.predict", "--run", result.mlflow_run_id]
    done = subprocess.run(
        [*cmd, "--input", str(tmp_path / "test.csv")],
        env=environment(tmp_path, MLFLOW_TRACKING_URI=url),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "prediction"
    predictions = np.array([int(v) for v in lines[1:]])
    assert metrics.integer_metrics(test.y, predictions) == result.metrics["test"]
