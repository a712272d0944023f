"""Adding a CSV dataset to the DVC pipeline is one entry of params.yaml plus its file under
inputs/: `dvc repro` then trains only that dataset, and the report covers it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import clones

MINI = """
mini:
  seeds: [0]
  learning_rates: [0.01]
  approaches: [regression]
  overrides: [trainer.epochs=2]
  processes: 1
  tracking: false
  rate_extensions: 0
"""


def _files(directory):
    return {p: p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_a_new_csv_entry_trains_only_its_own_dataset_and_joins_the_report(tmp_path):
    clone, env = clones.fresh_clone(tmp_path)
    dvc = [str(clones.BIN / "dvc"), "repro"]
    (clone / "profiles.yaml").write_text((clone / "profiles.yaml").read_text() + MINI)
    (clone / "params.yaml").write_text("profile: mini\ndatasets:\n  count: {}\n")
    first = clones.run(dvc, clone, env).stdout
    assert "Running stage 'sweep@count'" in first and "Running stage 'report'" in first
    count_results, count_data = (
        _files(clone / "results" / "count"),
        _files(clone / "data" / "count"),
    )

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    y = np.clip(np.round(x[:, 0] + 2), 0, 4).astype(int)
    rows = "\n".join(f"{a:.4f},{b:.4f},{t}" for (a, b), t in zip(x, y, strict=True))
    (clone / "inputs" / "fair.csv").write_text(f"a,b,rating\n{rows}\n")
    with (clone / "params.yaml").open("a") as handle:  # the one edit
        handle.write("  fair: {path: inputs/fair.csv, label: rating}\n")
    second = clones.run(dvc, clone, env).stdout

    assert "Running stage 'generate@fair'" in second
    assert "Running stage 'sweep@fair'" in second
    assert "Running stage 'report'" in second
    assert "Running stage 'sweep@count'" not in second
    # generate@count reran (it depends on all of inputs/) and wrote the same data
    assert _files(clone / "data" / "count") == count_data
    assert _files(clone / "results" / "count") == count_results
    headline = json.loads((clone / "reports" / "headline.json").read_text())
    assert set(headline) == {"count", "fair"}
    assert list((clone / "results" / "fair" / "regression").rglob("seed=0.json"))
