"""MLflow: every run, finished or failed, browsable next to its siblings.

Scheme: one experiment per dataset (``tracking.experiment``, default ``${dataset.name}``); a
single run is a top-level run; in a Hydra multirun each job is a child of one parent run per
sweep and experiment (a sweep over two datasets has one parent in each experiment, since MLflow
nests runs only within an experiment). Each sweep gets its own parents, even into a directory
an earlier sweep used: :func:`begin_sweep` leaves a new sweep id in the sweep directory
(``.roundlab-sweep.json``), and the parent is found by its tags (``roundlab.role=sweep``,
``roundlab.sweep_dir=<absolute dir>``, ``roundlab.sweep_id=<id>``) or created, under a file
lock in the sweep directory, so jobs in one process (basic launcher) and in several (joblib,
SLURM on a shared file system) agree on one parent. :class:`roundlab.callbacks.SweepSummary`
closes the parents when the sweep ends. Every run carries the host and process id that own it
(``roundlab.host``, ``roundlab.pid``), so a run left RUNNING by a killed process can be told
from a live one (:mod:`roundlab.stale_runs`).

Params (:func:`run_params`) compare across runs: the flattened resolved config without the
parts a run does not use (the ``activation`` group outside approach=rounding, ``trainer.loss``
outside regression, ``trainer.huber_delta`` without the Huber loss, the early-stopping rule when
it is off), plus ``knob.name`` and ``knob.value`` for the output activation's parameter (beside
its own key, e.g. ``activation.steepness``), so one column compares steepness, width, alpha and
sigma runs. Metrics have one name each, ``<split>/<metric>`` (split in train, val, test,
extrapolate): the per-epoch history at steps 0..n-1 (Keras ``loss`` is ``train/loss``,
``val_exact_match`` is ``val/exact_match``), the final evaluation of the kept weights at step n
(n = epochs run), so the latest value is the result file's; ``baseline/<split>/<metric>`` is the
constant predictor. The training split is logged as the run's dataset input (name, digest =
the first 32 hex digits of the SHA-256 of the data's meta.json, source = its data directory).
Tags: ``mlflow.source.git.commit`` (the project's checkout), ``roundlab.profile`` (the sweep's
profile, from ``$ROUNDLAB_PROFILE``), ``roundlab.result_file`` and the run description
(``mlflow.note.content``) naming the result file and the saved model. Artifacts are the resolved
config (``config.yaml``), the history (``history.csv``), the result file and, with
``tracking.log_models``, the model (:mod:`roundlab.mlflow_model`). A failed run ends with status
FAILED (KILLED when interrupted) and its reason in the tag ``roundlab.error``.

Everything goes through an explicit ``MlflowClient`` (no fluent global state shared by the jobs
of one process, and no ``mlflow.tensorflow.autolog``, which needs TensorBoard). The store is
``roundlab.paths.default_tracking_uri()`` unless ``tracking.uri`` says otherwise; for an sqlite
store the artifacts go to ``mlartifacts/`` beside the database, not into the working directory.
"""

from __future__ import annotations

import copy
import csv
import functools
import hashlib
import json
import logging
import os
import socket
import subprocess
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from roundlab import paths
from roundlab.results import flatten

log = logging.getLogger(__name__)

ROLE_TAG = "roundlab.role"
SWEEP_TAG = "roundlab.sweep_dir"
SWEEP_ID_TAG = "roundlab.sweep_id"
ERROR_TAG = "roundlab.error"
HOST_TAG = "roundlab.host"
PID_TAG = "roundlab.pid"
LOCK_NAME = ".roundlab-mlflow.lock"
SWEEP_ID_FILE = ".roundlab-sweep.json"
# A sweep's parents count their children by status.
JOB_COUNTS = {"FINISHED": "jobs_finished", "FAILED": "jobs_failed", "KILLED": "jobs_killed"}
MAX_PARAM = 6000  # MLflow's limit on a param value
MAX_TAG = 8000
GIT_COMMIT_TAG = "mlflow.source.git.commit"
NOTE_TAG = "mlflow.note.content"
PROFILE_TAG = "roundlab.profile"
# Set by roundlab.sweep for its multiruns: the profile the runs belong to.
PROFILE_ENV = "ROUNDLAB_PROFILE"
DIGEST_LENGTH = 32  # MLflow stores at most 36 characters of a dataset digest
# The approaches that read trainer.loss (and, with the Huber loss, trainer.huber_delta).
TRAINER_LOSS_USERS = ("regression",)


def quiet() -> None:
    """Keep MLflow's and alembic's info chatter (schema migrations, run links) out of job logs.

    After importing mlflow, which sets its own logger's level when imported."""
    import mlflow  # noqa: F401

    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # no bars in logs
    for name in ("mlflow", "alembic", "sqlalchemy"):
        logging.getLogger(name).setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", module=r"mlflow\..*")


def client(uri: str | None = None) -> Any:
    quiet()
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri or paths.default_tracking_uri())


def prepare_store(uri: str | None = None) -> None:
    """Create the sqlite schema once, before parallel jobs would race to migrate it."""
    client(uri).search_experiments(max_results=1)


def experiment_id(mlflow_client: Any, name: str) -> str:
    from mlflow.exceptions import MlflowException

    found = mlflow_client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    try:
        return mlflow_client.create_experiment(
            name, artifact_location=_artifact_location(mlflow_client.tracking_uri)
        )
    except MlflowException:  # created meanwhile by a parallel job
        return mlflow_client.get_experiment_by_name(name).experiment_id


def _artifact_location(uri: str) -> str | None:
    """``<db dir>/mlartifacts`` for an sqlite store; the server's own default otherwise."""
    if not uri.startswith("sqlite:///"):
        return None
    db = Path(uri[len("sqlite:///") :]).absolute()
    return (db.parent / "mlartifacts").as_uri()


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    import fcntl

    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / LOCK_NAME, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def owner() -> dict[str, str]:
    """The tags naming this process, so a run it leaves RUNNING can be found dead later."""
    return {HOST_TAG: socket.gethostname(), PID_TAG: str(os.getpid())}


def begin_sweep(sweep_dir: Path) -> dict[str, str]:
    """Give the sweep into ``sweep_dir`` a new id (and this process as its owner), so its jobs
    make new parent runs instead of joining an earlier sweep's; returns the identity."""
    sweep_dir = Path(sweep_dir).absolute()
    with _locked(sweep_dir):
        return _new_identity(sweep_dir)


def sweep_identity(sweep_dir: Path) -> dict[str, str]:
    """The identity :func:`begin_sweep` left in ``sweep_dir``; a new one when there is none (a
    sweep started without roundlab's callback)."""
    sweep_dir = Path(sweep_dir).absolute()
    with _locked(sweep_dir):
        path = sweep_dir / SWEEP_ID_FILE
        return json.loads(path.read_text()) if path.is_file() else _new_identity(sweep_dir)


def _new_identity(sweep_dir: Path) -> dict[str, str]:
    identity = {SWEEP_ID_TAG: uuid.uuid4().hex, **owner()}
    (sweep_dir / SWEEP_ID_FILE).write_text(json.dumps(identity) + "\n")
    return identity


def _sweep_filter(sweep_dir: Path, sweep_id: str) -> str:
    return (
        f"tags.`{ROLE_TAG}` = 'sweep' and tags.`{SWEEP_TAG}` = '{sweep_dir}' "
        f"and tags.`{SWEEP_ID_TAG}` = '{sweep_id}'"
    )


def parent_run(mlflow_client: Any, experiment: str, sweep_dir: Path) -> str:
    """The id of the sweep's parent run in this experiment, created by the first job."""
    sweep_dir = Path(sweep_dir).absolute()
    identity = sweep_identity(sweep_dir)
    with _locked(sweep_dir):
        exp_id = experiment_id(mlflow_client, experiment)
        found = _sweep_filter(sweep_dir, identity[SWEEP_ID_TAG])
        runs = mlflow_client.search_runs([exp_id], found, max_results=1)
        if runs:
            return runs[0].info.run_id
        run = mlflow_client.create_run(
            exp_id,
            run_name=f"sweep {sweep_dir.name}",
            tags={ROLE_TAG: "sweep", SWEEP_TAG: str(sweep_dir), **identity},
        )
        return run.info.run_id


def close_parents(uri: str | None, sweep_dir: Path, status: str = "FINISHED") -> None:
    """End the current sweep's parent runs with ``status`` and how many of their children
    finished, failed and were killed."""
    from mlflow.entities import Metric

    mlflow_client = client(uri)
    sweep_dir = Path(sweep_dir).absolute()
    exp_ids = [e.experiment_id for e in mlflow_client.search_experiments()]
    if not exp_ids:
        return
    found = _sweep_filter(sweep_dir, sweep_identity(sweep_dir)[SWEEP_ID_TAG])
    for parent in mlflow_client.search_runs(exp_ids, found):
        run_id = parent.info.run_id
        children = mlflow_client.search_runs(
            [parent.info.experiment_id], f"tags.`mlflow.parentRunId` = '{run_id}'"
        )
        counts = dict.fromkeys(JOB_COUNTS.values(), 0)
        for child in children:
            counts[JOB_COUNTS.get(child.info.status, "jobs_failed")] += 1
        now = _now_ms()
        mlflow_client.log_batch(run_id, metrics=[Metric(k, v, now, 0) for k, v in counts.items()])
        mlflow_client.set_terminated(run_id, status)


def run_params(config: dict[str, Any]) -> dict[str, Any]:
    """The params a run logs: its flattened resolved config without the parts it does not use,
    plus ``knob.name``/``knob.value`` (see the module docstring)."""
    from roundlab import activations, approaches

    tree = copy.deepcopy(config)
    approach = tree["approach"]["name"]
    trainer = tree.get("trainer", {})
    if not approaches.get(approach).uses_activation:
        tree.pop("activation", None)
    if approach not in TRAINER_LOSS_USERS or trainer.get("loss") != "huber":
        trainer.pop("huber_delta", None)
    if approach not in TRAINER_LOSS_USERS:
        trainer.pop("loss", None)
    stopping = trainer.get("early_stopping") or {}
    if stopping and not stopping.get("enabled"):
        trainer["early_stopping"] = {"enabled": False}
    params = flatten(tree)
    activation = tree.get("activation")
    knob = activations.spec(activation["name"]).param if activation else None
    if knob is not None:
        params["knob.name"], params["knob.value"] = knob, activation[knob]
    return params


def metric_name(history_key: str) -> str:
    """A Keras history key as its ``<split>/<metric>`` name: ``val_mae`` -> ``val/mae``,
    ``loss`` -> ``train/loss``."""
    if history_key.startswith("val_"):
        return f"val/{history_key[len('val_') :]}"
    return f"train/{history_key}"


def data_digest(meta: dict[str, Any]) -> str:
    canonical = json.dumps(meta, sort_keys=True).encode()
    return hashlib.sha256(canonical).hexdigest()[:DIGEST_LENGTH]


@functools.cache
def git_commit() -> str | None:
    """The project checkout's commit, or None outside a git checkout."""
    try:
        found = subprocess.run(
            ["git", "-C", str(paths.project_root()), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() or None


def origin_tags() -> dict[str, str]:
    """Where a run comes from: the git commit and the sweep's profile, where known."""
    found = {GIT_COMMIT_TAG: git_commit(), PROFILE_TAG: os.environ.get(PROFILE_ENV)}
    return {k: v for k, v in found.items() if v}


def description(result_file: Path, model_file: Path | None) -> str:
    """The run's description: its result file and, for a finished run, its model."""
    lines = [f"Result file: `{result_file}`"]
    if model_file is not None:
        lines += [
            f"Model: `{model_file}`",
            f"Predict: `python -m roundlab.predict {result_file} --input data.csv`",
        ]
    return "\n\n".join(lines)


class RunTracker:
    """One training run in MLflow. A tracking error is logged and switches tracking off for the
    run instead of failing it: the result file, not MLflow, is the record the report reads."""

    def __init__(
        self,
        uri: str | None,
        experiment: str,
        run_name: str,
        sweep_dir: Path | None = None,
        tags: dict[str, str] | None = None,
        log_models: bool = True,
    ) -> None:
        self.run_id: str | None = None
        self.log_models = log_models
        self._client = None
        try:
            self._client = client(uri)
            exp_id = experiment_id(self._client, experiment)
            tags = {**(tags or {}), **owner(), **origin_tags()}
            if sweep_dir is not None:
                tags["mlflow.parentRunId"] = parent_run(self._client, experiment, sweep_dir)
                tags[SWEEP_TAG] = str(Path(sweep_dir).absolute())
                tags[SWEEP_ID_TAG] = sweep_identity(sweep_dir)[SWEEP_ID_TAG]
            self.run_id = self._client.create_run(exp_id, run_name=run_name, tags=tags).info.run_id
        except Exception as err:  # tracking must never fail a run
            self._disable(err)

    @property
    def active(self) -> bool:
        return self.run_id is not None

    def log_params(self, flat: dict[str, Any]) -> None:
        """Log ``flat`` (name -> value, e.g. :func:`run_params`) as the run's params."""
        from mlflow.entities import Param

        params = [Param(k, str(v)[:MAX_PARAM]) for k, v in flat.items()]
        self._guard(
            lambda: [
                self._client.log_batch(self.run_id, params=params[i : i + 100])
                for i in range(0, len(params), 100)
            ]
        )

    def log_dataset(self, dataset: Any) -> None:
        """The training split as the run's dataset input (context ``train``)."""
        self._guard(lambda: self._log_dataset(dataset))

    def _log_dataset(self, dataset: Any) -> None:
        import mlflow.data
        from mlflow.entities import DatasetInput, InputTag
        from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

        logged = mlflow.data.from_numpy(
            dataset.train.x,
            source=str(paths.data_dir() / dataset.name),
            targets=dataset.train.y,
            name=dataset.name,
            digest=data_digest(dataset.meta),
        )
        context = InputTag(MLFLOW_DATASET_CONTEXT, "train")
        entry = DatasetInput(logged._to_mlflow_entity(), tags=[context])
        self._client.log_inputs(self.run_id, datasets=[entry])

    def set_tag(self, key: str, value: str) -> None:
        self._guard(lambda: self._client.set_tag(self.run_id, key, value))

    def finish(
        self, result: Any, config_yaml: str, result_file: Path, model_file: Path | None = None
    ) -> None:
        """Log metrics, tags and artifacts of the finished or failed run (with ``model_file``,
        its model too, when :attr:`log_models`), then end it."""
        self._guard(lambda: self._finish(result, config_yaml, result_file, model_file))

    def _finish(
        self, result: Any, config_yaml: str, result_file: Path, model_file: Path | None
    ) -> None:
        from mlflow.entities import RunTag

        metrics = final_metrics(result)
        tags = [RunTag(k, v) for k, v in result_tags(result, result_file, model_file).items()]
        # One batch per 1000 metrics (MLflow's limit), the tags with the first: each call is
        # a transaction of the store, and a sweep records hundreds of runs.
        for i in range(0, max(len(metrics), 1), 1000):
            batch_tags = tags if i == 0 else []
            self._client.log_batch(self.run_id, metrics=metrics[i : i + 1000], tags=batch_tags)
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "config.yaml").write_text(config_yaml)
            write_history_csv(result.history, Path(tmp) / "history.csv")
            self._client.log_artifact(self.run_id, str(Path(tmp) / "config.yaml"))
            self._client.log_artifact(self.run_id, str(Path(tmp) / "history.csv"))
        self._client.log_artifact(self.run_id, str(result_file))
        if model_file is not None and self.log_models:
            self._log_model(result_file, model_file, result.model["features"])
        # roundlab's statuses (FINISHED, FAILED, KILLED) are MLflow run statuses.
        self._client.set_terminated(self.run_id, result.status)

    def _log_model(self, result_file: Path, model_file: Path, features: list[str]) -> None:
        """The model as ``runs:/<id>/model``; a failure costs the model, not the run's record."""
        from roundlab import mlflow_model

        try:
            mlflow_model.log(self._client, self.run_id, result_file, model_file, features)
        except Exception as err:
            log.warning("the model was not logged to MLflow: %s: %s", type(err).__name__, err)

    def _guard(self, action: Any) -> None:
        if not self.active:
            return
        try:
            action()
        except Exception as err:  # tracking must never fail a run
            self._disable(err)

    def _disable(self, err: Exception) -> None:
        log.warning("MLflow tracking switched off for this run: %s: %s", type(err).__name__, err)
        self.run_id = None


def final_metrics(result: Any) -> list[Any]:
    """The history at steps 0..n-1 and the final evaluation at step n, one name per metric
    (:func:`metric_name`); the baseline and the run's own numbers at step 0."""
    from mlflow.entities import Metric

    now = _now_ms()
    metrics = [
        Metric(metric_name(key), float(value), now, epoch)
        for key, values in result.history.items()
        for epoch, value in enumerate(values)
        if value is not None
    ]
    last = result.epochs_run or 0
    for prefix, table, step in (("", result.metrics, last), ("baseline/", result.baseline, 0)):
        for split, values in table.items():
            metrics += [
                Metric(f"{prefix}{split}/{k}", float(v), now, step) for k, v in values.items()
            ]
    for key in ("zero_grad_fraction", "duration_s", "best_epoch", "epochs_run"):
        if getattr(result, key) is not None:
            metrics.append(Metric(key, float(getattr(result, key)), now, 0))
    return metrics


def result_tags(result: Any, result_file: Path, model_file: Path | None) -> dict[str, str]:
    """The device, engine, result file, description and error of a run, as tags."""
    tags = {
        "roundlab.result_file": str(result_file),
        NOTE_TAG: description(result_file, model_file),
    }
    if result.device:
        tags["roundlab.device"] = result.device
    for key, value in result.engine.items():
        tags["roundlab.engine" if key == "name" else f"roundlab.{key}"] = str(value).lower()
    if result.error:
        tags[ERROR_TAG] = result.error[:MAX_TAG]
    return tags


def write_history_csv(history: dict[str, list[float]], path: Path) -> None:
    keys = sorted(history)
    n = max((len(v) for v in history.values()), default=0)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["epoch", *keys])
        for epoch in range(n):
            writer.writerow([epoch, *(_at(history[k], epoch) for k in keys)])


def _at(values: list[float], i: int) -> Any:
    return values[i] if i < len(values) else ""


def _now_ms() -> int:
    return int(time.time() * 1000)
