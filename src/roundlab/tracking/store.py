"""The MLflow store: a client on the tracking URI, its experiments, and the tags that name the
process owning a run.

Everything goes through an explicit ``MlflowClient`` (no fluent global state shared by the jobs
of one process, and no ``mlflow.tensorflow.autolog``, which needs TensorBoard). The store is
``roundlab.paths.default_tracking_uri()`` unless ``tracking.uri`` says otherwise; for an sqlite
store the artifacts go to ``mlartifacts/`` beside the database, not into the working directory.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import warnings
from pathlib import Path
from typing import Any

from roundlab import paths

# Set by the sweep stage for its multiruns: the profile the runs belong to (a tag of each run).
PROFILE_ENV = "ROUNDLAB_PROFILE"
HOST_TAG = "roundlab.host"
PID_TAG = "roundlab.pid"


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


def owner() -> dict[str, str]:
    """The tags naming this process, so a run it leaves RUNNING can be found dead later."""
    return {HOST_TAG: socket.gethostname(), PID_TAG: str(os.getpid())}


def _now_ms() -> int:
    return int(time.time() * 1000)
