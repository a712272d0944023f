"""Exit codes scripts and CI can trust: a single run that ends FAILED exits 1; a sweep exits 0
once it ran its plan, 1 with fail_on_failed_jobs=true when a job failed (the hard_round control's
expected failure aside); a data error is one line."""

from roundlab.run.exits import one_line

from .processes import result_files, run


def test_a_single_run_that_ends_failed_exits_1_with_its_reason(tmp_path, tiny):
    code, _, stderr, _ = run(tmp_path, [*tiny, "approach=rounding", "activation=hard_round"])
    assert code == 1
    assert "run FAILED: no gradient" in stderr and "Traceback" not in stderr
    [result] = result_files(tmp_path)
    assert result.status == "FAILED"


def test_a_sweep_with_a_failed_job_exits_1_only_with_fail_on_failed_jobs(tmp_path, tiny):
    sweep = ["-m", "fail_on_failed_jobs=true", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    # hard_round's failure (no gradient) is the control's expected result, not a failed job
    control = [*tiny, "approach=rounding", "activation=hard_round"]
    code, stdout, _, _ = run(tmp_path, [*sweep, *control])
    line = "sweep: 0 succeeded, 0 failed, 1 expected failures (hard_round control) (0 of them"
    assert line in stdout and code == 0
    diverging = [o for o in tiny if "learning_rate" not in o] + ["trainer.learning_rate=1e30"]
    code, stdout, stderr, _ = run(tmp_path, [*sweep, *diverging, "approach=regression"])
    assert "sweep: 0 succeeded, 1 failed (0 of them reused)" in stdout
    assert code == 1 and "1 job(s) did not finish (fail_on_failed_jobs=true)" in stderr


def test_a_missing_data_file_is_one_line_and_the_traceback_only_with_hydra_full_error(
    tmp_path, tiny, monkeypatch
):
    shrink = [o for o in tiny if not o.startswith("dataset")]
    args = [*shrink, "dataset=csv", f"dataset.path={tmp_path / 'absent.csv'}", "dataset.label=y"]
    code, _, stderr, _ = run(tmp_path, args)
    assert code == 1
    assert "data error:" in stderr and "absent.csv" in stderr
    assert "Traceback" not in stderr
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    code, _, stderr, _ = run(tmp_path, args)
    assert code == 1 and "Traceback" in stderr


def test_only_errors_raised_in_the_data_package_are_data_errors():
    try:
        int("x")
    except ValueError as err:
        assert one_line(err) is None  # a bug elsewhere keeps its traceback


def test_roundlab_sweep_fails_on_failed_jobs_only_when_a_planned_run_did_not_finish(tmp_path):
    from roundlab import results
    from roundlab.sweep.progress import failed_jobs_exit

    planned = []
    for seed, status in ((0, results.FINISHED), (1, results.FAILED)):
        result = results.RunResult(status=status, dataset="count", approach="regression", seed=seed)
        path = results.write(result, result.key.result_path(tmp_path))
        planned.append(path.relative_to(tmp_path).as_posix())
    assert failed_jobs_exit(tmp_path, planned[:1]) == 0
    assert failed_jobs_exit(tmp_path, planned) == 1
    assert failed_jobs_exit(tmp_path, [*planned[:1], "count/regression/x/seed=9.json"]) == 1
    # the hard_round control failing for want of a gradient is expected: no failed job
    control = results.RunResult(
        status=results.FAILED,
        dataset="count",
        approach="rounding",
        seed=0,
        activation="hard_round",
        error="no gradient: the loss has no gradient with respect to 2 of 2 weight tensors",
    )
    path = results.write(control, control.key.result_path(tmp_path))
    assert failed_jobs_exit(tmp_path, [*planned[:1], path.relative_to(tmp_path).as_posix()]) == 0
