"""A tracking server that is down or hangs costs seconds, not minutes: its health endpoint is
asked once per process (once per sweep, by the sweep itself), then the run or sweep fails
before training or trains untracked, per tracking.on_unreachable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roundlab import results
from roundlab.sweep import cli as sweep_cli
from roundlab.sweep.profile import parse_profile
from roundlab.sweep.tracking_check import JobTracking, job_tracking
from roundlab.tracking import server as tracking_server
from roundlab.tracking.server import policy, unreachable

from .processes import environment, result_files, run
from .servers import answering_server, hung_server

DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there
SMALL_DATA = ["n_train=300", "n_val=100", "n_test=100", "n_extrapolate=100"]


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


def _sweep_project(tmp_path, **profile):
    """A project root whose tracked profile ``p`` has two multiruns (two tiny regressions and
    a GLM reference), run two at once as the default profile does."""
    base = {
        "datasets": ["count"],
        "seeds": [0, 1],
        "approaches": ["regression", "glm_poisson"],  # two multiruns: networks, references
        "overrides": ["trainer.epochs=2", "model.hidden_sizes=[16]", "trainer.batch_size=32"],
        "dataset_overrides": {"count": SMALL_DATA},
        "processes": 2,
        "tracking": True,
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"datasets": ["count"], "profile": "p"}))
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"p": {**base, **profile}}))
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    return tmp_path


def _started_multiruns(root: Path) -> list[str]:
    """The commands of the multiruns the sweep started, from its log."""
    log = root / "multirun" / "_sweep_log.yaml"
    if not log.is_file():
        return []
    return [m["command"] for m in yaml.safe_load(log.read_text())["multiruns"]]


def _run_sweep(root, uri):
    env = {
        **os.environ,
        "ROUNDLAB_ROOT": str(root),
        "MLFLOW_TRACKING_URI": uri,
        "TF_CPP_MIN_LOG_LEVEL": "2",
    }
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml")]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def test_a_sweep_with_an_explicit_uri_that_is_down_or_hung_fails_before_any_multirun(
    tmp_path, unanswered
):
    uri, hung = unanswered
    root = _sweep_project(tmp_path)
    done = _run_sweep(root, uri)
    assert done.returncode == 1, done.stderr[-2000:]
    (line,) = _our_lines(done.stderr, "tracking error:")
    assert line.startswith(f"tracking error: MLflow tracking server {uri} is not reachable")
    # what a profile can do: the sweep takes no Hydra overrides such as tracking.enabled=false
    assert line.endswith(f"; {sweep_cli.SWEEP_TRACKING_ADVICE}")
    assert "Traceback" not in done.stderr
    assert _started_multiruns(root) == []
    assert not (root / "multirun").exists()
    assert not list(root.rglob("seed=*.json"))
    if hung is not None:
        assert len(hung.accepted) == 1


@pytest.mark.slow
def test_with_warn_a_sweep_warns_once_and_every_multirun_trains_untracked(tmp_path):
    root = _sweep_project(
        tmp_path,
        overrides=["trainer.epochs=2", "model.hidden_sizes=[16]", "tracking.on_unreachable=warn"],
    )
    with hung_server() as hung:
        done = _run_sweep(root, hung.url)
        asked = len(hung.accepted)
    assert done.returncode == 0, done.stderr[-2000:]
    assert asked == 1  # by the sweep; its multiruns were told tracking.enabled=false
    assert (done.stdout + done.stderr).count("is not reachable") == 1
    started = _started_multiruns(root)  # 3 runs of 2 families, packed into the workers
    assert started and all("tracking.enabled=false" in c for c in started)
    found = [results.read(p) for p in sorted((root / "results").rglob("seed=*.json"))]
    assert [(r.status, r.mlflow_run_id) for r in found] == [("FINISHED", None)] * 3


def _profile(*overrides):
    raw = {"datasets": ["count"], "seeds": [0], "overrides": list(overrides)}
    return parse_profile("p", raw, known_datasets=["count"])


def test_the_sweep_asks_with_the_tracking_settings_its_jobs_will_compose(monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", DEAD)
    assert job_tracking(_profile()) == JobTracking(True, DEAD, "auto", 3.0)  # conf's defaults
    tuned = _profile("tracking.on_unreachable=warn", "++tracking.connect_timeout_s=0.5")
    assert job_tracking(tuned) == JobTracking(True, DEAD, "warn", 0.5)
    other = _profile("tracking.uri='http://127.0.0.1:1'")
    assert job_tracking(other).uri == "http://127.0.0.1:1"


def test_a_bad_tracking_timeout_in_a_profile_is_one_config_error_line(tmp_path, capsys):
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets: [count]\n")
    profiles = {
        "p": {"datasets": ["count"], "seeds": [0], "overrides": ["tracking.connect_timeout_s=soon"]}
    }
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(profiles))
    args = ["--params", str(tmp_path / "params.yaml"), "--results", str(tmp_path / "results")]
    assert sweep_cli.main([*args, "--sweep-dir", str(tmp_path / "multirun")]) == 2
    assert capsys.readouterr().err == (
        "config error: tracking.connect_timeout_s must be a number of seconds. "
        "Received: tracking.connect_timeout_s='soon'\n"
    )
    assert not (tmp_path / "results").exists()


def test_predict_run_on_a_dead_store_bounds_mlflow_retries_and_says_so_in_one_error(monkeypatch):
    from roundlab.serving.saved_models import InputError
    from roundlab.tracking.model import predict_run

    for name in tracking_server.RETRY_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", DEAD)
    with pytest.raises(InputError, match=r"Received: --run=0{32} \(API request to http://127"):
        predict_run("0" * 32, {}, "input.csv")
    assert {
        name: os.environ[name] for name in tracking_server.RETRY_ENV
    } == tracking_server.RETRY_ENV
