"""Where and with what the numbers were made: versions, device, git commit, dvc.lock, time."""

from __future__ import annotations

import hashlib
import subprocess
from collections import Counter
from pathlib import Path

import yaml

from roundlab.results import RunResult


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


def git_commit(root: Path) -> str:
    """``<sha>`` of HEAD, ``+ uncommitted changes`` when tracked files differ; ``unknown``
    outside a git checkout."""
    try:
        sha = _git(root, "rev-parse", "HEAD")
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return sha + (" + uncommitted changes" if dirty else "")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


def dvc_lock(root: Path) -> dict[str, str]:
    """The sha256 of dvc.lock as the report found it, and the hash DVC recorded for the sweep's
    results/ output. DVC rewrites dvc.lock after this stage, so the results hash is the one a
    reader can check later: it is the sweep stage's ``outs`` entry in dvc.lock."""
    path = Path(root) / "dvc.lock"
    if not path.is_file():
        return {}
    raw = path.read_bytes()
    out = {"dvc.lock sha256 (at report time)": hashlib.sha256(raw).hexdigest()}
    stages = (yaml.safe_load(raw) or {}).get("stages", {})
    for out_entry in stages.get("sweep", {}).get("outs", []):
        out[f"sweep output {out_entry.get('path')} md5 (dvc.lock)"] = str(out_entry.get("md5"))
    return out


def total_run_time(results: list[RunResult]) -> float:
    """Seconds summed over every run that recorded its duration."""
    return sum(r.duration_s or 0.0 for r in results)
