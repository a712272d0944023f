"""Synthetic result files: a small but complete sweep, with failed runs and a single-seed config.

A plain module (not conftest) so tests import it by a name no other test directory uses."""

from __future__ import annotations

import math
from pathlib import Path

from roundlab import results

SEEDS = (0, 1, 2)
EPOCHS = 6


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
) -> results.RunResult:
    jitter = 0.01 * (seed - 1)  # three seeds give a spread of ±0.01 around the mean
    history = {
        "loss": [2.0 * math.exp(-0.4 * e) + 0.1 + jitter for e in range(EPOCHS)],
        "val_loss": [2.2 * math.exp(-0.35 * e) + 0.15 + jitter for e in range(EPOCHS)],
    }
    ok = status == results.FINISHED
    return results.RunResult(
        status=status,
        dataset=dataset,
        approach=approach,
        seed=seed,
        activation=activation,
        activation_params=params or {},
        config={"trainer": {"epochs": EPOCHS}},
        metrics=_metrics(em + jitter, mae - jitter, extrapolate) if ok else {},
        baseline=_metrics(0.12, 2.5, extrapolate) if ok else {},
        zero_grad_fraction=zero if ok else None,
        history=history if ok else {},
        duration_s=3.0,
        versions={"tensorflow": "2.21.0", "keras": "3.15.1"},
        device="CPU:0",
        error=error,
    )


def synthetic_runs() -> list[results.RunResult]:
    runs = []
    for dataset, extrapolate in (("count", True), ("digit_sum", False)):
        for seed in SEEDS:
            runs.append(_run(dataset, "classification", seed, 0.80, 0.30, extrapolate=extrapolate))
            runs.append(_run(dataset, "regression", seed, 0.60, 0.50, extrapolate=extrapolate))
            for k, em, zero in ((1.0, 0.40, 0.0), (5.0, 0.70, 0.1), (20.0, 0.95, 0.6)):
                runs.append(
                    _run(
                        dataset,
                        "rounding",
                        seed,
                        em,
                        0.2,
                        "sigmoid_round",
                        {"steepness": k},
                        extrapolate,
                        zero=zero,
                    )
                )
            for a, em in ((1.0, 0.62), (4.0, 0.65)):
                runs.append(
                    _run(
                        dataset,
                        "rounding",
                        seed,
                        em,
                        0.45,
                        "soft_round",
                        {"alpha": a},
                        extrapolate,
                        zero=0.0,
                    )
                )
            runs.append(
                _run(
                    dataset,
                    "rounding",
                    seed,
                    0.0,
                    0.0,
                    "hard_round",
                    None,
                    extrapolate,
                    status=results.FAILED,
                    error="Traceback ...\nValueError: No gradients provided for any "
                    "variable (hard_round has no gradient)",
                )
            )
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
