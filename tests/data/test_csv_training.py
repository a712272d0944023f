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
