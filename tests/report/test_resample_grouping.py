"""Runs on the resamples of one dataset are samples of one configuration: the report's
grouping puts every resample and seed of it in one row (intervals over resamples and seeds),
while the sweep's vectorised launcher, whose members share their data, keeps them apart."""

from synthetic_results import _run

from roundlab.report.selection import group
from roundlab.results import write


def _on_resample(resample, seed, em):
    run = _run("ratings", "regression", seed, em, 0.5)
    run.config["dataset"] = {"name": "ratings", "resample": resample}
    return run


def test_the_runs_of_every_resample_and_seed_form_one_configuration(tmp_path):
    runs = [_on_resample(r, s, 0.5 + 0.1 * r) for r in range(3) for s in range(2)]
    paths = {write(run, run.key.result_path(tmp_path)) for run in runs}
    assert len(paths) == 6  # each resample and seed has its own result file
    (configuration,) = group(runs)["ratings"]
    assert len(configuration.finished) == 6
    # over resamples and seeds: resamples at 0.5, 0.6, 0.7, each with seeds 0 and 1 shifted
    # by -0.01 and 0 (synthetic_results' jitter)
    interval = configuration.metric("test", "exact_match")
    assert interval.n == 6
    assert abs(interval.mean - (0.6 - 0.005)) < 1e-12
