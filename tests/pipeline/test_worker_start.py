"""A sweep's worker starts without full garbage collections: the collector's generation 2 is
never walked between the interpreter's start and the freeze before its first task
(roundlab/train.py, hydra_plugins/roundlab_vectorized_launcher/sweeper.py), the young
generations are, and afterwards the worker runs with its own thresholds. It imports Keras
without scikit-learn and pyplot, which stay importable. Watched from inside real processes
through a ``sitecustomize`` that logs the collector's callbacks and the imported modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hydra_plugins.roundlab_vectorized_launcher.sweeper import WORKER_GC_THRESHOLDS
from roundlab.sweep import queue

pytestmark = pytest.mark.slow

WATCH = """
import atexit, gc, importlib.util, json, os, sys

seen = {"before_freeze": [0, 0, 0], "after_freeze": [0, 0, 0], "frozen": False}

def _count(phase, info):
    if phase == "start":
        seen["after_freeze" if seen["frozen"] else "before_freeze"][info["generation"]] += 1

_freeze = gc.freeze

def _freezing():
    seen["frozen"] = True
    _freeze()

gc.callbacks.append(_count)
gc.freeze = _freezing

NAMES = ("keras", "sklearn", "matplotlib")

@atexit.register
def _write():
    seen["threshold"] = gc.get_threshold()
    seen["freeze_count"] = gc.get_freeze_count()
    # what the process imported, and whether Keras' optional packages can still be imported
    seen["imported"] = {n: sys.modules.get(n) is not None for n in NAMES}
    seen["importable"] = {n: importlib.util.find_spec(n) is not None for n in NAMES}
    with open(os.environ["GC_WATCH_FILE"], "w") as out:
        json.dump(seen, out)
"""


def _run_watched(tmp_path: Path, *args: str) -> dict:
    watch = tmp_path / "watch"
    watch.mkdir(exist_ok=True)
    (watch / "sitecustomize.py").write_text(WATCH)
    out = tmp_path / "gc.json"
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(watch), env.get("PYTHONPATH")]))
    env |= {"GC_WATCH_FILE": str(out), "ROUNDLAB_ROOT": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "roundlab.train", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(out.read_text())


def test_a_worker_makes_no_full_collection_before_its_first_task(tmp_path):
    tasks = tmp_path / "queue"
    tasks.mkdir()
    queue.stop(tasks)  # the worker starts, opens its store, finds no task and ends
    seen = _run_watched(
        tmp_path,
        "-m",
        f"results_dir={tmp_path / 'results'}",
        f"hydra.sweep.dir={tmp_path / 'multirun' / 'worker-1'}",
        "hydra/launcher=vectorized",
        f"{queue.KEY}={tasks}",
    )
    assert seen["frozen"]
    assert seen["before_freeze"][2] == 0
    assert seen["before_freeze"][0] > 100  # its young garbage was collected all along
    assert tuple(seen["threshold"]) == WORKER_GC_THRESHOLDS
    assert seen["freeze_count"] > 100_000  # TensorFlow's, Keras' and MLflow's objects
    # Keras was imported without its optional scikit-learn and pyplot, which import as usual
    assert seen["imported"] == {"keras": True, "sklearn": False, "matplotlib": False}
    assert seen["importable"] == {"keras": True, "sklearn": True, "matplotlib": True}


@pytest.mark.parametrize(
    "args",
    [["--cfg", "job"], ["-m", f"{queue.KEY}=null", "--help"]],
    ids=["a run", "a multirun without a queue"],
)
def test_any_other_run_of_the_command_keeps_the_collector_as_it_is(tmp_path, args):
    seen = _run_watched(tmp_path, *args)
    assert not seen["frozen"]
    assert seen["before_freeze"][2] > 0  # importing TensorFlow sets off full collections
    assert tuple(seen["threshold"]) == (700, 10, 10)
    assert seen["imported"] == {"keras": True, "sklearn": True, "matplotlib": True}
