"""Selection by k-fold cross-validation when the validation split is small.

With a fixed split of, say, 96 training and 17 validation rows, early stopping and the choice
of a learning rate or knob rest on 17 rows: one row is 6 points of exact match. Below
:data:`KFOLD_BELOW_VAL_ROWS` validation rows (``trainer.selection: auto``), or always with
``trainer.selection: kfold``, a run instead:

1. pools the development rows (train + val; never test or extrapolate) and cuts them into
   k folds (``trainer.cv_folds``), stratified by label when every label has at least k rows
   (scikit-learn's ``StratifiedKFold``), else shuffled plain folds (``KFold``); the shuffle seed
   is a constant, so the folds are a function of the dataset alone and every configuration of
   a dataset (approach, knob, rate, seed) is compared on the same rows;
2. trains one network per fold on the other k - 1 folds, early-stopped on its own fold, all
   from the run's initial weights;
3. refits one network on every development row for a fixed ``round(mean(best epoch + 1))``
   epochs (the fold's best epochs are 0-based, so ``best + 1`` is the number of epochs that
   made its kept weights; half rounds up; without early stopping a fold keeps its last epoch,
   so the refit trains the whole budget). This is scikit-learn's ``GridSearchCV(refit=True)``
   convention: one network to save, serve and log, with the epoch budget the folds agreed on,
   where an ensemble of the k fold networks would need an ensembling readout that differs by
   approach (averaged probabilities, averaged rates, a vote over integers) and k times the
   serving cost.

The run's val metrics are the mean over folds of each fold network's metrics on its held-out
fold (what selection reads); its test and extrapolate metrics are the refit network's. The run
converged when every fold did (its kept epoch is not the budget's last). The result records
``engine["selection"]``: ``{"method": "kfold", "folds", "stratified", "fold_best_epochs",
"refit_epochs", "val_rows"}`` (val_rows: the development rows), or ``{"method": "holdout",
"val_rows"}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from roundlab.data import Dataset
from roundlab.data.dataset import Split
from roundlab.engine import evaluation
from roundlab.engine.early_stopping import Tracker
from roundlab.engine.outcome import Fitted

# Below this many validation rows a run selects by k-fold. At 200 rows the 95% interval of an
# exact-match rate near 0.5 is about +-0.07 wide, the order of the differences the report
# separates; with fewer rows one holdout split decides the early-stopping epoch and the tuned
# rate by noise (17 rows: one row is 0.06 of exact match).
KFOLD_BELOW_VAL_ROWS = 200
SELECTIONS = ("auto", "holdout", "kfold")
# The folds' shuffle seed: fixed, so the folds depend on the dataset only, never on a run's seed.
FOLD_SEED = 0

Predict = Callable[[np.ndarray], dict[str, np.ndarray]]  # features -> readout name -> integers


def method(selection: str, val_rows: int) -> str:
    """``kfold`` or ``holdout``: what ``trainer.selection`` means for a validation split of
    ``val_rows`` rows (auto: kfold below :data:`KFOLD_BELOW_VAL_ROWS`)."""
    if selection not in SELECTIONS:
        raise ValueError(
            f"selection must be one of {list(SELECTIONS)}. Received: selection={selection!r}"
        )
    if selection == "auto":
        return "kfold" if val_rows < KFOLD_BELOW_VAL_ROWS else "holdout"
    return selection


def holdout_record(val_rows: int) -> dict[str, Any]:
    """``engine["selection"]`` of a run selected on its validation split."""
    return {"method": "holdout", "val_rows": int(val_rows)}


def kfold_record(folds: Folds, dev_rows: int) -> dict[str, Any]:
    """``engine["selection"]`` of a run selected by k-fold, before its folds' epochs (a
    reference's whole record; a network run's when a fold failed)."""
    return {
        "method": "kfold",
        "folds": folds.k,
        "stratified": folds.stratified,
        "val_rows": int(dev_rows),
    }


@dataclass(frozen=True)
class Folds:
    """``fold[i]``: the fold (0..k-1) of development row i."""

    fold: np.ndarray
    k: int
    stratified: bool

    def training(self, f: int) -> np.ndarray:
        """Development rows fold ``f``'s network trains on (every other fold), ascending."""
        return np.flatnonzero(self.fold != f)

    def held_out(self, f: int) -> np.ndarray:
        """Development rows fold ``f``'s network is stopped and scored on, ascending."""
        return np.flatnonzero(self.fold == f)


def assign(y_dev: np.ndarray, k: int) -> Folds:
    """The k folds of the development labels ``y_dev``: stratified when every label has at
    least k rows, else plain shuffled folds; deterministic (:data:`FOLD_SEED`)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    y = np.asarray(y_dev, dtype=np.int64)
    if isinstance(k, bool) or not isinstance(k, int) or k < 2 or k > len(y):
        raise ValueError(
            f"cv_folds must be an integer from 2 to the number of development rows {len(y)}. "
            f"Received: cv_folds={k!r}"
        )
    stratified = int(np.unique(y, return_counts=True)[1].min()) >= k
    splitter = (StratifiedKFold if stratified else KFold)(k, shuffle=True, random_state=FOLD_SEED)
    fold = np.empty(len(y), dtype=np.int64)
    for f, (_, held) in enumerate(splitter.split(np.zeros((len(y), 1)), y)):
        fold[held] = f
    return Folds(fold, k, stratified)


def development(dataset: Dataset, x: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(features, int64 labels)`` of the development rows: train, then val."""
    return (
        np.concatenate([x["train"], x["val"]]),
        np.concatenate([dataset.train.y, dataset.val.y]).astype(np.int64),
    )


def refit_epochs(best_epochs: Sequence[int]) -> int:
    """``round(mean(best + 1))``, half up: the refit's epochs from the folds' 0-based best
    epochs."""
    return mean_count([best + 1 for best in best_epochs])


def mean_count(counts: Sequence[int]) -> int:
    """``round(mean(counts))``, half up: what the refit trains of the folds' epochs or trees."""
    if not counts:
        raise ValueError("a refit needs at least one fold. Received: counts=[]")
    return int(np.floor(np.mean(np.asarray(counts, dtype=np.float64)) + 0.5))


def fold_scores(
    predict: Predict, x_dev: np.ndarray, y_dev: np.ndarray, folds: Folds, f: int
) -> tuple[dict[str, float], dict[str, float]]:
    """``(metrics, baseline)`` of fold ``f``'s predictor on its held-out rows: the same keys a
    holdout run records for val, the baseline being the median of the fold's training rows."""
    tr, held = folds.training(f), folds.held_out(f)
    splits = {"train": Split(x_dev[tr], y_dev[tr]), "val": Split(x_dev[held], y_dev[held])}
    scores, baseline = evaluation.score_readouts(
        predict, {"val": x_dev[held]}, Dataset("fold", {}, splits)
    )
    return scores["val"], baseline["val"]


def mean_scores(per_fold: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each metric's mean over the folds."""
    return {key: float(np.mean([s[key] for s in per_fold])) for key in per_fold[0]}


@dataclass
class CrossValidation:
    """What the folds decided: their best epochs and convergence (none for a fit without
    epochs), the mean held-out metrics and baseline.

    ``early_stopping``: whether the folds kept their best epoch's weights. Without it they keep
    their last epoch's, which their held-out metrics score, so the epochs they count for the
    refit are all they ran (the whole budget, as a holdout run without early stopping)."""

    folds: Folds
    scores: list[dict[str, float]]
    baselines: list[dict[str, float]]
    fits: list[Fitted] = field(default_factory=list)
    early_stopping: bool = True

    @property
    def best_epochs(self) -> list[int]:
        """Each fold's 0-based epoch whose weights it kept."""
        if self.early_stopping:
            return [fit.best_epoch for fit in self.fits]
        return [fit.epochs_run - 1 for fit in self.fits]

    @property
    def refit_epochs(self) -> int:
        return refit_epochs(self.best_epochs)

    @property
    def converged(self) -> bool:
        return all(fit.converged for fit in self.fits)

    def record(self, result: Any, dev_rows: int) -> None:
        """Put the folds' mean held-out metrics in ``result`` as its val metrics, its
        convergence (every fold) and ``engine["selection"]``."""
        result.metrics["val"] = mean_scores(self.scores)
        result.baseline["val"] = mean_scores(self.baselines)
        selection = kfold_record(self.folds, dev_rows)
        if self.fits:
            result.converged = self.converged
            selection |= {"fold_best_epochs": self.best_epochs, "refit_epochs": self.refit_epochs}
        result.engine["selection"] = selection


class FixedEpochs(Tracker):
    """Members that each train for their own number of epochs (a refit), without early
    stopping: a member keeps its weights after every epoch it runs with a finite loss and stops
    after ``epochs[m]``."""

    def __init__(self, epochs: Sequence[int]):
        super().__init__(len(epochs), None)
        self.epochs = np.asarray(epochs, dtype=np.int64)

    def update(self, epoch: int, values: np.ndarray) -> np.ndarray:
        keep = super().update(epoch, values)
        self.best_epoch[keep] = epoch
        self.running &= epoch + 1 < self.epochs
        return keep


def member_rows(
    given: Sequence[np.ndarray] | None, members: int, n: int, batch_size: int
) -> list[np.ndarray]:
    """Each member's training rows in a stacked group: every one of the ``n`` rows, or its own
    (``given``), which must all fill as many batches: a member with an empty batch would still
    take an optimizer step (Adam moves a weight with a zero gradient), and the shared step count
    keeps Adam's bias correction that of ``fit`` on the member's own rows."""
    if given is None:
        return [np.arange(n)] * members
    rows = [np.asarray(r, dtype=np.int64) for r in given]
    steps = {math.ceil(len(r) / batch_size) for r in rows}
    if len(rows) != members or len(steps) != 1 or min(map(len, rows)) < 1:
        raise ValueError(
            f"train_rows must give every member rows filling the same number of batches. "
            f"Received: {len(rows)} row sets for {members} members, batches={sorted(steps)}"
        )
    return rows
