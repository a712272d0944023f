"""A sweep's parent runs: one per sweep and experiment, its jobs' runs their children.

MLflow nests runs only within an experiment, so a sweep over two datasets has one parent in
each. Each sweep gets its own parents, even into a directory an earlier sweep used:
:func:`begin_sweep` leaves a new sweep id in the sweep directory (``.roundlab-sweep.json``), and
the parent is found by its tags (``roundlab.role=sweep``, ``roundlab.sweep_dir=<absolute dir>``,
``roundlab.sweep_id=<id>``) or created, under a file lock in the sweep directory, so jobs in one
process (basic launcher) and in several (joblib, SLURM on a shared file system) agree on one
parent. The sweep's Hydra callback (:mod:`roundlab.sweep.callback`) closes the parents when the
sweep ends, with their children counted by status.
"""

from __future__ import annotations

import fcntl
import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from roundlab.paths import atomic_write
from roundlab.results import expected_failure
from roundlab.tracking import writer
from roundlab.tracking.store import (
    ERROR_TAG,
    _now_ms,
    client,
    every_run,
    experiment_id,
    owner,
)

ROLE_TAG = "roundlab.role"
SWEEP_TAG = "roundlab.sweep_dir"
SWEEP_ID_TAG = "roundlab.sweep_id"
LOCK_NAME = ".roundlab-mlflow.lock"
SWEEP_ID_FILE = ".roundlab-sweep.json"
# A sweep's parents count their children by status, and the failures the design expects (the
# negative control's, roundlab.results.expected_failure) apart from the failed, as the sweep's
# summary line and the report do: a healthy sweep's parent shows jobs_failed 0.
JOB_COUNTS = {"FINISHED": "jobs_finished", "FAILED": "jobs_failed", "KILLED": "jobs_killed"}
EXPECTED_COUNT = "jobs_expected_failures"


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / LOCK_NAME, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
    atomic_write(sweep_dir / SWEEP_ID_FILE, json.dumps(identity) + "\n")
    return identity


def _sweep_filter(sweep_dir: Path, sweep_id: str) -> str:
    return (
        f"tags.`{ROLE_TAG}` = 'sweep' and tags.`{SWEEP_TAG}` = '{sweep_dir}' "
        f"and tags.`{SWEEP_ID_TAG}` = '{sweep_id}'"
    )


def parent_run(mlflow_client: Any, experiment: str, sweep_dir: Path) -> str:
    """The id of the sweep's parent run in this experiment, created by the first job; found
    once per process and sweep (the sweep id names the sweep, so a new sweep into the same
    directory still gets its own parent)."""
    sweep_dir = Path(sweep_dir).absolute()
    identity = sweep_identity(sweep_dir)
    key = (mlflow_client.tracking_uri, experiment, str(sweep_dir), identity[SWEEP_ID_TAG])
    if key not in _parents:
        _parents[key] = _parent_run(mlflow_client, experiment, sweep_dir, identity)
    return _parents[key]


# (store, experiment, sweep dir, sweep id) -> the parent's run id, for this process.
_parents: dict[tuple[str, str, str, str], str] = {}


def _parent_run(
    mlflow_client: Any, experiment: str, sweep_dir: Path, identity: dict[str, str]
) -> str:
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

    writer.flush()  # the children's deferred ends, before they are counted
    mlflow_client = client(uri)
    sweep_dir = Path(sweep_dir).absolute()
    exp_ids = [e.experiment_id for e in mlflow_client.search_experiments()]
    if not exp_ids:
        return
    found = _sweep_filter(sweep_dir, sweep_identity(sweep_dir)[SWEEP_ID_TAG])
    for parent in mlflow_client.search_runs(exp_ids, found):
        run_id = parent.info.run_id
        children = every_run(
            mlflow_client, [parent.info.experiment_id], f"tags.`mlflow.parentRunId` = '{run_id}'"
        )
        counts = dict.fromkeys([*JOB_COUNTS.values(), EXPECTED_COUNT], 0)
        for child in children:
            counts[_count_of(child)] += 1
        now = _now_ms()
        mlflow_client.log_batch(run_id, metrics=[Metric(k, v, now, 0) for k, v in counts.items()])
        mlflow_client.set_terminated(run_id, status)


def _count_of(child: Any) -> str:
    """The parent's count a child run adds to: by its status, an expected failure apart, by
    :func:`roundlab.results.expected_failure` on the fields of its result the run holds."""
    result = SimpleNamespace(
        status=child.info.status,
        activation=child.data.params.get("activation.name"),
        error=child.data.tags.get(ERROR_TAG),
    )
    return (
        EXPECTED_COUNT if expected_failure(result) else JOB_COUNTS.get(result.status, "jobs_failed")
    )
