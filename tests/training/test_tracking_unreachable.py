"""A tracking server that is down or hangs costs seconds, not minutes: its health endpoint is
asked once per process, then the run fails before training or trains untracked, per
tracking.on_unreachable."""

import os

import pytest

from roundlab.tracking import server as tracking_server
from roundlab.tracking.server import policy, unreachable

from .processes import environment, result_files, run
from .servers import answering_server, hung_server

DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there


@pytest.fixture(params=["down", "hung"])
def unanswered(request):
    """The URI of a server that is down (nothing listens) or hung (accepts, never answers),
    and the hung server (None for the dead one)."""
    if request.param == "down":
        yield DEAD, None
        return
    with hung_server() as hung:
        yield hung.url, hung


def _our_lines(text: str, prefix: str) -> list[str]:
    """roundlab's lines starting with ``prefix`` (TensorFlow's C++ start-up lines may surround
    them on stderr)."""
    return [line for line in text.splitlines() if line.startswith(prefix)]


def test_an_explicit_uri_that_is_down_or_hung_fails_a_run_before_training_in_one_line(
    tmp_path, tiny, unanswered
):
    uri, hung = unanswered
    env = environment(tmp_path, MLFLOW_TRACKING_URI=uri)
    code, _, stderr, _ = run(tmp_path, [*tiny, "trainer.epochs=2"], env)
    assert code == 1, stderr[-2000:]
    (line,) = _our_lines(stderr, "tracking error:")
    assert line.startswith(f"tracking error: MLflow tracking server {uri} is not reachable")
    assert "Traceback" not in stderr
    assert result_files(tmp_path) == []
    if hung is not None:
        assert len(hung.accepted) == 1  # asked once, then given up


def test_with_warn_a_multirun_trains_untracked_and_warns_once_per_process(tmp_path, tiny):
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
    code, stdout, stderr, _ = run(tmp_path, args, env)
    assert code == 0, stderr[-2000:]
    assert (stdout + stderr).count("is not reachable") == 1
    found = result_files(tmp_path)
    assert [(r.status, r.mlflow_run_id) for r in found] == [("FINISHED", None)] * 2


def test_a_closed_port_or_a_silent_server_is_unreachable_and_a_local_store_is_never_checked():
    assert "ConnectionRefusedError" in unreachable(DEAD, 2.0)
    with hung_server() as hung:
        assert "TimeoutError" in unreachable(hung.url, 0.5)
    assert unreachable("sqlite:////nowhere/mlflow.db", 2.0) is None


def test_only_a_server_whose_health_endpoint_answers_with_success_is_reachable():
    with answering_server(200) as healthy:
        assert unreachable(healthy.url, 2.0) is None
        assert unreachable(f"{healthy.url}/", 2.0) is None
    with answering_server(503, b"backend down") as broken:
        assert unreachable(broken.url, 2.0) == f"{broken.url}/health answered HTTP 503"


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
    assert os.environ["MLFLOW_HTTP_REQUEST_MAX_RETRIES"] == "5"
    assert os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] == "10"
