"""The report built from synthetic result files (no training, no TensorFlow for most tests)."""

import dataclasses
import json
import re

import pytest
import yaml
from report_checks import check_report
from synthetic_results import synthetic_runs, write_runs

from roundlab import results
from roundlab.report.__main__ import main
from roundlab.report.pipeline import build_report
from roundlab.report.selection import HEADLINE_COLUMNS
from roundlab.results import RunResult


@pytest.fixture
def built(tmp_path):
    results = write_runs(tmp_path / "results", synthetic_runs())
    out = build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    return tmp_path / "reports", out


def _between(built, start: str, end: str) -> str:
    """The built report.md between the headings ``start`` and ``end``."""
    return (built[0] / "report.md").read_text().split(start)[1].split(end)[0]


def test_report_files_exist_html_parses_and_every_figure_exists(built):
    reports, out = built
    check_report(reports)
    assert set(out.figures) == set((reports / "figures").glob("*.png"))


def test_sections_appear_in_the_specified_order(built):
    md = (built[0] / "report.md").read_text()
    headings = re.findall(r"^## (\d)\. (.+)$", md, flags=re.M)
    assert [t for _, t in headings] == [
        "Headline results per dataset",
        "Sweep curves",
        "Activation gallery",
        "Learning curves",
        "Gradient checks",
        "Failed runs",
        "Environment",
    ]


def test_single_seed_interval_is_shown_as_unavailable_not_zero(built):
    md = (built[0] / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| rounding · ste_round"))
    assert "(n=1, no CI)" in row and "±" not in row


def test_failed_runs_are_listed_with_their_reasons(built):
    section = _between(built, "## 6. Failed runs", "## 7.")
    assert "Of 98 runs: 1 failed, 12 expected failures of the hard_round control" in section
    assert "the loss has no gradient with respect to 6 of 6 weight tensors" in section
    assert "count/rounding/soft_round-alpha=1" in section and "loss became NaN" in section


def test_clear_winner_is_bold_and_overlap_is_not_called_a_win(tmp_path):
    runs = synthetic_runs()
    for r in runs:  # make soft_round as good as sigmoid_round on test, within the intervals
        if r.activation == "soft_round" and r.ok:
            r.metrics["test"]["exact_match"] = 0.95 + 0.02 * (r.seed - 1)
    results = write_runs(tmp_path / "results", runs)
    build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    md = (tmp_path / "reports" / "report.md").read_text()
    assert "test exact match: no clear winner" in md
    assert "**rounding · sigmoid_round** is best" in md  # MAE still has a clear winner


def test_metrics_have_a_file_per_approach_with_every_dataset(built):
    reports, out = built
    files = {p.stem: json.loads(p.read_text()) for p in (reports / "metrics").glob("*.json")}
    assert set(files) == {
        "classification",
        "regression",
        "rounding-sigmoid_round",
        "rounding-soft_round",
        "rounding-ste_round",
        "baseline",
    }
    assert sorted(out.metrics) == sorted(
        [reports / "headline.json", *(reports / "metrics").glob("*.json")]
    )
    assert set(files["classification"]) == {"count", "digit_sum"}
    assert set(files["rounding-ste_round"]) == {"count"}  # it ran on count only
    assert files["rounding-sigmoid_round"]["count"]["exact_match"] == pytest.approx(0.95)
    assert files["regression"]["digit_sum"]["extrapolation"] is None


def test_the_command_counts_the_metrics_files_its_metrics_directory_holds(tmp_path, capsys):
    results = write_runs(tmp_path / "results", synthetic_runs())
    reports = tmp_path / "reports"
    argv = ["--results", str(results), "--out", str(reports), "--no-gradients", "--no-cost"]
    assert main(argv) == 0
    line = capsys.readouterr().out.strip()
    written = sorted((reports / "metrics").glob("*.json"))
    assert len(written) == 6
    assert line.endswith(f", {reports / 'headline.json'}, 6 metrics files in {reports / 'metrics'}")


def test_headline_metrics_are_the_configuration_val_ranks_first_with_its_test_numbers(built):
    reports, _ = built
    headline = json.loads((reports / "headline.json").read_text())
    configs = {}  # a configuration (its RunKey at seed 0) -> its finished runs
    for path in (reports.parent / "results").rglob("seed=*.json"):
        r = results.read(path)
        if r.ok:
            configs.setdefault(r.key.with_seed(0), []).append(r)

    def mean(rs, split, metric):
        return sum(r.metrics[split][metric] for r in rs) / len(rs)

    assert set(headline) == {"count", "digit_sum"}
    for dataset, entry in headline.items():
        mine = {k: rs for k, rs in configs.items() if k.dataset == dataset}
        first = max(mine.values(), key=lambda rs: mean(rs, "val", "exact_match"))
        assert set(entry) == {"best", "exact_match", "mae"}
        assert entry["exact_match"] == pytest.approx(mean(first, "test", "exact_match"), abs=1e-4)
        assert entry["mae"] == pytest.approx(mean(first, "test", "mae"), abs=1e-4)


def test_sweep_plot_data_has_one_row_per_swept_value(built):
    reports, out = built
    names = sorted(p.name for p in out.plots)
    assert names == [
        "sweep-count-sigmoid_round.csv",
        "sweep-count-soft_round.csv",
        "sweep-digit_sum-sigmoid_round.csv",
        "sweep-digit_sum-soft_round.csv",
    ]
    lines = (reports / "plots" / "sweep-count-sigmoid_round.csv").read_text().splitlines()
    assert lines[0].startswith("value,") and [ln.split(",")[0] for ln in lines[1:]] == [
        "1",
        "5",
        "20",
    ]


def test_planned_runs_without_a_result_file_are_reported(tmp_path):
    results = write_runs(tmp_path / "results", synthetic_runs())
    (results / "_sweep.yaml").write_text(
        "profile: tiny\nplanned:\n- count/regression/default/lr=0.001/seed=0.json\n"
        "- count/regression/default/lr=0.001/seed=9.json\n"
    )
    build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    md = (tmp_path / "reports" / "report.md").read_text()
    assert "1 planned runs wrote no result file" in md
    assert "count/regression/default/lr=0.001/seed=9.json" in md
    assert "profile `tiny`" in md and "wall clock" not in md


def test_rebuilding_removes_figures_of_datasets_no_longer_in_the_results(tmp_path):
    results = write_runs(tmp_path / "results", synthetic_runs())
    build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    for p in results.glob("digit_sum/**/*.json"):
        p.unlink()
    out = build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    assert not list((tmp_path / "reports" / "figures").glob("*digit_sum*"))
    assert not list((tmp_path / "reports" / "plots").glob("*digit_sum*"))
    assert all(p.is_file() for p in out.figures)


def test_alpha_zero_and_a_single_seed_sweep_still_draw(tmp_path):
    from synthetic_results import _run

    runs = [
        _run("count", "rounding", 0, 0.3 + 0.1 * a, 0.5, "soft_round", {"alpha": a})
        for a in (0.0, 1.0, 4.0)
    ]
    results = write_runs(tmp_path / "results", runs)
    out = build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    assert [p.name for p in out.figures] == ["sweep-count.png", "learning-count.png"]
    check_report(tmp_path / "reports")


def test_rows_worse_than_the_constant_baseline_in_range_win_nothing(tmp_path):
    from synthetic_results import _run

    runs = []
    for s in range(3):
        runs.append(_run("count", "regression", s, 0.6, 0.5))
        runs.append(_run("count", "classification", s, 0.5, 0.7))
        spiky = _run("count", "rounding", s, 0.0, 6.0, "spiky")
        spiky.metrics["extrapolate"]["exact_match"] = 0.9  # a constant that happens to hit
        runs.append(spiky)
    build_report(
        write_runs(tmp_path / "results", runs), tmp_path / "reports", tmp_path, gradients=False
    )
    md = (tmp_path / "reports" / "report.md").read_text()
    assert "**rounding · spiky**" not in md
    assert "extrapolation exact match: **regression** is best" in md


def test_controls_are_not_runners_up(tmp_path):
    from synthetic_results import _run

    runs = []
    for s in range(3):
        runs.append(_run("count", "regression", s, 0.6, 0.5))
        runs.append(_run("count", "rounding", s, 0.6, 0.5, "identity"))  # the same model
        runs.append(_run("count", "classification", s, 0.3, 0.9))
    build_report(
        write_runs(tmp_path / "results", runs), tmp_path / "reports", tmp_path, gradients=False
    )
    md = (tmp_path / "reports" / "report.md").read_text()
    assert (
        "test exact match: **regression** is best; its interval does not overlap the "
        "runner-up's (classification)" in md
    )


def test_headline_table_header_names_the_headline_columns(built):
    md = (built[0] / "report.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| approach |"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[4:7] == [c.title for c in HEADLINE_COLUMNS]
    assert cells[2] == "learning rate (chosen on val)" and cells[3] == "val exact match"


def test_headline_rows_show_the_learning_rate_chosen_on_val(built):
    md = (built[0] / "report.md").read_text()
    count = md.split("### count")[1].split("###")[0]
    rows = {ln.split("|")[1].strip(): ln.split("|")[3].strip() for ln in count.splitlines()[4:9]}
    assert rows["regression"] == "0.01" and rows["classification"] == "0.001"


def test_method_section_states_grid_seeds_detectable_difference_and_convergence(built):
    method = _between(built, "## Method", "## 1.")
    assert "Learning-rate grid: 0.001, 0.01" in method
    assert "count (1 to 3 seeds per row): test exact match" in method
    assert "**Convergence.**" in method and "Every configuration converged." in method


@pytest.mark.skipif(
    "oracle" not in {f.name for f in dataclasses.fields(RunResult)},
    reason="RunResult.oracle is written to result files by the datasets change",
)
def test_oracle_row_is_read_from_the_result_files(built):
    md = (built[0] / "report.md").read_text()
    count, digit_sum = md.split("### count")[1], md.split("### digit_sum")[1]
    assert "| oracle (Bayes predictor) |" in count.split("###")[0]
    assert "gap to oracle" not in digit_sum.split("###")[0]


def test_environment_quotes_the_results_hash_not_dvc_lock_which_holds_the_reports_own(tmp_path):
    from roundlab.report import environment

    lock = {
        "schema": "2.0",
        "stages": {
            "sweep": {"outs": [{"path": "results", "md5": "abc.dir"}]},
            "report": {"outs": [{"path": "reports/report.md", "md5": "111"}]},
        },
    }
    (tmp_path / "dvc.lock").write_text(yaml.safe_dump(lock))
    before = environment.dvc_lock(tmp_path)
    lock["stages"]["report"]["outs"][0]["md5"] = "222"  # what rebuilding the report rewrites
    (tmp_path / "dvc.lock").write_text(yaml.safe_dump(lock))
    assert (
        environment.dvc_lock(tmp_path)
        == before
        == {"sweep output results md5 (dvc.lock)": "abc.dir"}
    )
