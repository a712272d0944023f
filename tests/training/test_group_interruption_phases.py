"""A signal can land anywhere while a stacked group trains and records its members. At each
phase (:func:`roundlab.interruption.checkpoint`) a hook raises the Interrupted a SIGTERM would:
every member still ends with a result file and an MLflow run of the same status, none left
RUNNING, and the multirun exits 143."""

import json
import signal
import sys

import pytest

from roundlab import interruption, results
from roundlab.interruption import Interrupted
from roundlab.run.status import STATUS_FILE
from roundlab.tracking import store as tracking_store
from roundlab.tracking.parents import SWEEP_TAG

F, K = "FINISHED", "KILLED"


class _FailingExit:
    """Library code whose ``__exit__`` fails in turn as the signal's exception goes through it:
    the interruption arrives as another error that carries it."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        raise RuntimeError("a context left by an exception failed in turn")


def _interrupt_at(phase: str, occurrence: int, converted: bool = False):
    """A hook that raises SIGTERM's Interrupted the ``occurrence``-th time ``phase`` is passed;
    ``converted``: through library code that turns it into another error."""
    seen = []

    def hook(name: str) -> None:
        if name != phase:
            return
        seen.append(name)
        if len(seen) != occurrence:
            return
        if converted:
            with _FailingExit():
                raise Interrupted(signal.SIGTERM)
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
    "phase, occurrence, statuses, converted",
    [
        ("group training", 1, [K, K, K], False),
        ("between members", 1, [F, K, K], False),
        ("member job", 2, [F, K, K], False),  # inside Hydra's run_job, before the recording
        ("member tracked", 2, [F, K, K], False),  # its MLflow run open, before capture
        ("capture", 2, [F, K, K], False),
        ("closing", 2, [F, F, K], False),  # its result file written, its MLflow run not ended
        # the signal turned into another error on its way: still an interruption, not a crash
        # of the group (whose jobs would then run alone) or of a member
        ("group training", 1, [K, K, K], True),
        ("between members", 1, [F, K, K], True),
        ("member job", 2, [F, K, K], True),
        ("member tracked", 2, [F, K, K], True),
        ("capture", 2, [F, K, K], True),
        ("closing", 2, [F, F, K], True),
    ],
)
def test_every_member_is_recorded_wherever_the_signal_lands(
    tmp_path, tiny, store, monkeypatch, phase, occurrence, statuses, converted
):
    code = _multirun(tmp_path, tiny, monkeypatch, _interrupt_at(phase, occurrence, converted))

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


def test_a_job_whose_signal_became_another_error_before_training_stops_the_multirun(
    tmp_path, tiny, monkeypatch
):
    from roundlab import train

    trained = train.train

    def converted_on_seed_1(cfg, sweep_dir=None):
        if cfg.seed == 1:
            with _FailingExit():
                raise Interrupted(signal.SIGTERM)
        return trained(cfg, sweep_dir=sweep_dir)

    monkeypatch.setattr(train, "train", converted_on_seed_1)
    argv = ["roundlab.train", "-m", *tiny, "trainer.epochs=2", "seed=0,1,2"]
    argv += [f"results_dir={tmp_path / 'results'}", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stopped:
        train.main()

    assert stopped.value.code == 143  # not a job failed before training, and seed 2 never ran
    found = [results.read(p) for p in (tmp_path / "results").rglob("seed=*.json")]
    assert [(r.seed, r.status) for r in found] == [(0, F)]
    status = json.loads((tmp_path / "sweep" / "1" / STATUS_FILE).read_text())
    assert (status["status"], status["error"]) == (K, "interrupted by SIGTERM")
