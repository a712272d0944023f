"""Fingerprints and which result files a resumed sweep keeps (real configs, real files)."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from roundlab import results
from roundlab.results import FAILED, FINISHED, RunResult
from roundlab.run import fingerprint
from roundlab.run.job import resolve as resolved
from roundlab.runs import RunKey
from roundlab.sweep import resume

NO_GRADIENT = "no gradient: the loss has no gradient with respect to 4 of 4 weight tensors"
NAN = "loss became NaN at epoch 3 (trainer.learning_rate=1e9); training stopped"


def _written(cfg, status=FINISHED, error=None, stamped=True):
    """A result file for ``cfg`` as a run would leave it (stamped unless told otherwise)."""
    key = RunKey.from_config(cfg)
    result = RunResult(
        status=status,
        dataset=key.dataset,
        approach=key.approach,
        seed=key.seed,
        config=OmegaConf.to_container(cfg),
        metrics={"val": {"exact_match": 0.5}},
        error=error,
    )
    if stamped:
        fingerprint.stamp(result, cfg)
    results.write(result, key.result_path(cfg.results_dir))
    return result


def test_fingerprint_ignores_where_a_run_writes_and_how_the_sweep_schedules_it(compose, tmp_path):
    base = fingerprint.fingerprint(resolved(compose("approach=regression")))
    elsewhere = compose(
        "approach=regression",
        f"results_dir={tmp_path / 'other'}",
        "tracking.enabled=false",
        "sweep.resume=false",
    )
    assert fingerprint.fingerprint(resolved(elsewhere)) == base


@pytest.mark.parametrize(
    "change", ["trainer.epochs=9", "seed=1", "model.hidden_sizes=[8]", "dataset.n_train=301"]
)
def test_fingerprint_changes_with_every_value_that_changes_the_run(compose, change):
    base = fingerprint.fingerprint(resolved(compose("approach=regression")))
    assert fingerprint.fingerprint(resolved(compose("approach=regression", change))) != base


def test_data_hash_follows_the_recorded_files_when_training_reads_the_data_directory(
    compose, tmp_path, monkeypatch
):
    from roundlab import data

    cfg = resolved(compose("approach=regression"))
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    in_memory = fingerprint.data_hash(cfg.dataset)
    stored = data.save(data.generate(cfg.dataset), tmp_path / "data" / "count")
    on_disk = fingerprint.data_hash(cfg.dataset)
    assert on_disk != in_memory  # now read from data/count/
    meta = (stored / "meta.json").read_text()
    (stored / "meta.json").write_text(meta.replace('"sha256": "', '"sha256": "0', 1))
    assert fingerprint.data_hash(cfg.dataset) not in (in_memory, on_disk)


def test_code_hash_covers_the_training_code_but_not_the_report():
    files = fingerprint.PACKAGE_DIR
    assert (files / "train.py").is_file() and (files / "report").is_dir()
    assert len(fingerprint.code_hash()) == 64


def test_a_finished_result_with_the_same_fingerprint_is_reused(compose):
    cfg = resolved(compose("approach=regression"))
    written = _written(cfg)
    reused = resume.reusable(cfg)
    assert reused is not None and reused.fingerprint == written.fingerprint
    assert reused.metrics == {"val": {"exact_match": 0.5}}


def test_a_changed_value_or_resume_off_or_no_fingerprint_retrains(compose):
    cfg = resolved(compose("approach=regression"))
    _written(cfg)
    assert resume.reusable(resolved(compose("approach=regression", "trainer.epochs=9"))) is None
    assert resume.reusable(resolved(compose("approach=regression", "sweep.resume=false"))) is None
    _written(cfg, stamped=False)  # a file written before fingerprints existed
    assert resume.reusable(cfg) is None


@pytest.mark.parametrize(
    ("error", "deterministic", "reused"),
    [
        (NO_GRADIENT, "true", True),
        (NO_GRADIENT, "false", True),
        (NAN, "true", True),
        (NAN, "false", False),
        ("RuntimeError: out of memory", "true", False),
        ("interrupted by SIGTERM", "true", False),
    ],
)
def test_only_failures_that_happen_again_are_reused(compose, error, deterministic, reused):
    cfg = resolved(compose("approach=regression", f"trainer.deterministic={deterministic}"))
    written = _written(cfg, status=FAILED, error=error)
    assert written.deterministic_failure is reused
    assert (resume.reusable(cfg) is not None) is reused


def test_an_unreadable_result_file_retrains(compose):
    cfg = resolved(compose("approach=regression"))
    path = RunKey.from_config(cfg).result_path(cfg.results_dir)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert resume.reusable(cfg) is None


def test_reusable_jobs_skips_configs_that_fail_validation(compose):
    cfgs = [resolved(compose("approach=regression", f"seed={s}")) for s in (0, 1)]
    _written(cfgs[1])
    assert resume.reusable_jobs([cfgs[0], None, cfgs[1]]) == {2}


def test_a_stamped_result_file_round_trips_its_fingerprint(compose):
    cfg = resolved(compose("approach=regression"))
    written = _written(cfg, status=FAILED, error=NO_GRADIENT)
    back = results.read(RunKey.from_config(cfg).result_path(cfg.results_dir))
    assert back.fingerprint == written.fingerprint == fingerprint.fingerprint(cfg)
    assert back.deterministic_failure is True


def test_a_result_file_edited_by_hand_is_trained_again(compose):
    cfg = resolved(compose("approach=regression"))
    _written(cfg)
    path = RunKey.from_config(cfg).result_path(cfg.results_dir)
    assert resume.reusable(cfg) is not None
    path.write_text(path.read_text().replace('"exact_match": 0.5', '"exact_match": 0.999'))
    assert '"exact_match": 0.999' in path.read_text()
    assert resume.reusable(cfg) is None


def test_a_result_file_older_than_digests_is_trained_again(compose):
    cfg = resolved(compose("approach=regression"))
    _written(cfg)
    path = RunKey.from_config(cfg).result_path(cfg.results_dir)
    document = json.loads(path.read_text())
    del document["digest"]
    path.write_text(json.dumps({**document, "format_version": 3}))
    assert results.read(path).fingerprint == fingerprint.fingerprint(cfg)  # readable, same run
    assert resume.reusable(cfg) is None
