"""The ways to predict an integer, each declared once: its head, loss and readout.

``get(name)`` returns the catalogue entry, ``build(cfg, y_train)`` the
:class:`roundlab.approaches.head.Approach` a config asks for, ``readme_table()`` the table
README.md shows (a test keeps the two equal).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from roundlab.approaches.head import Approach


@dataclass(frozen=True)
class ApproachSpec:
    """One catalogue entry. ``uses_activation``: the ``activation`` config group matters (only
    rounding); ``in_range_only``: it cannot predict a label outside the training label range.
    Its builder is ``roundlab.approaches.<name>.build``, imported when first used, so that
    planning a sweep from the catalogue imports no TensorFlow."""

    name: str
    head: str
    loss: str
    readout: str
    uses_activation: bool
    in_range_only: bool

    def build(self, cfg: Any, y_train: np.ndarray) -> Approach:
        return importlib.import_module(f"roundlab.approaches.{self.name}").build(cfg, y_train)


_CATALOGUE = {
    spec.name: spec
    for spec in (
        ApproachSpec(
            "classification",
            head="one logit per label of the training range",
            loss="softmax cross-entropy",
            readout="argmax + lowest training label",
            uses_activation=False,
            in_range_only=True,
        ),
        ApproachSpec(
            "regression",
            head="one linear unit",
            loss="`trainer.loss`: MSE or Huber",
            readout="round half to even",
            uses_activation=False,
            in_range_only=False,
        ),
        ApproachSpec(
            "rounding",
            head="one linear unit + the rounding activation `activation=<name>`",
            loss="MSE",
            readout="round half to even",
            uses_activation=True,
            in_range_only=False,
        ),
    )
}


def names() -> tuple[str, ...]:
    """Every approach, in the order reports list them."""
    return tuple(_CATALOGUE)


def without_activation() -> tuple[str, ...]:
    """The approaches whose runs do not depend on the ``activation`` group."""
    return tuple(n for n, s in _CATALOGUE.items() if not s.uses_activation)


# The approach whose output passes through a rounding activation (its runs vary by activation).
ROUNDING = next(n for n, s in _CATALOGUE.items() if s.uses_activation)


def get(name: str) -> ApproachSpec:
    try:
        return _CATALOGUE[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"approach.name must be one of {names()}. Received: approach.name={name!r}"
        ) from None


def build(cfg: Any, y_train: np.ndarray) -> Approach:
    """The approach named by ``cfg.approach.name``, fitted to the training labels' range."""
    return get(cfg.approach.name).build(cfg, y_train)


def readme_table() -> str:
    """The approach table of README.md (markdown)."""
    rows = [
        "| approach | head | loss | readout | predicts outside the training labels |",
        "|---|---|---|---|---|",
    ]
    for spec in _CATALOGUE.values():
        outside = "no, by construction" if spec.in_range_only else "yes"
        rows.append(f"| `{spec.name}` | {spec.head} | {spec.loss} | {spec.readout} | {outside} |")
    return "\n".join(rows) + "\n"
