"""Which runs the report expects, so that it can name every planned run without a result file.

The sweep writes its plan to ``results/<dataset>/_sweep.yaml`` before any multirun starts
(:mod:`roundlab.sweep.manifest`); for the project's own ``results/`` only the datasets of
params.yaml count (a dataset dropped from it leaves its directory behind, outside the pipeline).
When those files are gone (deleted, lost with a disk that filled, or results from before they
were written first), the plan is recomputed from the profile with the sweep's own planning code
(:func:`roundlab.sweep.plan.plan`, with the resamples the result files show): the profile named
by ``profile``, else, for the project's own ``results/`` (the DVC stage's), the active profile
of params.yaml. The rate extensions are recomputed from the result files present, round after
round, as the sweep planned them (:func:`roundlab.sweep.extend.all_rounds`): a round whose runs
left no file ends it, so an extension that a missing run would have led to is not named. Another
results directory without a manifest has no known plan: nothing says which profile wrote it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from roundlab import paths
from roundlab.data import entries
from roundlab.errors import ConfigError
from roundlab.sweep import manifest
from roundlab.sweep.extend import all_rounds
from roundlab.sweep.plan import plan
from roundlab.sweep.profile import PROFILES_FILE, load_profile, only

PARAMS_FILE = "params.yaml"
# The manifest key saying the plan was recomputed, and from what.
RECOMPUTED = "recomputed_from"


def read_manifest(results_dir: Path, datasets: list[str] | None = None) -> dict[str, Any]:
    """The sweep's records (profile, jobs, planned result files) of ``datasets`` (default:
    every one found) as one, or {} when absent."""
    return manifest.read(results_dir, datasets)


def pipeline_datasets(results_dir: Path, root: Path) -> list[str] | None:
    """params.yaml's datasets when ``results_dir`` is the project's own results/, else None."""
    params = Path(root) / PARAMS_FILE
    own = Path(results_dir).absolute() == (Path(root) / "results").absolute()
    if not own or not params.is_file():
        return None
    return list(entries.parse((yaml.safe_load(params.read_text()) or {}).get("datasets")))


def planned_runs(results_dir: Path, root: Path, profile: str | None = None) -> dict[str, Any]:
    """The manifest of the sweep that wrote ``results_dir``; without one, the plan of
    ``profile`` (default: params.yaml's active profile, for ``<root>/results`` only) recomputed
    from ``<root>/params.yaml`` and the profiles beside it, with ``recomputed_from`` set; {} when
    neither is known. A dataset whose record alone is missing (of params.yaml's, in the project's
    own results/; of ``profile``'s, in another directory) gets its plan recomputed beside the
    others' records, rather than dropped from the report. Raises ConfigError for a profile that
    cannot be read."""
    results_dir = Path(results_dir)
    found = read_manifest(results_dir, pipeline_datasets(results_dir, root))
    if not found or (results_dir / paths.SWEEP_MANIFEST).is_file():
        return found or _recomputed(results_dir, root, profile, None)
    expected = _expected_datasets(results_dir, root, profile) or []
    lacking = [d for d in expected if not (results_dir / d / paths.SWEEP_MANIFEST).is_file()]
    recomputed = _recomputed(results_dir, root, profile, lacking) if lacking else {}
    if not recomputed.get("datasets"):  # none, or none that the profile trains
        return found
    profiles = [*str(found["profile"]).split(", "), recomputed["profile"]]
    return {
        **found,
        "profile": ", ".join(dict.fromkeys(profiles)),
        "datasets": [*found["datasets"], *recomputed["datasets"]],
        "planned": [*found["planned"], *recomputed["planned"]],
        RECOMPUTED: f"{PROFILES_FILE} for {', '.join(recomputed['datasets'])}",
    }


def _expected_datasets(results_dir: Path, root: Path, profile: str | None) -> list[str] | None:
    """The datasets ``results_dir`` should hold records of: params.yaml's in the project's own
    results/, else ``profile``'s when one is named; None when neither is known."""
    own = pipeline_datasets(results_dir, root)
    params = Path(root) / PARAMS_FILE
    if own is not None or profile is None or not params.is_file():
        return own
    try:
        return list(load_profile(params, profile).datasets)
    except ValueError as err:
        raise ConfigError(f"{err} (reading the plan of {results_dir})") from None


def _recomputed(
    results_dir: Path, root: Path, profile: str | None, datasets: list[str] | None
) -> dict[str, Any]:
    """The plan of ``profile`` (on ``datasets`` of it only, when given) recomputed, or {}."""
    params = Path(root) / PARAMS_FILE
    own = results_dir.absolute() == (Path(root) / "results").absolute()
    if not params.is_file() or (profile is None and not own):
        return {}
    try:
        chosen = load_profile(params, profile)
        trained = [d for d in datasets or [] if d in chosen.datasets]
        parts = [chosen] if datasets is None else [only(chosen, d) for d in trained]
        multiruns = []
        for part in parts:
            planned = plan(part, resamples_of=lambda d, *_: resamples_seen(results_dir, d))
            multiruns += planned + all_rounds(part, planned, results_dir)
    except ValueError as err:
        message = f"{err} (recomputing the plan: {paths.SWEEP_MANIFEST} is missing)"
        raise ConfigError(message) from None
    files = [p.relative_to(results_dir) for m in multiruns for p in m.result_files(results_dir)]
    return {
        "profile": chosen.name,
        "jobs": chosen.jobs,
        "processes": chosen.processes,
        "datasets": [d for part in parts for d in part.datasets],
        "planned": [p.as_posix() for p in files],
        RECOMPUTED: PROFILES_FILE,
    }


def resamples_seen(results_dir: Path, dataset: str) -> int:
    """How many resamples the result files of ``dataset`` show: one more than the largest
    ``resample=<r>`` directory below it, 1 without any. The report reads results/, not the
    dataset configs, so a recomputed plan misses only resamples none of whose runs wrote a
    file."""
    found = [
        int(d.name.removeprefix("resample="))
        for d in (Path(results_dir) / dataset).glob("**/resample=*")
        if d.is_dir() and d.name.removeprefix("resample=").isdigit()
    ]
    return max(found, default=0) + 1


def missing_runs(results_dir: Path, manifest: dict[str, Any]) -> list[str]:
    """Result files the sweep planned that do not exist."""
    return sorted(p for p in manifest.get("planned", []) if not (results_dir / p).is_file())
