"""`python -m roundlab.predict` at its edges: a CSV with a header and no rows, and a reference
fit (no network saved), each answered in one line on stderr with exit code 2, no output file;
the reference's line gives the command that refits it, and that command composes the same run."""

import shlex

import pytest

from roundlab import predict
from roundlab.serving.saved_models import refit_command
from roundlab.train import train


def _one_line_refusal(capsys, argv):
    assert predict.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    return captured.err.strip()


def test_a_header_only_csv_exits_2_naming_the_file_and_writes_nothing(compose, tmp_path, capsys):
    cfg = compose("approach=regression", "tracking.enabled=false", "trainer.epochs=2")
    result = train(cfg)
    header_only = tmp_path / "header_only.csv"
    header_only.write_text(",".join(result.model["features"]) + "\n")
    out = tmp_path / "preds.csv"
    path = result.key.result_path(cfg.results_dir)
    err = _one_line_refusal(capsys, [str(path), "--input", str(header_only), "--output", str(out)])
    assert err == (
        f"roundlab.predict: {header_only} must have at least one row below its header. "
        f"Received: a header only ({len(result.model['features'])} columns, no rows)"
    )
    assert not out.exists()


def test_a_reference_run_says_it_saved_no_network_and_how_to_refit(compose, tmp_path, capsys):
    from roundlab.run import config

    cfg = compose("approach=glm_poisson", "seed=3")
    result = train(cfg)
    assert result.ok and result.mlflow_run_id, result.error
    (tmp_path / "new.csv").write_text("x0,x1\n0.5,1\n")
    path = result.key.result_path(cfg.results_dir)
    expected_command = "python -m roundlab.train dataset=count approach=glm_poisson seed=3"
    out = tmp_path / "preds.csv"
    for source, named in (
        ([str(path)], str(path)),
        ([str(path.parent)], str(path)),  # the run directory holds only the reference's file
        (["--run", result.mlflow_run_id], f"--run={result.mlflow_run_id}"),
    ):
        argv = [*source, "--input", str(tmp_path / "new.csv"), "--output", str(out)]
        assert _one_line_refusal(capsys, argv) == (
            f"roundlab.predict: {named} is a reference fit: references save no network to "
            f"predict with (the fit keeps its metrics, not a model); refit it with "
            f"`{expected_command}`, or predict with a network approach's run. "
            f"Received: approach=glm_poisson"
        )
        assert not out.exists()
    refit = config.compose(shlex.split(expected_command)[3:])
    assert (refit.dataset.name, refit.approach.name, refit.seed) == ("count", "glm_poisson", 3)


@pytest.mark.parametrize(
    ("run", "command"),
    [
        (
            {
                "dataset": {"name": "fair", "path": "inputs/fair.csv", "label": "rate_marriage"},
                "approach": {"name": "lightgbm", "method": "poisson"},
                "seed": 2,
            },
            "dataset=csv dataset.name=fair dataset.path=inputs/fair.csv "
            "dataset.label=rate_marriage approach=lightgbm approach.method=poisson seed=2",
        ),
        (
            {
                "dataset": {"name": "anes96", "resample": 4, "path": None},
                "approach": {"name": "ordered_logit"},
                "seed": 0,
            },
            "dataset=anes96 approach=ordered_logit dataset.resample=4 seed=0",
        ),
    ],
    ids=["csv-dataset", "configured-dataset-resample"],
)
def test_the_refit_command_names_a_csv_by_its_file_and_a_resample(run, command):
    assert refit_command(run) == f"python -m roundlab.train {command}"
