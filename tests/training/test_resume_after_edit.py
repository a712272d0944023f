"""A result file edited by hand is trained again by a resumed sweep, the others reused (real
`python -m roundlab.train -m` processes)."""

from __future__ import annotations

import json

import pytest

from roundlab import results

from .processes import run

pytestmark = pytest.mark.slow

RESULT = "results/count/regression/default/lr=0.02/seed={seed}.json"


def test_a_resumed_sweep_retrains_the_result_edited_by_hand_and_reuses_the_rest(tmp_path, tiny):
    args = ["-m", *tiny, "approach=regression", "seed=0,1", f"hydra.sweep.dir={tmp_path / 'mr'}"]
    code, stdout, stderr, _ = run(tmp_path, args)
    assert code == 0 and "sweep: 2 succeeded, 0 failed (0 of them reused)" in stdout, stderr
    edited, kept = (tmp_path / RESULT.format(seed=s) for s in (0, 1))
    trained = results.read(edited).metrics["test"]["exact_match"]
    untouched = kept.read_bytes()
    document = json.loads(edited.read_text())
    document["metrics"]["test"]["exact_match"] = 0.999
    edited.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")

    code, stdout, stderr, _ = run(tmp_path, args)
    assert code == 0 and "sweep: 2 succeeded, 0 failed (1 of them reused)" in stdout, stderr
    again = results.read(edited)  # its digest matches again: training wrote it
    assert again.metrics["test"]["exact_match"] == trained != 0.999
    assert kept.read_bytes() == untouched
