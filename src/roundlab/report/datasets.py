"""What the result files record about each dataset's splits and how its runs chose on val: the
labels each split holds, the test labels training never saw, and the selection method (the fixed
validation split, or k-fold cross-validation inside train+val). Values only; method.py writes
them.

Both are read defensively: ``RunResult.labels`` (split -> distinct sorted labels the run saw)
and ``RunResult.engine["selection"]`` (``{"method": "kfold", "folds": 5, ...}`` or
``{"method": "holdout"}``) are absent from older result files, and a dataset whose runs record
neither has nothing to state.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from roundlab.results import RunResult

SPLIT_ORDER = ("train", "val", "test", "extrapolate")


@dataclass(frozen=True)
class DatasetFacts:
    """``labels``: split -> the distinct labels its finished runs saw (the union over runs, so
    repeated splits of one dataset are covered); ``unseen``: test labels some run's training
    split did not hold (classification and ordinal heads cannot predict them); ``selection``:
    how its runs chose on val, one description per distinct recorded method."""

    dataset: str
    labels: dict[str, tuple[int, ...]]
    unseen: tuple[int, ...]
    selection: tuple[str, ...]


def _labels(run: RunResult) -> dict[str, list[int]]:
    raw = getattr(run, "labels", None) or {}
    return {
        split: [int(v) for v in values] for split, values in raw.items() if isinstance(values, list)
    }


def describe_selection(selection: dict) -> str:
    """``k-fold cross-validation on train+val (5 folds)``, ``the fixed validation split``, or the
    recorded method's name."""
    method = selection.get("method")
    if method == "kfold":
        folds = selection.get("folds")
        return "k-fold cross-validation on train+val" + (f" ({folds} folds)" if folds else "")
    if method == "holdout":
        return "the fixed validation split"
    return str(method)


def dataset_facts(runs: list[RunResult]) -> list[DatasetFacts]:
    """One entry per dataset (sorted) whose finished runs recorded labels or a selection."""
    labels: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    unseen: dict[str, set[int]] = defaultdict(set)
    selection: dict[str, set[str]] = defaultdict(set)
    for run in runs:
        if not run.ok:
            continue
        seen = _labels(run)
        for split, values in seen.items():
            labels[run.dataset][split].update(values)
        if "train" in seen and "test" in seen:
            unseen[run.dataset].update(set(seen["test"]) - set(seen["train"]))
        chosen = (run.engine or {}).get("selection")
        if isinstance(chosen, dict) and chosen.get("method"):
            selection[run.dataset].add(describe_selection(chosen))
    out = []
    for dataset in sorted(set(labels) | set(selection)):
        splits = labels.get(dataset, {})
        ordered = sorted(splits, key=lambda s: (SPLIT_ORDER + (s,)).index(s))
        out.append(
            DatasetFacts(
                dataset,
                {s: tuple(sorted(splits[s])) for s in ordered},
                tuple(sorted(unseen.get(dataset, ()))),
                tuple(sorted(selection.get(dataset, ()))),
            )
        )
    return out


def ranges(labels: tuple[int, ...]) -> str:
    """``0–9``, ``1–3, 5, 7–8``: consecutive runs of labels joined."""
    parts: list[str] = []
    start = prev = None
    for v in labels:
        if start is None:
            start = prev = v
        elif v == prev + 1:
            prev = v
        else:
            parts.append(f"{start}" if start == prev else f"{start}–{prev}")
            start = prev = v
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}–{prev}")
    return ", ".join(parts) or "none"
