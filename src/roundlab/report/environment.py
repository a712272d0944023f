"""Where and with what the numbers were made: versions, device, git commit, dvc.lock, time."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import yaml

from roundlab.results import RunResult
from roundlab.sweep.profile import PROFILES_FILE
from roundlab.versions import package_versions, roundlab_version


def recorded_versions(results: list[RunResult]) -> dict[str, str]:
    """The versions the training runs recorded; several values of one package are joined."""
    seen: dict[str, set[str]] = {}
    for r in results:
        for name, version in (r.versions or {}).items():
            seen.setdefault(name, set()).add(str(version))
    return {name: ", ".join(sorted(values)) for name, values in sorted(seen.items())}


def devices(results: list[RunResult]) -> dict[str, int]:
    """How many runs ran on each device."""
    return dict(Counter(r.device or "unrecorded" for r in results).most_common())


# Tracked paths the pipeline itself rewrites: the report's own outputs and the sweep's. A change
# there is not a change of the code that made the numbers, and counting it would make two builds
# of the same results differ (the first build rewrites headline.json, the second sees it dirty).
GENERATED = (
    "reports/headline.json",
    "reports/metrics",
    "reports/plots",
    "reports/figures",
    "reports/report.md",
    "reports/report.html",
    "dvc.lock",
    "results",
    "data",
)


def git_commit(root: Path) -> str:
    """``<sha>`` of HEAD, ``+ uncommitted changes`` when tracked files other than
    :data:`GENERATED` differ; ``unknown`` outside a git checkout."""
    try:
        sha = _git(root, "rev-parse", "HEAD")
        excluded = [f":(exclude){path}" for path in GENERATED]
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no", "--", ".", *excluded)
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return sha + (" + uncommitted changes" if dirty else "")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


def dvc_lock(root: Path) -> dict[str, str]:
    """The hash DVC recorded for the sweep's results/ output: the sweep stage's ``outs`` entry in
    dvc.lock, which a reader can check later. Not a hash of the whole dvc.lock: that file holds
    the hashes of this report's own outputs, so a report quoting it would change on every
    rebuild of identical results."""
    path = Path(root) / "dvc.lock"
    if not path.is_file():
        return {}
    out = {}
    stages = (yaml.safe_load(path.read_bytes()) or {}).get("stages", {})
    for out_entry in stages.get("sweep", {}).get("outs", []):
        out[f"sweep output {out_entry.get('path')} md5 (dvc.lock)"] = str(out_entry.get("md5"))
    return out


def total_run_time(results: list[RunResult]) -> float:
    """Seconds summed over every run that recorded its duration."""
    return sum(r.duration_s or 0.0 for r in results)


def processes_at_once(manifest: dict, root: Path) -> str | None:
    """How many training processes ran at once: ``processes`` (multiruns side by side) ×
    ``jobs`` (each multirun's joblib workers), from the sweep's manifest, or, for a manifest
    without ``processes``, from the profile of that name in ``<root>/profiles.yaml``. None when
    neither says."""
    processes = manifest.get("processes")
    source = ""
    if processes is None and manifest.get("profile"):
        path = Path(root) / PROFILES_FILE
        profiles = (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}
        profile = profiles.get(manifest["profile"])
        if isinstance(profile, dict):
            processes, source = profile.get("processes", 1), f" (processes from {PROFILES_FILE})"
    if processes is None:
        return None
    jobs = manifest.get("jobs") or 1
    return f"{processes * jobs}: processes {processes} × jobs {jobs}{source}"


def tables(runs: list[RunResult], manifest: dict, root: Path) -> dict[str, dict[str, str]]:
    """The environment section's tables, title -> item -> value: time taken, code and data,
    devices, and the package versions of the runs and of this build."""
    timing = {"training, summed over runs": f"{total_run_time(runs):.0f} s"}
    at_once = processes_at_once(manifest, root)
    if at_once:
        timing["training processes at once"] = at_once
    return {
        "Time taken": timing,
        "Code and data": {
            "roundlab": roundlab_version(),
            "git commit": git_commit(root),
            **dvc_lock(root),
        },
        "Devices the runs used (number of runs)": {k: str(v) for k, v in devices(runs).items()},
        "Package versions recorded by the training runs": recorded_versions(runs),
        "Package versions that built this report": package_versions(),
    }
