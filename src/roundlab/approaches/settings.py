"""The values of a training config that an approach's head is built from.

:meth:`Settings.of` is the one place that reads them from a composed config (or a result
file's config, for a saved model); each approach's ``build`` takes only these values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from roundlab.approaches.label_range import DEFAULT_MAX_CLASSES


@dataclass(frozen=True)
class Settings:
    """``max_classes`` and ``method`` from ``approach``; ``loss`` and ``huber_delta`` from
    ``trainer`` (regression reads them); ``activation`` and its parameters from the
    ``activation`` group (rounding reads them)."""

    max_classes: int = DEFAULT_MAX_CLASSES
    method: str | None = None
    loss: str = "mse"
    huber_delta: float = 1.0
    activation: str | None = None
    activation_params: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, cfg: Any) -> Settings:
        # The activations import TensorFlow, which planning a sweep from the catalogue must
        # not; only a config being built into a network gets here.
        from roundlab.activations import activation_params

        approach, trainer = cfg["approach"], cfg.get("trainer") or {}
        activation = cfg.get("activation") or {}
        return cls(
            max_classes=int(approach.get("max_classes") or DEFAULT_MAX_CLASSES),
            method=approach.get("method"),
            loss=str(trainer.get("loss", "mse")),
            huber_delta=float(trainer.get("huber_delta", 1.0)),
            activation=activation.get("name"),
            activation_params=activation_params(activation),
        )
