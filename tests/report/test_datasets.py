"""Each dataset's labels per split, the warning for test labels training never saw, and the
selection method, read from the result files when they record them (and silent otherwise)."""

from __future__ import annotations

from synthetic_results import _run

from roundlab.report.datasets import dataset_facts, ranges
from roundlab.report.headline import headline
from roundlab.report.method import method_blocks
from roundlab.report.protocol import protocol
from roundlab.report.selection import group
from roundlab.report.tuning import tune_groups


def _with(run, labels=None, selection=None):
    if labels is not None:
        run.labels = labels  # RunResult.labels: set as an attribute before the field exists
    if selection is not None:
        run.engine = {"selection": selection}
    return run


def _method_text(runs):
    groups = tune_groups(group(runs))
    headlines = {d: headline(d, c) for d, c in groups.items()}
    out = []
    for block in method_blocks(protocol(runs, groups, headlines)):
        out += [getattr(block, "text", "")] + list(getattr(block, "items", ()))
    return "\n".join(out)


def test_label_ranges_are_stated_per_split_and_unseen_test_labels_are_warned():
    labels = {
        "train": [1, 2, 3, 4],
        "val": [1, 2, 3],
        "test": [1, 2, 4, 5],
        "extrapolate": [7, 8, 9],
    }
    runs = [_with(_run("rating", "regression", s, 0.6, 0.5), labels) for s in range(3)]
    runs += [_with(_run("rating", "classification", s, 0.6, 0.5), labels) for s in range(3)]
    (facts,) = dataset_facts(runs)
    assert facts.labels == {
        "train": (1, 2, 3, 4),
        "val": (1, 2, 3),
        "test": (1, 2, 4, 5),
        "extrapolate": (7, 8, 9),
    }
    assert facts.unseen == (5,) and facts.selection == ()
    assert (
        "rating: labels train 1–4; val 1–3; test 1–2, 4–5; extrapolate 7–9. **Warning**: test "
        "labels 5 never occur in training (classification and ordinal heads cannot predict them)."
    ) in _method_text(runs)


def test_selection_method_is_stated_per_dataset_where_recorded():
    kfold = {"method": "kfold", "folds": 5, "rows": 113}
    runs = [_with(_run("small", "regression", s, 0.6, 0.5), selection=kfold) for s in range(3)]
    both = {"train": [0, 1, 2], "test": [0, 1, 2]}
    runs += [
        _with(_run("large", "regression", s, 0.6, 0.5), both, {"method": "holdout"})
        for s in range(3)
    ]
    text = _method_text(runs)
    assert "large: labels train 0–2; test 0–2; selection: the fixed validation split." in text
    assert "small: selection: k-fold cross-validation on train+val (5 folds)." in text
    assert "Warning" not in text


def test_results_without_labels_or_selection_state_nothing():
    runs = [_run("count", "regression", s, 0.6, 0.5) for s in range(3)]
    assert dataset_facts(runs) == []
    assert "Labels and selection" not in _method_text(runs)


def test_label_ranges_join_consecutive_labels():
    assert ranges((0, 1, 2, 3)) == "0–3"
    assert ranges((1, 2, 3, 5, 7, 8)) == "1–3, 5, 7–8"
    assert ranges(()) == "none"
