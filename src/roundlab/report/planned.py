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
    neither is known. In the project's own results/, a dataset of params.yaml whose record alone
    is missing gets its plan recomputed beside the others' records, rather than dropped from the
    report. Raises ConfigError for a profile that cannot be read."""
    results_dir = Path(results_dir)
    datasets = pipeline_datasets(results_dir, root)
    found = read_manifest(results_dir, datasets)
    single = (results_dir / paths.SWEEP_MANIFEST).is_file()
    lacking = [d for d in datasets or [] if not (results_dir / d / paths.SWEEP_MANIFEST).is_file()]
    if found and (single or not lacking):
        return found
    recomputed = _recomputed(results_dir, root, profile, lacking if found else None)
    if not found or not recomputed:
        return found or recomputed
    profiles = [*str(found["profile"]).split(", "), recomputed["profile"]]
    return {
        **found,
        "profile": ", ".join(dict.fromkeys(profiles)),
        "datasets": [*found["datasets"], *recomputed["datasets"]],
        "planned": [*found["planned"], *recomputed["planned"]],
        RECOMPUTED: f"{PROFILES_FILE} for {', '.join(lacking)}",
    }


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
        parts = [chosen] if datasets is None else [only(chosen, d) for d in datasets]
        parts = [part for part in parts if set(part.datasets) <= set(chosen.datasets)]
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
