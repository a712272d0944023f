"""Runs on the resamples of one dataset are samples of one configuration: the report's
grouping puts every resample and seed of it in one row (intervals over the resamples' means),
while the sweep's vectorised launcher, whose members share their data, keeps them apart."""

from synthetic_results import _run

from roundlab.report.planned import missing_runs, planned_runs, resamples_seen
from roundlab.report.selection import group
from roundlab.results import write


def _on_resample(resample, seed, em, approach="regression"):
    run = _run("ratings", approach, seed, em, 0.5)
    run.config["dataset"] = {"name": "ratings", "resample": resample}
    return run


def test_the_runs_of_every_resample_and_seed_form_one_configuration_with_an_interval_over_resamples(
    tmp_path,
):
    runs = [_on_resample(r, s, 0.5 + 0.1 * r) for r in range(3) for s in range(2)]
    paths = {write(run, run.key.result_path(tmp_path)) for run in runs}
    assert len(paths) == 6  # each resample and seed has its own result file
    (configuration,) = group(runs)["ratings"]
    assert len(configuration.finished) == 6
    # resamples at 0.5, 0.6, 0.7, each with seeds 0 and 1 shifted by -0.01 and 0
    # (synthetic_results' jitter): the seeds of a resample share its split, so the interval is
    # over the 3 per-resample means 0.495, 0.595, 0.695 (sd 0.1, t_0.975,2 = 4.303)
    interval = configuration.metric("test", "exact_match")
    assert interval.n == 3
    assert abs(interval.mean - (0.6 - 0.005)) < 1e-12
    assert abs(interval.half_width - 4.302653 * 0.1 / 3**0.5) < 1e-6


def test_a_reference_fitted_on_each_resample_has_the_spread_of_its_fits():
    runs = [_on_resample(r, 0, em, "ordered_logit") for r, em in enumerate((0.3, 0.5, 0.7))]
    interval = group(runs)["ratings"][0].metric("test", "exact_match")
    # one deterministic fit per resample: exact within a resample, not across them
    assert not interval.exact and interval.n == 3 and abs(interval.mean - 0.49) < 1e-12
    assert abs(interval.half_width - 4.302653 * 0.2 / 3**0.5) < 1e-6


def test_a_recomputed_plan_takes_the_resamples_the_result_files_show(tmp_path):
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets: [ratings]\n")
    profile = "p: {datasets: [ratings], seeds: [0, 1], approaches: [regression]}\n"
    (tmp_path / "profiles.yaml").write_text(profile)
    results_dir = tmp_path / "results"
    for r in range(3):  # only seed 0 of each resample finished
        run = _on_resample(r, 0, 0.5)
        write(run, run.key.result_path(results_dir))
    assert resamples_seen(results_dir, "ratings") == 3
    assert resamples_seen(results_dir, "elsewhere") == 1
    manifest = planned_runs(results_dir, tmp_path)
    assert len(manifest["planned"]) == 6
    assert missing_runs(results_dir, manifest) == [
        f"ratings/regression/default/lr=0.001/resample={r}/seed=1.json" for r in range(3)
    ]
