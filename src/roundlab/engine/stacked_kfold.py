"""K-fold selection (:mod:`roundlab.engine.kfold`) for a stacked group: every member's k fold
networks train as k members of one program, each on its own development rows (per-member
row indices, padded and masked like the partial last batch) and validated on its own held-out
fold (a per-member mask over the development rows, metrics as masked means); then one refit
per member trains on every development row for its own epoch count, the refits again as one
program in which each member stops at its own epoch.

Fold networks whose training parts need a different number of batches (the fold sizes differ
by one row, which can cross a multiple of the batch size) train as a second program, so that
no member takes an optimizer step on an empty batch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from roundlab.engine import kfold, stacked
from roundlab.engine.members import TRAIN_KEYS, Member, MemberOutcome
from roundlab.engine.outcome import Fitted

# A fold network's predictor from its member index and weights (its knob set by the caller).
Predictor = Callable[[int, list[np.ndarray]], kfold.Predict]


def cross_validate(
    approach: Any,
    members: Sequence[Member],
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    folds: kfold.Folds,
    predictor: Predictor,
    *,
    epochs: int,
    batch_size: int,
    early_stopping: Any = None,
    **train: Any,
) -> list[tuple[kfold.CrossValidation | None, MemberOutcome]]:
    """Per member: its cross-validation and its refit's outcome, or ``(None, the outcome of
    its first failed fold)`` when a fold's loss stopped being finite (no refit then).
    ``train``: the other arguments of :func:`roundlab.engine.stacked.train_members`."""
    per_member = train_folds(
        approach,
        members,
        x_dev,
        y_dev,
        folds,
        epochs=epochs,
        batch_size=batch_size,
        early_stopping=early_stopping,
        **train,
    )
    outcomes: list[tuple[kfold.CrossValidation | None, MemberOutcome]] = []
    selected: dict[int, kfold.CrossValidation] = {}
    for m, fold_outcomes in enumerate(per_member):
        failed = [o for o in fold_outcomes if o.error is not None]
        if failed:
            outcomes.append((None, failed[0]))
            continue
        cv = kfold.CrossValidation(folds, [], [], early_stopping=early_stopping is not None)
        for f, outcome in enumerate(fold_outcomes):
            cv.fits.append(Fitted(outcome.history, outcome.best_epoch, outcome.epochs_run, epochs))
            scores, baseline = kfold.fold_scores(
                predictor(m, outcome.weights), x_dev, y_dev, folds, f
            )
            cv.scores.append(scores)
            cv.baselines.append(baseline)
        selected[m] = cv
        outcomes.append((cv, fold_outcomes[0]))
    if selected:
        chosen = sorted(selected)
        refits = train_refits(
            approach,
            [members[m] for m in chosen],
            x_dev,
            y_dev,
            [selected[m].refit_epochs for m in chosen],
            batch_size=batch_size,
            **train,
        )
        for m, refit in zip(chosen, refits, strict=True):
            outcomes[m] = (selected[m], refit)
    return outcomes


def train_folds(
    approach: Any,
    members: Sequence[Member],
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    folds: kfold.Folds,
    *,
    batch_size: int,
    **train: Any,
) -> list[list[MemberOutcome]]:
    """Per member, the outcomes of its k fold networks (fold order): members x folds trained as
    members, fold f on every fold but f and validated on fold f."""
    expanded = [member for member in members for _ in range(folds.k)]
    rows = [folds.training(f) for _ in members for f in range(folds.k)]
    masks = np.stack([folds.fold == f for _ in members for f in range(folds.k)])
    by_steps: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        by_steps.setdefault(math.ceil(len(r) / batch_size), []).append(i)
    targets = np.asarray(y_dev, dtype=np.float32)
    outcomes: list[MemberOutcome | None] = [None] * len(expanded)
    for chosen in by_steps.values():
        trained = stacked.train_members(
            approach,
            [expanded[i] for i in chosen],
            x_dev,
            targets,
            x_dev,
            targets,
            batch_size=batch_size,
            train_rows=[rows[i] for i in chosen],
            val_masks=masks[chosen],
            **train,
        )
        for i, outcome in zip(chosen, trained, strict=True):
            outcomes[i] = outcome
    return [outcomes[m * folds.k : (m + 1) * folds.k] for m in range(len(members))]


def train_refits(
    approach: Any,
    members: Sequence[Member],
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    epochs: Sequence[int],
    **train: Any,
) -> list[MemberOutcome]:
    """Each member trained on every development row for its own ``epochs``, without early
    stopping or validation; the history holds the training keys only."""
    targets = np.asarray(y_dev, dtype=np.float32)
    # Nothing is held out: one validation row, masked for every member, keeps the program's shape.
    outcomes = stacked.train_members(
        approach,
        members,
        x_dev,
        targets,
        x_dev[:1],
        targets[:1],
        epochs=max(epochs),
        val_masks=np.zeros((len(members), 1), dtype=bool),
        member_epochs=epochs,
        **train,
    )
    return [
        replace(o, history={k: v for k, v in o.history.items() if k in TRAIN_KEYS})
        for o in outcomes
    ]
