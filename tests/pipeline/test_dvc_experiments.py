"""End to end in a temporary clone: DVC experiments compare with the committed baseline, and
runs by hand leave the pipeline alone.

The clone's params.yaml selects the tiny profile and `dvc repro` builds it; its metrics, plots
and dvc.lock are committed, as a user commits a result. Then a training run and a dataset
written by hand must leave `dvc status` clean, and `dvc exp run -S ...` must give an experiment
that `dvc exp show`, `dvc metrics diff` and `dvc plots diff` compare with that commit. The
tiny sweep runs once: the experiment keeps a subset of its runs, which the sweep reuses.
"""

from __future__ import annotations

import json

import pytest
import yaml

from clones import BIN, fresh_clone, run

EXPERIMENT = "one-rate"
UP_TO_DATE = "Data and pipelines are up to date."

pytestmark = pytest.mark.slow


def _run(cmd: list[str], cwd, env: dict[str, str]) -> str:
    return run(cmd, cwd, env).stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A clone at a commit that holds the tiny profile's dvc.lock, metrics and plots."""
    committer = {
        f"GIT_{who}_{what}": value
        for who in ("AUTHOR", "COMMITTER")
        for what, value in (("NAME", "test"), ("EMAIL", "test@example.org"))
    }
    clone, env = fresh_clone(tmp_path_factory.mktemp("experiments"), **committer)
    params = yaml.safe_load((clone / "params.yaml").read_text())
    (clone / "params.yaml").write_text(yaml.safe_dump({**params, "profile": "tiny"}))
    _run([str(BIN / "dvc"), "repro"], clone, env)
    # `git add` refuses ignored paths: the metrics and plots must not be ignored
    tracked = ["reports/headline.json", "reports/metrics", "reports/plots"]
    _run(["git", "add", "params.yaml", "dvc.lock", *tracked], clone, env)
    _run(["git", "commit", "--quiet", "-m", "tiny baseline"], clone, env)
    return clone, env


def test_runs_and_data_written_by_hand_leave_dvc_status_clean(project, tmp_path):
    clone, env = project
    python = str(BIN / "python")
    train = [python, "-m", "roundlab.train", "approach=regression", "trainer.epochs=1"]
    _run([*train, "tracking.enabled=false"], clone, env)
    table = tmp_path / "table.csv"
    table.write_text("a,b,y\n" + "".join(f"{i % 7},{i % 3},{i % 5}\n" for i in range(60)))
    _run([python, "-m", "roundlab.data", "csv", f"path={table}", "label=y"], clone, env)
    assert (clone / "data" / "csv" / "meta.json").is_file()
    assert list((clone / "outputs").rglob("seed=0.json"))  # the run wrote under its own dir
    assert UP_TO_DATE in _run([str(BIN / "dvc"), "status"], clone, env)


def test_an_experiment_compares_with_the_baseline_in_exp_show_metrics_and_plots(project):
    clone, env = project
    dvc = str(BIN / "dvc")
    _run(
        [
            dvc,
            "exp",
            "run",
            "-n",
            EXPERIMENT,
            "-S",
            "profile=tiny",
            "-S",
            "profiles.yaml:tiny.learning_rates=[0.01]",
        ],
        clone,
        env,
    )
    rows = json.loads(_run([dvc, "exp", "show", "--json"], clone, env))
    baseline = next(r for r in rows if r["rev"] != "workspace")
    (experiment,) = [e["revs"][0] for e in baseline["experiments"]]
    assert experiment["name"] == EXPERIMENT
    for row in (baseline, experiment):
        metrics = row["data"]["metrics"]
        # one metrics file, three columns per dataset: a table one can read
        assert list(metrics) == ["reports/headline.json"]
        assert set(metrics["reports/headline.json"]["data"]["count"]) == {
            "best",
            "exact_match",
            "mae",
        }
        assert row["data"]["params"]["params.yaml"]["data"]["profile"] == "tiny"
    tracked = experiment["data"]["params"]["profiles.yaml"]["data"]
    assert set(tracked) == {"tiny"} and tracked["tiny"]["learning_rates"] == [0.01]

    compare = [dvc, "metrics", "diff", "HEAD", EXPERIMENT, "--all", "--json"]
    headline = json.loads(_run(compare, clone, env))["reports/headline.json"]
    assert set(headline) == {"count.best", "count.exact_match", "count.mae"}
    diff = json.loads(_run([*compare, "--targets", "reports/metrics"], clone, env))
    regression = diff["reports/metrics/regression.json"]
    assert set(regression) >= {"count.exact_match", "count.mae"}
    assert all(v["old"] is not None and v["new"] is not None for v in regression.values())

    plots = json.loads(_run([dvc, "plots", "diff", "HEAD", EXPERIMENT, "--json"], clone, env))
    (plot,) = plots["data"]["reports/plots/sweep-count-sigmoid_round.csv"]
    assert plot["revisions"] == ["HEAD", EXPERIMENT]
    assert {row["rev"] for row in plot["content"]["data"]["values"]} == {"HEAD", EXPERIMENT}
