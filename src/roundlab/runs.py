"""A run's identity: which dataset (and, for a dataset with resamples, which resample),
approach (with its method, for ordinal), output activation with its parameter, learning rate
and seed.

:class:`RunKey` names one run everywhere: its result file
(``<results_dir>/<dataset>/<approach>/<variant>/lr=<learning_rate>/seed=<seed>.json``), its
MLflow run name (``<approach>/<variant>/lr=<learning_rate>/seed=<seed>``), both with a
``resample=<r>`` segment before the seed's for a run on resample ``r``, its variant label
(``default`` without an output activation, ``<activation>`` or ``<activation>-<param>=<value>``
with one, the method, ``corn`` or ``coral``, for an approach with methods) and the Hydra
overrides that select it. The learning rate is part of the identity because the protocol tunes
it per configuration on the validation split. A sweep plan is a list of them.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from roundlab import approaches, paths
from roundlab.errors import ConfigError

DEFAULT_VARIANT = "default"
# conf/trainer/default.yaml's learning_rate (a test keeps the two equal); importing the config
# schema here would import TensorFlow into every planner.
DEFAULT_LEARNING_RATE = 1e-3
# Config keys that never change what a run computes: where it writes, how a sweep schedules it,
# exits and scores it. Left out of its fingerprint, of the setups two result files are compared
# on, and of what a stacked group's members must share.
RUN_INDEPENDENT_KEYS = ("results_dir", "tracking", "sweep", "fail_on_failed_jobs", "objective")
# A name that becomes one directory of a result path (dataset, approach, method, activation) or
# names a profile: a letter or digit first, so that it is never `.`, `..` or hidden, and no
# separator, so that it is one path segment.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


@dataclass(frozen=True)
class RunKey:
    """``params`` holds the output activation's parameters as sorted ``(name, value)`` pairs;
    ``activation`` is None (and ``params`` empty) for approaches that use no activation;
    ``learning_rate`` is ``trainer.learning_rate``; ``method`` is ``approach.method`` for an
    approach with methods (None means its default), None for the others; ``resample`` is
    ``dataset.resample``: None for a dataset without resamples (its paths and names carry
    none), else the resample the run trains and is scored on."""

    dataset: str
    approach: str
    activation: str | None = None
    params: tuple[tuple[str, float], ...] = ()
    seed: int = 0
    learning_rate: float = DEFAULT_LEARNING_RATE
    method: str | None = None
    resample: int | None = None

    def __post_init__(self) -> None:
        spec = approaches.get(self.approach)
        uses = spec.uses_activation
        if self.method is None and spec.methods:
            object.__setattr__(self, "method", spec.methods[0])
        if self.method is not None and self.method not in spec.methods:
            raise ValueError(
                f"approach={self.approach} takes approach.method in {spec.methods}. "
                f"Received: method={self.method!r}"
            )
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
        check_learning_rate(self.learning_rate, "learning_rate")
        if self.resample is not None:
            if isinstance(self.resample, bool) or not isinstance(self.resample, int):
                raise ConfigError(
                    f"dataset.resample must be a non-negative integer or null. "
                    f"Received: dataset.resample={self.resample!r}"
                )
            if self.resample < 0:
                raise ConfigError(
                    f"dataset.resample must be >= 0. Received: dataset.resample={self.resample}"
                )
        object.__setattr__(self, "params", tuple(sorted((str(k), v) for k, v in self.params)))
        object.__setattr__(self, "learning_rate", float(self.learning_rate))

    @classmethod
    def of(
        cls,
        dataset: str,
        approach: str,
        activation: str | None = None,
        params: Mapping[str, float] | None = None,
        seed: int = 0,
        learning_rate: float = DEFAULT_LEARNING_RATE,
        method: str | None = None,
        resample: int | None = None,
    ) -> RunKey:
        params_ = tuple((params or {}).items())
        return cls(
            dataset, approach, activation, params_, int(seed), learning_rate, method, resample
        )

    @classmethod
    def from_config(cls, cfg: Any) -> RunKey:
        """The run a composed training config describes (the activation group counts only for
        approaches that use it)."""
        uses = approaches.get(cfg.approach.name).uses_activation
        activation = cfg.activation.name if uses else None
        # Every key but the name is a parameter (read here, not through the activations, which
        # import TensorFlow: the sweep names its jobs' runs before it starts any).
        params = {str(k): float(v) for k, v in cfg.activation.items() if k != "name"}
        return cls.of(
            cfg.dataset.name,
            cfg.approach.name,
            activation,
            params if uses else {},
            cfg.seed,
            cfg.trainer.learning_rate,
            cfg.approach.get("method"),
            cfg.dataset.get("resample"),
        )

    @property
    def activation_params(self) -> dict[str, float]:
        return dict(self.params)

    @property
    def variant(self) -> str:
        """``sigmoid_round-steepness=10`` with an output activation, the method (``corn``) for
        an approach with methods, ``default`` otherwise."""
        if not self.activation:
            return self.method or DEFAULT_VARIANT
        return "-".join([self.activation, *(f"{k}={_number(v)}" for k, v in self.params)])

    @property
    def lr_label(self) -> str:
        """``lr=0.001``: the learning rate's path segment."""
        return f"lr={_number(self.learning_rate)}"

    @property
    def seed_label(self) -> str:
        """``seed=3``, or ``resample=2/seed=3`` on a resample: the last segments of the result
        path and run name."""
        seed = f"seed={self.seed}"
        return seed if self.resample is None else f"resample={self.resample}/{seed}"

    @property
    def run_name(self) -> str:
        """The MLflow run name."""
        return f"{self.approach}/{self.variant}/{self.lr_label}/{self.seed_label}"

    def result_path(self, results_dir: Path | str) -> Path:
        """Where the run's result file goes: always inside ``results_dir``. The names were
        checked when the config was validated (:func:`check_name`); a path that would still
        leave ``results_dir`` is refused here, so no input writes outside it."""
        root = Path(results_dir)
        path = root / self.dataset / self.approach / self.variant / self.lr_label
        if self.resample is not None:
            path = path / f"resample={self.resample}"
        path = path / f"seed={self.seed}.json"
        if not _normal(path).is_relative_to(_normal(root)):
            raise ConfigError(
                f"a result file must stay inside results_dir. Received: dataset={self.dataset!r}, "
                f"variant={self.variant!r}, results_dir={str(results_dir)!r}"
            )
        return path

    def overrides(self) -> list[str]:
        """Hydra overrides of ``python -m roundlab.train`` that select this run."""
        out = [f"dataset={self.dataset}"]
        if self.resample is not None:
            out.append(f"dataset.resample={self.resample}")
        out.append(f"approach={self.approach}")
        if self.method:
            out.append(f"approach.method={self.method}")
        if self.activation:
            out.append(f"activation={self.activation}")
            out += [f"activation.{k}={_number(v)}" for k, v in self.params]
        return [*out, f"trainer.learning_rate={_number(self.learning_rate)}", f"seed={self.seed}"]

    def with_seed(self, seed: int) -> RunKey:
        return replace(self, seed=int(seed))


def check_learning_rate(value: Any, key: str = "trainer.learning_rate") -> None:
    """Refuse a learning rate that is not a positive number, naming ``key``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(f"{key} must be > 0. Received: {key}={value!r}")


def check_name(value: Any, key: str) -> str:
    """Refuse a name that could leave its directory once it is part of a path (``..``, a
    separator, an absolute path), naming ``key``: such names are where a config or profile
    would otherwise write outside results_dir. Returns the name."""
    if not isinstance(value, str) or not SAFE_NAME.fullmatch(value):
        raise ConfigError(
            f"{key} must be a name of letters, digits, '_', '-' and '.' that starts with a letter "
            f"or digit (it names a directory). Received: {key}={value!r}"
        )
    return value


def _normal(path: Path) -> Path:
    """Absolute, with ``..`` and ``.`` resolved in the text only: links are not followed, since
    results_dir may hold links that point elsewhere on purpose (a DVC cache)."""
    return Path(os.path.normpath(Path(path).absolute()))


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@functools.cache
def activation_parameters() -> dict[str, tuple[str, float] | None]:
    """Each catalogued activation's ``(parameter, default)`` (None: it takes none), read from
    ``conf/activation/<name>.yaml``: every key but ``defaults`` and ``name`` is its parameter.
    ``python -m roundlab.activations --write`` writes those files from the catalogue and tests
    keep them equal to it; read here, they cost no TensorFlow import: the sweep plans, names
    and fingerprints its jobs without it, and the report plans as the sweep did."""
    out: dict[str, tuple[str, float] | None] = {}
    for file in sorted((paths.CONF_DIR / "activation").glob("*.yaml")):
        node = OmegaConf.load(file)
        params = [(k, float(v)) for k, v in node.items() if k not in ("defaults", "name")]
        out[str(node.name)] = params[0] if params else None
    return out


def activation_parameter(name: str) -> str | None:
    """The parameter of the activation ``name`` (None when it takes none); ValueError listing
    the known names when there is no such activation."""
    known = activation_parameters()
    if name not in known:
        raise ValueError(f"activation must be one of {sorted(known)}. Received: name={name!r}")
    found = known[name]
    return None if found is None else found[0]
