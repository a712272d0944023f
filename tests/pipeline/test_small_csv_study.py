"""A small real-data study end to end: 150 rows cut into per-split partition files
(train_0..2.csv / test_0..2.csv) are three resamples; with fewer than 200 validation rows
selection and early stopping use k-fold cross-validation on train+val; the report aggregates
the resamples of the dataset into one row per approach, with intervals over the resamples'
means."""

from __future__ import annotations

import re

import numpy as np
import pytest

from data.support import REPO, write_csv
from roundlab import results
from roundlab.report.pipeline import build_report
from roundlab.report.selection import group
from training.processes import environment, run

pytestmark = pytest.mark.slow

RESAMPLES, SEEDS = 3, 2


def _partitions(directory):
    rng = np.random.default_rng(3)
    labels = np.repeat([1, 2, 3, 4, 5], [6, 30, 45, 40, 29])  # 150 rows, label 1 rare
    rows = [[f"{y / 5 + 0.4 * rng.random():.4f}", f"{rng.random():.4f}", int(y)] for y in labels]
    order = rng.permutation(len(rows))
    for r in range(RESAMPLES):
        test = set(order[30 * r : 30 * (r + 1)].tolist())
        kept = [row for i, row in enumerate(rows) if i not in test]
        write_csv(directory / f"train_{r}.csv", ["a", "b", "y"], kept)
        write_csv(directory / f"test_{r}.csv", ["a", "b", "y"], [rows[i] for i in sorted(test)])


def test_a_150_row_csv_with_partition_files_is_studied_over_its_resamples_by_kfold(tmp_path):
    _partitions(tmp_path)
    args = [
        "-m",
        "dataset=csv",
        "dataset.train_path='train_{resample}.csv'",
        "dataset.test_path='test_{resample}.csv'",
        "dataset.label=y",
        f"dataset.resample={','.join(map(str, range(RESAMPLES)))}",
        "approach=classification,regression,ordered_logit",
        f"seed={','.join(map(str, range(SEEDS)))}",
        "model.hidden_sizes=[8]",
        "trainer.epochs=4",
        "tracking.enabled=false",
        "hydra/launcher=vectorized",
        f"hydra.sweep.dir={tmp_path / 'multirun'}",
    ]
    env = environment(tmp_path, ROUNDLAB_ROOT=str(tmp_path), PYTHONPATH=str(REPO / "src"))
    code, _, err, _ = run(tmp_path, args, env, timeout=1200)
    assert code == 0, err[-3000:]
    found = results.read_all(tmp_path / "results")
    assert all(r.ok for r in found), [r.error for r in found if not r.ok]
    networks = [r for r in found if r.approach != "ordered_logit"]
    assert len(networks) == 2 * RESAMPLES * SEEDS
    for r in found:
        selection = r.engine["selection"]
        # 120 training rows per resample: val would be 18 rows, so every run selects by k-fold
        # on the 120 development rows, and the test file never takes part.
        assert selection["method"] == "kfold" and selection["folds"] == 5, selection
        assert selection["val_rows"] == 120
        # the rare label 1 stays in training (no extrapolate split by default)
        assert 1 in r.labels["train"] and "extrapolate" not in r.metrics

    # One configuration per approach over every resample and seed: the resamples aggregate.
    (configs,) = group(found).values()
    by_approach = {c.approach: c for c in configs}
    assert set(by_approach) == {"classification", "regression", "ordered_logit"}
    for approach in ("classification", "regression", "ordered_logit"):
        runs = by_approach[approach].runs
        assert sorted((r.key.resample, r.seed) for r in runs) == [
            (r, s) for r in range(RESAMPLES) for s in range(SEEDS)
        ]
        # the seeds of a resample share its split: the interval is over the resamples' means
        assert by_approach[approach].metric("test", "exact_match").n == RESAMPLES

    build_report(tmp_path / "results", tmp_path / "reports", tmp_path, gradients=False)
    md = (tmp_path / "reports" / "report.md").read_text()
    table = md.split("## Recommendation")[1].split("How to read it")[0]
    rows = [line for line in table.splitlines() if line.startswith("| csv |")]
    assert [row.split("|")[2].strip() for row in rows] == ["test exact match", "test MAE"]
    assert re.search(
        r"csv: labels .*selection: k-fold cross-validation on train\+val \(5 folds\)", md
    )
