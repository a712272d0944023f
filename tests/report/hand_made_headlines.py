"""Hand-made headline rows for the ranking tests: Configuration and RunResult built directly,
three seeds around the given test exact match and MAE.

A plain module (not conftest) so tests import it by a name no other test directory uses."""

from __future__ import annotations

from roundlab.report.headline import headline
from roundlab.report.selection import Configuration
from roundlab.results import FINISHED, RunResult


def configuration(dataset, approach, activation, method, em, mae) -> Configuration:
    """A configuration of three seeds whose test exact match and MAE average to ``em``, ``mae``."""
    config = {"trainer": {"learning_rate": 1e-3}, "approach": {"method": method}}
    runs = [
        RunResult(
            status=FINISHED,
            dataset=dataset,
            approach=approach,
            seed=seed,
            activation=activation,
            config=config,
            metrics={
                split: {"exact_match": em + shift, "mae": mae - shift} for split in ("val", "test")
            },
            baseline={"test": {"exact_match": 0.05, "mae": 3.0}},
            converged=True,
        )
        for seed, shift in enumerate((-0.01, 0.0, 0.01))
    ]
    return Configuration(dataset, approach, activation, {}, 1e-3, runs, method=method)


def headlines(table: dict[str, dict[tuple, tuple[float, float]]]):
    """``{dataset: {(approach, activation, method): (exact match, mae)}}`` → headlines."""
    return {
        dataset: headline(
            dataset, [configuration(dataset, *key, *values) for key, values in rows.items()]
        )
        for dataset, rows in table.items()
    }


CLS, REG = ("classification", None, None), ("regression", None, None)
SIGMOID, IDENTITY = ("rounding", "sigmoid_round", None), ("rounding", "identity", None)
LOGIT = ("ordered_logit", None, None)
