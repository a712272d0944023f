"""Synthetic result files: a small but complete sweep over a learning-rate grid, with failed
runs and a single-seed config. count has an oracle; digit_sum stands for a dataset without one.

A plain module (not conftest) so tests import it by a name no other test directory uses."""

from __future__ import annotations

import math
from pathlib import Path

from roundlab import results

SEEDS = (0, 1, 2)
EPOCHS = 6
LEARNING_RATES = (1e-3, 1e-2)
EARLY_STOPPING = {"enabled": True, "monitor": "val_loss", "patience": 10, "min_delta": 0.0}
ORACLES = {"count": {"test": {"exact_match": 1.0, "mae": 0.0}}}


def _metrics(em: float, mae: float, extrapolate: bool) -> dict[str, dict[str, float]]:
    out = {
        split: {
            "exact_match": em + shift,
            "mae": mae - shift,
            "rmse": mae * 1.3,
            "within_one": min(1.0, em + 0.2),
        }
        for split, shift in (("val", 0.03), ("test", 0.0))
    }
    if extrapolate:
        out["extrapolate"] = {
            "exact_match": em / 2,
            "mae": mae * 3,
            "rmse": mae * 4,
            "within_one": em / 2 + 0.1,
        }
    return out


def _run(
    dataset,
    approach,
    seed,
    em,
    mae,
    activation=None,
    params=None,
    extrapolate=True,
    status=results.FINISHED,
    error=None,
    zero=None,
    lr=LEARNING_RATES[0],
    converged=True,
) -> results.RunResult:
    jitter = 0.01 * (seed - 1)  # three seeds give a spread of ±0.01 around the mean
    history = {
        "loss": [2.0 * math.exp(-0.4 * e) + 0.1 + jitter for e in range(EPOCHS)],
        "val_loss": [2.2 * math.exp(-0.35 * e) + 0.15 + jitter for e in range(EPOCHS)],
    }
    ok = status == results.FINISHED
    trainer = {"epochs": EPOCHS, "learning_rate": lr, "early_stopping": EARLY_STOPPING}
    run = results.RunResult(
        status=status,
        dataset=dataset,
        approach=approach,
        seed=seed,
        activation=activation,
        activation_params=params or {},
        config={"trainer": trainer},
        metrics=_metrics(em + jitter, mae - jitter, extrapolate) if ok else {},
        baseline=_metrics(0.12, 2.5, extrapolate) if ok else {},
        zero_grad_fraction=zero if ok else None,
        history=history if ok else {},
        best_epoch=(EPOCHS - 1 if converged is False else EPOCHS - 3) if ok else None,
        epochs_run=EPOCHS if ok else None,
        converged=converged if ok else None,
        duration_s=3.0,
        versions={"tensorflow": "2.21.0", "keras": "3.15.1"},
        device="CPU:0",
        error=error,
    )
    # RunResult.oracle: set as an attribute so it works before and after the field exists
    run.oracle = ORACLES.get(dataset, {}) if ok else {}
    return run


def rate_shift(approach: str, lr: float) -> float:
    """Exact match gained at ``lr`` over the grid's first rate: regression does better at the
    higher rate, every other family worse, so the chosen rates differ by family."""
    if lr == LEARNING_RATES[0]:
        return 0.0
    return 0.05 if approach == "regression" else -0.1


def _grid_point(dataset, extrapolate, seed, lr) -> list[results.RunResult]:
    def at(approach, em, mae, *args, **kwargs):
        em += rate_shift(approach, lr)
        return _run(
            dataset, approach, seed, em, mae, *args, extrapolate=extrapolate, lr=lr, **kwargs
        )

    runs = [at("classification", 0.80, 0.30), at("regression", 0.60, 0.50)]
    for k, em, zero in ((1.0, 0.40, 0.0), (5.0, 0.70, 0.1), (20.0, 0.95, 0.6)):
        runs.append(at("rounding", em, 0.2, "sigmoid_round", {"steepness": k}, zero=zero))
    for a, em in ((1.0, 0.62), (4.0, 0.65)):
        runs.append(at("rounding", em, 0.45, "soft_round", {"alpha": a}, zero=0.0))
    error = (
        "no gradient: the loss has no gradient with respect to 6 of 6 weight tensors "
        "(hidden_0/kernel, hidden_0/bias, hidden_1/kernel, ...); an activation on their path has "
        "none (activations: relu, hard_round)"
    )
    runs.append(at("rounding", 0.0, 0.0, "hard_round", None, status=results.FAILED, error=error))
    return runs


def synthetic_runs() -> list[results.RunResult]:
    runs = []
    for dataset, extrapolate in (("count", True), ("digit_sum", False)):
        for seed in SEEDS:
            for lr in LEARNING_RATES:
                runs += _grid_point(dataset, extrapolate, seed, lr)
    # one configuration with a single seed: its interval must be shown as unavailable
    runs.append(_run("count", "rounding", 0, 0.5, 0.6, "ste_round", None, True, zero=0.0))
    # one diverged run: finished but its metrics were NaN and are stored as null
    runs.append(
        _run(
            "count",
            "rounding",
            3,
            math.nan,
            math.nan,
            "soft_round",
            {"alpha": 1.0},
            True,
            status=results.FAILED,
            error="loss became NaN at epoch 3",
        )
    )
    return runs


def write_runs(directory: Path, runs: list[results.RunResult]) -> Path:
    for r in runs:
        results.write(r, r.key.result_path(directory))
    return directory
