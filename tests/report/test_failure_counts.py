"""The hard_round control is meant to fail (no gradient): the report counts its failures as
expected ones, apart from failures that say something broke."""

from __future__ import annotations

from roundlab.report.sections import failed_blocks, failure_counts
from roundlab.results import FAILED, FINISHED, RunResult, expected_failure

NO_GRADIENT = "no gradient: the loss has no gradient with respect to 6 of 6 weight tensors"


def _run(approach, activation, status, seed=0, error=NO_GRADIENT):
    return RunResult(
        status=status,
        dataset="count",
        approach=approach,
        seed=seed,
        activation=activation,
        error=error if status == FAILED else None,
    )


def test_only_hard_round_failing_for_want_of_a_gradient_is_an_expected_failure():
    assert expected_failure(_run("rounding", "hard_round", FAILED))
    assert not expected_failure(_run("rounding", "hard_round", FINISHED))
    assert not expected_failure(_run("rounding", "hard_round", FAILED, error="disk full"))
    assert not expected_failure(_run("rounding", "sigmoid_round", FAILED))
    assert not expected_failure(_run("regression", None, FAILED))


def test_sixty_control_failures_are_not_called_failed():
    runs = [_run("rounding", "hard_round", FAILED, seed=s) for s in range(60)]
    runs += [_run("regression", None, FINISHED), _run("rounding", "soft_round", FAILED)]
    assert failure_counts(runs) == "1 failed, 60 expected failures of the hard_round control"
    assert failure_counts(runs[60:]) == "1 failed"


def test_failed_runs_section_names_the_control_failures_as_expected():
    runs = [_run("rounding", "hard_round", FAILED, seed=s) for s in range(3)]
    text = failed_blocks(runs + [_run("regression", None, FINISHED)], [])[0].text
    assert text == (
        "Of 4 runs: 0 failed, 3 expected failures of the hard_round control "
        "(it has no gradient: the negative control)."
    )
