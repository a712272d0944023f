"""`python -m roundlab.train dataset=csv dataset.train_path=a.csv dataset.test_path=b.csv ...`
trains on a.csv and reports test metrics on exactly the rows of b.csv."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from roundlab import results
from training.processes import environment, run

from .support import REPO, write_csv

# b.csv: 7 rows whose labels give the constant baseline (the training median, 2) known scores.
TEST_LABELS = [0, 1, 4, 4, 4, 4, 4]


def test_training_on_fixed_split_files_evaluates_on_exactly_the_test_file(tmp_path):
    rng = np.random.default_rng(5)
    # training labels 0..4 with counts 20, 40, 80, 40, 20: median 2 in any stratified carving
    labels = np.repeat([0, 1, 2, 3, 4], [20, 40, 80, 40, 20])
    train = [[f"{y / 4 + 0.05 * rng.random():.4f}", int(y)] for y in labels]
    write_csv(tmp_path / "a.csv", ["x", "y"], train)
    write_csv(tmp_path / "b.csv", ["x", "y"], [[y / 4, y] for y in TEST_LABELS])
    args = [
        "dataset=csv",
        "dataset.train_path=a.csv",
        "dataset.test_path=b.csv",
        "dataset.label=y",
        "approach=regression",
        "model.hidden_sizes=[8]",
        "trainer.epochs=3",
        "tracking.enabled=false",
    ]
    env = environment(tmp_path, ROUNDLAB_ROOT=str(tmp_path), PYTHONPATH=str(REPO / "src"))
    code, _, err, _ = run(tmp_path, args, env, timeout=600)
    assert code == 0, err[-3000:]
    (result,) = results.read_all(tmp_path / "results")
    assert result.ok, result.error
    assert set(result.metrics) == {"val", "test"}  # no extrapolate file, no extrapolate split
    # Each split's distinct labels: val carved stratified from a.csv keeps all five.
    assert result.labels == {"train": [0, 1, 2, 3, 4], "val": [0, 1, 2, 3, 4], "test": [0, 1, 4]}
    # The constant 2 scored by hand on b.csv's labels.
    assert result.baseline["test"] == {
        "exact_match": 0.0,
        "mae": 13 / 7,
        "rmse": float(np.sqrt(25 / 7)),
        "within_one": 1 / 7,
    }
    # The network's scores are fractions of b.csv's 7 rows.
    for metric in ("exact_match", "mae", "within_one"):
        value = Fraction(result.metrics["test"][metric]).limit_denominator(1000)
        assert 7 % value.denominator == 0, (metric, value)


def test_a_multirun_over_partition_files_trains_each_resample_apart(tmp_path):
    """150 rows cut into train_0..2.csv / test_0..2.csv: one vectorised multirun over
    dataset.resample=0,1,2 and two seeds writes one result per resample and seed, each scored
    on its own test file, the members of one resample stacked together and apart from the
    others; the reference is fitted on each resample."""
    rng = np.random.default_rng(11)
    labels = np.repeat([1, 2, 3, 4, 5], [3, 30, 45, 40, 32])
    rows = [[f"{y / 5 + 0.1 * rng.random():.4f}", f"{rng.random():.4f}", int(y)] for y in labels]
    order = rng.permutation(len(rows))
    for r in range(3):
        test = set(order[30 * r : 30 * (r + 1)].tolist())
        kept = [row for i, row in enumerate(rows) if i not in test]
        write_csv(tmp_path / f"train_{r}.csv", ["a", "b", "y"], kept)
        write_csv(tmp_path / f"test_{r}.csv", ["a", "b", "y"], [rows[i] for i in sorted(test)])
    args = [
        "-m",
        "dataset=csv",
        "dataset.train_path='train_{resample}.csv'",
        "dataset.test_path='test_{resample}.csv'",
        "dataset.label=y",
        "dataset.resample=0,1,2",
        "approach=regression,ordered_logit",
        "seed=0,1",
        "model.hidden_sizes=[8]",
        "trainer.epochs=2",
        "tracking.enabled=false",
        "hydra/launcher=vectorized",
        f"hydra.sweep.dir={tmp_path / 'multirun'}",
    ]
    env = environment(tmp_path, ROUNDLAB_ROOT=str(tmp_path), PYTHONPATH=str(REPO / "src"))
    code, _, err, _ = run(tmp_path, args, env, timeout=900)
    assert code == 0, err[-3000:]
    found = results.read_all(tmp_path / "results")
    networks = [r for r in found if r.approach == "regression"]
    assert sorted((r.key.resample, r.seed) for r in networks) == [
        (r, s) for r in range(3) for s in range(2)
    ]
    for result in found:
        assert result.ok, result.error
        path = result.key.result_path(tmp_path / "results")
        assert path.parent.name == f"resample={result.key.resample}" and path.is_file()
        test_file = (tmp_path / f"test_{result.key.resample}.csv").read_text().splitlines()[1:]
        assert result.labels["test"] == sorted({int(line.split(",")[2]) for line in test_file})
    groups = {r.key.resample: r.engine["group"] for r in networks}
    assert len(set(groups.values())) == 3  # one stacked group per resample
    assert all(r.engine["group"] == groups[r.key.resample] for r in networks)
