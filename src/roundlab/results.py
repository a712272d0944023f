"""The result file: one JSON document per training run, the only input of the report.

Training writes it (finished or failed), DVC tracks the directory, and the report reads it back,
so the report can be rebuilt from DVC-tracked files alone. MLflow receives the same content for
browsing but is never read by the report.

Layout: ``<results_dir>/<dataset>/<approach>/<variant>/lr=<learning_rate>/seed=<seed>.json``
(``.../resample=<r>/seed=<seed>.json`` for a run on resample ``r`` of a dataset with several),
the run's :class:`roundlab.runs.RunKey` decides it (``RunResult.key.result_path(results_dir)``).

Each file carries a digest of its content (:func:`content_digest`), checked whenever it is read:
a file edited by hand (a metric changed, a history shortened) is refused, so a resumed sweep
trains that run again and the report names the file instead of printing its numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from roundlab.paths import atomic_write
from roundlab.runs import DEFAULT_LEARNING_RATE, RUN_INDEPENDENT_KEYS, RunKey

# Files of every readable version load, the fields a version lacks left at their defaults
# (docs/result-schema.md says what each version holds): old results stay readable by the report.
FORMAT_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, FORMAT_VERSION)
# The first version whose files must carry their digest: one without is refused.
DIGEST_SINCE = 4
FINISHED = "FINISHED"
FAILED = "FAILED"
# Stopped by SIGINT or SIGTERM (roundlab.interruption), or found RUNNING after its process died.
KILLED = "KILLED"
STATUSES = (FINISHED, FAILED, KILLED)
# The splits a run is evaluated on (the training split is not).
EVAL_SPLITS = ("val", "test", "extrapolate")
METRICS = ("exact_match", "mae", "rmse", "within_one")
# The negative control (roundlab.activations.hard_round): TensorFlow has no gradient for round,
# so its runs fail before training with an error that starts with NO_GRADIENT
# (roundlab.engine.single); that failure is the result the control exists to show.
NEGATIVE_CONTROLS = ("hard_round",)
NO_GRADIENT = "no gradient"


class UnreadableResult(ValueError):
    """A result file that cannot be trusted: not JSON, not a result, of an unknown version, or
    edited since it was written (its digest does not match)."""


@dataclass
class RunResult:
    """One run.

    ``metrics`` and ``baseline`` map a split name (``val``, ``test``, ``extrapolate``) to a
    mapping of metric name (``exact_match``, ``mae``, ``rmse``, ``within_one``) to a float; a split
    the dataset does not have is absent. ``baseline`` is the constant predictor (training
    median). ``oracle`` maps the same splits to the dataset's best achievable
    ``exact_match`` and ``mae`` (:mod:`roundlab.data.oracle`); empty when the dataset has none.
    ``labels`` maps each split of the run's data (``train``, ``val``, ``test``,
    ``extrapolate``) to its distinct labels, sorted, so the report can state each split's label
    range and see a test label training never showed; empty when the data was never loaded (a
    run stopped before) or the file predates version 5.
    ``history`` maps a Keras history key to its per-epoch values. A failed run has
    ``status == "FAILED"``, an ``error`` saying why, and whatever metrics it got before failing;
    an interrupted one ``status == "KILLED"`` and ``error`` naming the signal.
    """

    status: str
    dataset: str
    approach: str
    seed: int
    activation: str | None = None
    activation_params: dict[str, float] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    baseline: dict[str, dict[str, float]] = field(default_factory=dict)
    oracle: dict[str, dict[str, float]] = field(default_factory=dict)
    labels: dict[str, list[int]] = field(default_factory=dict)
    zero_grad_fraction: float | None = None
    history: dict[str, list[float]] = field(default_factory=dict)
    best_epoch: int | None = None
    epochs_run: int | None = None
    converged: bool | None = None
    engine: dict[str, Any] = field(default_factory=dict)
    duration_s: float | None = None
    versions: dict[str, str] = field(default_factory=dict)
    device: str | None = None
    error: str | None = None
    mlflow_run_id: str | None = None
    # roundlab.run.fingerprint of config, code and data; a file without one is never reused
    fingerprint: str | None = None
    # FAILED for a reason the same fingerprint fails with again (roundlab.sweep.resume)
    deterministic_failure: bool = False
    # A finished run's saved model and what predicting needs
    # (roundlab.serving.saved_models.ModelCard)
    model: dict[str, Any] = field(default_factory=dict)
    # content_digest of the file it was read from or last written to; None for a file older
    # than DIGEST_SINCE, whose content nothing vouches for
    digest: str | None = None
    format_version: int = FORMAT_VERSION

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}. Received: status={self.status!r}")

    @property
    def key(self) -> RunKey:
        trainer = self.config.get("trainer") or {}
        return RunKey.of(
            self.dataset,
            self.approach,
            self.activation,
            self.activation_params,
            self.seed,
            trainer.get("learning_rate", DEFAULT_LEARNING_RATE),
            (self.config.get("approach") or {}).get("method"),
            (self.config.get("dataset") or {}).get("resample"),
        )

    @property
    def variant(self) -> str:
        return self.key.variant

    @property
    def ok(self) -> bool:
        return self.status == FINISHED

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> RunResult:
        known = {f.name for f in fields(cls)}
        missing = [key for key in ("status", "dataset", "approach", "seed") if key not in data]
        if missing:
            raise UnreadableResult(f"{source}: not a roundlab result file, missing keys {missing}")
        version = data.get("format_version")
        if version not in READABLE_VERSIONS:
            raise UnreadableResult(
                f"{source}: result format_version must be one of {READABLE_VERSIONS}. "
                f"Received: format_version={version!r}"
            )
        return cls(**{k: v for k, v in data.items() if k in known})


def expected_failure(result: RunResult) -> bool:
    """A failure the design expects, not a fault: a run of a negative control
    (:data:`NEGATIVE_CONTROLS`) that FAILED because its loss has no gradient. The sweep's progress
    and summaries count these apart from failures, and so does the report. Any other failure of
    such a run (a crash, a full disk) and every failure of another activation is a failure."""
    return (
        result.status == FAILED
        and result.activation in NEGATIVE_CONTROLS
        and (result.error or "").startswith(NO_GRADIENT)
    )


def setup_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Dotted config keys whose values differ between two runs' resolved configs.

    The seed and :data:`roundlab.runs.RUN_INDEPENDENT_KEYS` are left out: two runs that differ
    only there are the same setup. The result path encodes dataset, approach, rounding
    activation, learning rate and seed, so two runs of one path that differ elsewhere
    (``trainer.loss``, ``model.hidden_sizes``) collide; this names what differs.
    """
    ignored = {"seed", *RUN_INDEPENDENT_KEYS}
    old_flat, new_flat = flatten(old), flatten(new)
    keys = (old_flat.keys() | new_flat.keys()) - {
        k for k in old_flat | new_flat if k.split(".")[0] in ignored
    }
    return sorted(k for k in keys if old_flat.get(k) != new_flat.get(k))


def content_digest(document: dict[str, Any]) -> str:
    """SHA-256 of a result file's content: the canonical JSON (sorted keys, no whitespace,
    ASCII) of every field but ``digest`` itself, so metrics, baseline, oracle, history, config,
    status, error, fingerprint and model card are all covered."""
    body = {k: v for k, v in document.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def write(result: RunResult, path: Path) -> Path:
    """Write atomically (a crash or a full disk never leaves half a file for the report to choke
    on), with the content's digest, which is also set on ``result``."""
    document = _jsonable(result.to_dict())
    document["digest"] = result.digest = content_digest(document)
    return atomic_write(Path(path), json.dumps(document, indent=2, sort_keys=True) + "\n")


def read(path: Path) -> RunResult:
    """The result file at ``path``; :class:`UnreadableResult` naming it when it is not valid
    JSON, not a result file, of an unknown version, or its digest does not match its content."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UnreadableResult(
            f"{path}: not valid JSON ({err}); rerun the sweep (dvc repro)"
        ) from None
    if not isinstance(data, dict):
        raise UnreadableResult(f"{path}: not a roundlab result file, a JSON {type(data).__name__}")
    result = RunResult.from_dict(data, source=str(path))
    _check_digest(data, path)
    return result


def _check_digest(data: dict[str, Any], path: Path) -> None:
    recorded = data.get("digest")
    if recorded is None and data["format_version"] < DIGEST_SINCE:
        return  # written before digests: read as it is, never reused by a resumed sweep
    actual = content_digest(data)
    if recorded != actual:
        raise UnreadableResult(
            f"{path} must hold what training wrote, and its digest says it was edited since: "
            f"train that run again (python -m roundlab.sweep retrains it). "
            f"Received: digest={recorded}, content digest={actual}"
        )


def read_all(results_dir: Path) -> list[RunResult]:
    """Every result file (``seed=*.json``) below ``results_dir``, in a stable order."""
    return [read(p) for p in sorted(Path(results_dir).rglob("seed=*.json"))]


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``; lists and empty mappings stay whole values."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def _jsonable(value: Any) -> Any:
    """NaN and inf are not JSON: a diverged metric is written as null."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return _jsonable(value.item())
    return value
