"""MLflow runs left RUNNING by a process that can no longer end them (``kill -9``, a crash, a
lost node), marked KILLED when the next sweep starts.

A run is stale when it is still RUNNING and either

- it belongs to an earlier sweep into the same sweep directory (its ``roundlab.sweep_dir`` tag
  is this sweep's directory and its ``roundlab.sweep_id`` is not this sweep's: two sweeps never
  share a directory at once, so that sweep is over), or
- the process that owns it ran on this host (``roundlab.host``) and is gone (``roundlab.pid``).

Runs of live processes, and runs of other hosts in other sweep directories (a SLURM job may
still be running there), are left alone. Each marked run gets the tag
``roundlab.killed_reason`` saying why.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from roundlab.tracking.parents import SWEEP_ID_TAG, SWEEP_TAG
from roundlab.tracking.store import HOST_TAG, PID_TAG, every_run

log = logging.getLogger(__name__)

KILLED_TAG = "roundlab.killed_reason"


def mark_killed(mlflow_client: Any, sweep_dir: Path, sweep_id: str) -> int:
    """End every stale RUNNING run of the store KILLED (see the module doc) when the sweep
    ``sweep_id`` into ``sweep_dir`` starts; returns how many."""
    sweep_dir = Path(sweep_dir).absolute()
    marked = 0
    for run in _running(mlflow_client):
        reason = stale_reason(run.data.tags, sweep_dir, sweep_id)
        if reason is None:
            continue
        mlflow_client.set_tag(run.info.run_id, KILLED_TAG, reason)
        mlflow_client.set_terminated(run.info.run_id, "KILLED")
        marked += 1
    if marked:
        log.warning("%d MLflow run(s) left RUNNING by ended processes marked KILLED", marked)
    return marked


def stale_reason(tags: Mapping[str, str], sweep_dir: Path, sweep_id: str) -> str | None:
    """Why a RUNNING run with ``tags`` cannot still be running, or None when it may be."""
    if tags.get(SWEEP_TAG) == str(sweep_dir) and tags.get(SWEEP_ID_TAG) != sweep_id:
        return (
            f"still RUNNING when a new sweep into {sweep_dir} started: the earlier sweep's "
            f"process ended without closing it (kill -9 or a crash)"
        )
    host, pid = tags.get(HOST_TAG), tags.get(PID_TAG)
    if host == socket.gethostname() and pid is not None and not alive(int(pid)):
        return f"still RUNNING but its process {pid} on {host} is gone (kill -9 or a crash)"
    return None


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (signal 0 checks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _running(mlflow_client: Any) -> Iterator[Any]:
    exp_ids = [e.experiment_id for e in mlflow_client.search_experiments()]
    return every_run(mlflow_client, exp_ids, "attributes.status = 'RUNNING'")
