"""The sweep's record of its plan: ``results/<dataset>/_sweep.yaml`` for every dataset it ran.

Each holds the profile, how many jobs ran at once (``jobs`` per multirun, ``processes``
multiruns) and the result files planned for that dataset (relative to results/), written before
any multirun starts and rewritten as rounds of rate extensions are planned (in one order: the
planned multiruns, then the extensions by round and by the plan's order of families), so the
report can name runs that left no file even after a crash. One file per dataset, inside the
dataset's own results directory, because the DVC pipeline sweeps each dataset in its own stage
(``sweep@<name>``, whose output is ``results/<name>``): a stage rewrites only its dataset's
record. It holds nothing that changes from one run of the same plan to the next, so a resumed
sweep that reuses every run leaves results/ byte-identical.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from roundlab import paths
from roundlab.errors import ConfigError
from roundlab.sweep.plan import Multirun
from roundlab.sweep.profile import Profile

FILE = paths.SWEEP_MANIFEST


def start(profile: Profile, results_dir: Path) -> dict[str, dict[str, Any]]:
    """An empty record for each dataset of ``profile``, written."""
    records = {
        d: {
            "profile": profile.name,
            "jobs": profile.jobs,
            "processes": profile.processes,
            "dataset": d,
            "planned": [],
        }
        for d in profile.datasets
    }
    for d, record in records.items():
        _write(results_dir, d, record)
    return records


def add(records: dict[str, dict[str, Any]], multiruns: list[Multirun], results_dir: Path) -> None:
    """Add the runs of ``multiruns`` to their datasets' ``planned`` and write those records."""
    touched = set()
    for m in multiruns:
        for run in m.runs:
            path = _relative(run.result_path(results_dir), results_dir)
            records[run.dataset]["planned"].append(path)
            touched.add(run.dataset)
    for d in sorted(touched):
        _write(results_dir, d, records[d])


def replan(
    records: dict[str, dict[str, Any]], multiruns: list[Multirun], results_dir: Path
) -> None:
    """Set every dataset's ``planned`` to the runs of ``multiruns``, in their order, and write
    the records that changed: the caller gives one order for one plan however its rounds came
    to be planned (:mod:`roundlab.sweep.rounds` plans each family's rounds as they end)."""
    planned: dict[str, list[str]] = {d: [] for d in records}
    for m in multiruns:
        for run in m.runs:
            planned[run.dataset].append(_relative(run.result_path(results_dir), results_dir))
    for d, files in planned.items():
        if records[d]["planned"] != files:
            records[d]["planned"] = files
            _write(results_dir, d, records[d])


def _relative(path: Path, results_dir: Path) -> str:
    return path.relative_to(results_dir).as_posix()


def remove(results_dir: Path, datasets: Iterable[str]) -> None:
    """Remove the records of ``datasets`` and the single record of older sweeps."""
    (Path(results_dir) / FILE).unlink(missing_ok=True)
    for d in datasets:
        (Path(results_dir) / d / FILE).unlink(missing_ok=True)


def read(results_dir: Path, datasets: Iterable[str] | None = None) -> dict[str, Any]:
    """The records under ``results_dir`` (of ``datasets`` only, when given) as one: the
    profile(s), jobs and processes, the datasets and every planned file; {} when there is none.
    An older sweep's single ``results/_sweep.yaml`` is read as it is."""
    single = Path(results_dir) / FILE
    if single.is_file():
        return _load(single)
    records = _records(results_dir, datasets)
    if not records:
        return {}
    profiles = list(dict.fromkeys(str(r.get("profile")) for r in records))
    return {
        "profile": ", ".join(profiles),
        "jobs": max(int(r.get("jobs", 1)) for r in records),
        "processes": max(int(r.get("processes", 1)) for r in records),
        "datasets": [r.get("dataset") for r in records],
        "planned": [p for r in records for p in r.get("planned", [])],
    }


def profiles(results_dir: Path, datasets: Iterable[str] | None = None) -> set[str]:
    """The profiles whose plans ``results_dir`` records (``datasets``' only, when given)."""
    single = Path(results_dir) / FILE
    records = [_load(single)] if single.is_file() else []
    return {str(r["profile"]) for r in records + _records(results_dir, datasets) if "profile" in r}


def _records(results_dir: Path, datasets: Iterable[str] | None) -> list[dict[str, Any]]:
    results_dir = Path(results_dir)
    files = (
        sorted(results_dir.glob(f"*/{FILE}"))
        if datasets is None
        else [results_dir / d / FILE for d in datasets]
    )
    return [_load(f, dataset=f.parent.name) for f in files if f.is_file()]


def _load(file: Path, dataset: str | None = None) -> dict[str, Any]:
    """One record (of ``dataset``, for a dataset's own; an older sweep's single record names
    none); a file that is not one (cut short, edited by hand, unreadable) is a ConfigError naming
    it, since what it should hold is unknown and the sweep writes it again."""
    try:
        record = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, OSError) as err:
        reason = " ".join(str(err).split())
        raise ConfigError(f"{file} is not a readable sweep record ({reason}); {_AGAIN}") from err
    problem = _problem(record, dataset)
    if problem:
        raise ConfigError(f"{file} is not a sweep record: {problem}; {_AGAIN}")
    return record


def _problem(record: Any, dataset: str | None) -> str | None:
    """What keeps ``record`` from being one the sweep wrote, or None: the report and the sweep
    read these keys as these types, and a record that drops one would drop its dataset."""
    if not isinstance(record, dict):
        return f"it holds {_shown(record)}, not a mapping"
    if not isinstance(record.get("profile"), str) or not record["profile"]:
        return f"its profile is {_shown(record.get('profile'))}, not a profile's name"
    if dataset is not None and record.get("dataset") != dataset:
        return f"its dataset is {_shown(record.get('dataset'))}, not {dataset!r}"
    for key in ("jobs", "processes"):
        value = record.get(key, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"its {key} is {_shown(value)}, not a count of at least 1"
    planned = record.get("planned")
    if not isinstance(planned, list):
        return f"its planned is {_shown(planned)}, not a list of result files"
    for entry in planned:
        if not isinstance(entry, str) or not _inside(entry):
            return f"its planned holds {_shown(entry)}, not a result file's path inside results/"
    return None


def _inside(entry: str) -> bool:
    """A relative POSIX path below results/, as the sweep writes them (a backslash or a drive
    would name another file on another system)."""
    path = PurePosixPath(entry)
    return bool(entry) and "\\" not in entry and not path.is_absolute() and ".." not in path.parts


def _shown(value: Any) -> str:
    """``value`` as the message names it: its text, cut short in the middle when long."""
    if value is None or isinstance(value, (dict, list)) and not value:
        return "nothing" if value is None else f"an empty {type(value).__name__}"
    shown = repr(value)
    return shown if len(shown) <= 160 else f"{shown[:78]}...{shown[-78:]}"


_AGAIN = (
    "remove it: the next sweep writes the record anew, and the report recomputes the plan "
    "meanwhile (of params.yaml's profile in the project's results/; elsewhere, of --profile NAME)"
)


def _write(results_dir: Path, dataset: str, record: dict[str, Any]) -> None:
    paths.atomic_write(Path(results_dir) / dataset / FILE, yaml.safe_dump(record, sort_keys=False))
