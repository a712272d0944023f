"""What a run's result becomes in MLflow: params, metrics, tags and the history artifact.

Params (:func:`run_params`) compare across runs: the flattened resolved config without the
parts a run does not use (the ``activation`` group outside approach=rounding, ``trainer.loss``
outside regression, ``trainer.huber_delta`` without the Huber loss, the early-stopping rule when
it is off), plus ``knob.name`` and ``knob.value`` for the output activation's parameter (beside
its own key, e.g. ``activation.steepness``), so one column compares steepness, width, alpha and
sigma runs. Metrics have one name each, ``<split>/<metric>`` (split in train, val, test,
extrapolate): the per-epoch history at steps 0..n-1 (Keras ``loss`` is ``train/loss``,
``val_exact_match`` is ``val/exact_match``), the final evaluation of the kept weights at step n
(n = epochs run), so the latest value is the result file's; ``baseline/<split>/<metric>`` is the
constant predictor. The training split is the run's dataset input (digest: the first 32 hex
digits of the SHA-256 of the data's meta.json). Tags: ``mlflow.source.git.commit`` (the
project's checkout), ``roundlab.profile`` (the sweep's profile, from ``$ROUNDLAB_PROFILE``),
``roundlab.result_file`` and the run description (``mlflow.note.content``) naming the result
file and the saved model; a failed run's reason is the tag ``roundlab.error``.
"""

from __future__ import annotations

import copy
import csv
import functools
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from roundlab import activations, approaches, paths
from roundlab.results import flatten
from roundlab.tracking.store import ERROR_TAG, PROFILE_ENV, _now_ms

MAX_PARAM = 6000  # MLflow's limit on a param value
MAX_TAG = 8000
GIT_COMMIT_TAG = "mlflow.source.git.commit"
NOTE_TAG = "mlflow.note.content"
# Set by roundlab.sweep for its multiruns: the profile the runs belong to.
PROFILE_TAG = "roundlab.profile"
DIGEST_LENGTH = 32  # MLflow stores at most 36 characters of a dataset digest
# The approaches that read trainer.loss (and, with the Huber loss, trainer.huber_delta).
TRAINER_LOSS_USERS = ("regression",)


def run_params(config: dict[str, Any]) -> dict[str, Any]:
    """The params a run logs: its flattened resolved config without the parts it does not use,
    plus ``knob.name``/``knob.value`` (see the module docstring)."""
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
