"""A run's identity: which dataset, approach, output activation with its parameter, and seed.

:class:`RunKey` names one run everywhere: its result file
(``<results_dir>/<dataset>/<approach>/<variant>/seed=<seed>.json``), its MLflow run name
(``<approach>/<variant>/seed=<seed>``), its variant label (``default`` without an output
activation, ``<activation>`` or ``<activation>-<param>=<value>`` with one) and the Hydra
overrides that select it. A sweep plan is a list of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from roundlab import approaches

DEFAULT_VARIANT = "default"


@dataclass(frozen=True)
class RunKey:
    """``params`` holds the output activation's parameters as sorted ``(name, value)`` pairs;
    ``activation`` is None (and ``params`` empty) for approaches that use no activation."""

    dataset: str
    approach: str
    activation: str | None = None
    params: tuple[tuple[str, float], ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        uses = approaches.get(self.approach).uses_activation
        if uses and not self.activation:
            raise ValueError(
                f"approach={self.approach} needs an output activation. "
                f"Received: activation={self.activation!r}"
            )
        if not uses and (self.activation or self.params):
            raise ValueError(
                f"approach={self.approach} uses no output activation. Received: "
                f"activation={self.activation!r}, params={dict(self.params)}"
            )
        object.__setattr__(self, "params", tuple(sorted((str(k), v) for k, v in self.params)))

    @classmethod
    def of(
        cls,
        dataset: str,
        approach: str,
        activation: str | None = None,
        params: Mapping[str, float] | None = None,
        seed: int = 0,
    ) -> RunKey:
        return cls(dataset, approach, activation, tuple((params or {}).items()), int(seed))

    @classmethod
    def from_config(cls, cfg: Any) -> RunKey:
        """The run a composed training config describes (the activation group counts only for
        approaches that use it)."""
        uses = approaches.get(cfg.approach.name).uses_activation
        activation = cfg.activation.name if uses else None
        params = {str(k): float(v) for k, v in cfg.activation.items() if k != "name"}
        return cls.of(
            cfg.dataset.name, cfg.approach.name, activation, params if uses else {}, cfg.seed
        )

    @property
    def activation_params(self) -> dict[str, float]:
        return dict(self.params)

    @property
    def variant(self) -> str:
        """``sigmoid_round-steepness=10`` with an output activation, ``default`` without."""
        if not self.activation:
            return DEFAULT_VARIANT
        return "-".join([self.activation, *(f"{k}={_number(v)}" for k, v in self.params)])

    @property
    def run_name(self) -> str:
        """The MLflow run name."""
        return f"{self.approach}/{self.variant}/seed={self.seed}"

    def result_path(self, results_dir: Path | str) -> Path:
        return (
            Path(results_dir)
            / self.dataset
            / self.approach
            / self.variant
            / f"seed={self.seed}.json"
        )

    def overrides(self) -> list[str]:
        """Hydra overrides of ``python -m roundlab.train`` that select this run."""
        out = [f"dataset={self.dataset}", f"approach={self.approach}"]
        if self.activation:
            out.append(f"activation={self.activation}")
            out += [f"activation.{k}={_number(v)}" for k, v in self.params]
        return [*out, f"seed={self.seed}"]

    def with_seed(self, seed: int) -> RunKey:
        return replace(self, seed=int(seed))


def activation_params(node: Any) -> dict[str, float]:
    """An activation config node's parameters (every key but ``name``) as floats."""
    return {str(k): float(v) for k, v in node.items() if k != "name"}


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
