"""A signal can land anywhere while a stacked group trains and records its members. At each
phase (:func:`roundlab.interruption.checkpoint`) a hook raises the Interrupted a SIGTERM would:
every member still ends with a result file and an MLflow run of the same status, none left
RUNNING, and the multirun exits 143."""

import signal
import sys

import pytest

from roundlab import interruption, results
from roundlab.interruption import Interrupted
from roundlab.tracking import store as tracking_store
from roundlab.tracking.parents import SWEEP_TAG

F, K = "FINISHED", "KILLED"


def _interrupt_at(phase: str, occurrence: int):
    """A hook that raises SIGTERM's Interrupted the ``occurrence``-th time ``phase`` is passed."""
    seen = []

    def hook(name: str) -> None:
        if name == phase:
            seen.append(name)
            if len(seen) == occurrence:
                raise Interrupted(signal.SIGTERM)

    return hook


def _multirun(tmp_path, tiny, monkeypatch, hook) -> int:
    from roundlab import train

    argv = [
        "roundlab.train",
        "-m",
        *tiny,
        "trainer.epochs=2",
        "hydra/launcher=vectorized",
        "approach=rounding",
        "activation=soft_round",
        "seed=0,1,2",
        f"results_dir={tmp_path / 'results'}",
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
    ]
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(interruption, "CHECKPOINT_HOOKS", [hook])
    with pytest.raises(SystemExit) as stopped:
        train.main()
    return stopped.value.code


@pytest.mark.parametrize(
    "phase, occurrence, statuses",
    [
        ("group training", 1, [K, K, K]),
        ("between members", 1, [F, K, K]),
        ("member job", 2, [F, K, K]),  # inside Hydra's run_job, before the member's recording
        ("member tracked", 2, [F, K, K]),  # its MLflow run open, before capture
        ("capture", 2, [F, K, K]),
        ("closing", 2, [F, F, K]),  # its result file written, its MLflow run not yet ended
    ],
)
def test_every_member_is_recorded_wherever_the_signal_lands(
    tmp_path, tiny, store, monkeypatch, phase, occurrence, statuses
):
    code = _multirun(tmp_path, tiny, monkeypatch, _interrupt_at(phase, occurrence))

    assert code == 143
    found = sorted(
        (results.read(p) for p in (tmp_path / "results").rglob("seed=*.json")),
        key=lambda r: r.seed,
    )
    assert [(r.seed, r.status) for r in found] == list(zip([0, 1, 2], statuses, strict=True))
    assert all(r.error == "interrupted by SIGTERM" for r in found if r.status == K)
    for r in found:  # a finished member keeps its model, a killed one has none
        assert r.key.result_path(tmp_path / "results").with_suffix(".keras").exists() == (
            r.status == F
        )
    client = tracking_store.client(store)
    sweep = str((tmp_path / "sweep").absolute())
    runs = client.search_runs(
        [client.get_experiment_by_name("count").experiment_id],
        filter_string=f"tags.`{SWEEP_TAG}` = '{sweep}'",
    )
    members = {r.info.run_id: r.info.status for r in runs if "mlflow.parentRunId" in r.data.tags}
    assert {r.mlflow_run_id: r.status for r in found} == members  # one run each, same status
    assert "RUNNING" not in [r.info.status for r in runs]
