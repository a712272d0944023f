"""The ways to predict an integer, each declared once: its head, loss and readout.

``get(name)`` returns the catalogue entry, ``build(cfg, y_train)`` the
:class:`roundlab.approaches.head.Approach` a config asks for (each approach's own ``build``
takes only the :class:`~roundlab.approaches.settings.Settings` it reads), ``readme_table()``
the table README.md shows (a test keeps the two equal). Entries of kind ``reference`` are
classical models fitted instead of a network, by statsmodels or LightGBM
(:mod:`roundlab.engine.references`): they write ordinary result files, so the report and MLflow
treat them like any approach. The reference ``lightgbm`` (gradient-boosted trees) has methods
(``multiclass``, ``regression``, ``poisson``) as ``ordinal`` has.

May import the leaves and the activations. This ``__init__`` (the catalogue) imports no
TensorFlow, so planning a sweep from it costs nothing; the heads import Keras when built.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from roundlab.approaches.settings import Settings

if TYPE_CHECKING:
    from roundlab.approaches.head import Approach


NETWORK = "network"
REFERENCE = "reference"


@dataclass(frozen=True)
class ApproachSpec:
    """One catalogue entry. ``uses_activation``: the ``activation`` config group matters (only
    rounding); ``in_range_only``: it cannot predict a label outside the training label range
    in any of its methods; ``in_range_methods``: the methods that cannot when others can
    (lightgbm's multiclass; its regression and poisson can); ``methods``: the values of
    ``approach.method`` (the first is the default), each a run identity of its own;
    ``kind``: :data:`NETWORK` (an MLP trained by an engine) or :data:`REFERENCE` (a
    statsmodels fit or boosted trees, deterministic: seeds and learning rate do not change
    it). A network's builder is ``roundlab.approaches.<name>.build``, imported when first used,
    so that planning a sweep from the catalogue imports no TensorFlow."""

    name: str
    head: str
    loss: str
    readout: str
    uses_activation: bool
    in_range_only: bool
    methods: tuple[str, ...] = ()
    kind: str = NETWORK
    in_range_methods: tuple[str, ...] = ()

    @property
    def is_reference(self) -> bool:
        return self.kind == REFERENCE

    def build(self, settings: Settings, y_train: np.ndarray) -> Approach:
        if self.is_reference:
            raise ValueError(
                f"a reference is fitted by roundlab.engine.references, it has no network head. "
                f"Received: approach.name={self.name!r}"
            )
        module = importlib.import_module(f"roundlab.approaches.{self.name}")
        return module.build(settings, y_train)


def _reference(
    name: str,
    head: str,
    loss: str,
    readout: str,
    in_range_only: bool,
    methods: tuple[str, ...] = (),
    in_range_methods: tuple[str, ...] = (),
) -> ApproachSpec:
    """A classical reference: no network, so no output activation."""
    head = f"reference, no network: {head}"
    return ApproachSpec(
        name, head, loss, readout, False, in_range_only, methods, REFERENCE, in_range_methods
    )


_RATE_READOUT = "rate rounded half up (the mode, floor(rate), is recorded too)"
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
        ApproachSpec(
            "ordinal",
            head="`approach.method=corn`: K−1 conditional logits; `coral`: one score + K−1 "
            "biases (K labels in the training range)",
            loss="CORN: conditional binary cross-entropies; CORAL: cumulative ones",
            readout="number of k with P(y > k) > 0.5 + lowest training label",
            uses_activation=False,
            in_range_only=True,
            methods=("corn", "coral"),
        ),
        ApproachSpec(
            "poisson",
            head="one linear unit: the log-rate",
            loss="Poisson negative log-likelihood",
            readout=_RATE_READOUT,
            uses_activation=False,
            in_range_only=False,
        ),
        _reference(
            "glm_poisson",
            "log-rate linear in the features",
            "Poisson likelihood (statsmodels GLM, IRLS)",
            _RATE_READOUT,
            in_range_only=False,
        ),
        _reference(
            "ordered_logit",
            "one linear score + K−1 thresholds",
            "ordered-logit likelihood (statsmodels OrderedModel)",
            "most probable label of the training range",
            in_range_only=True,
        ),
        _reference(
            "lightgbm",
            "gradient-boosted trees (LightGBM), stopped early on the val rows; "
            "`approach.method=multiclass`: one score per label of the training range; "
            "`regression`: the label; `poisson`: the log-rate",
            "multiclass: softmax cross-entropy; regression: squared error; "
            "poisson: Poisson likelihood",
            "multiclass: argmax + lowest training label (never outside the training range); "
            "regression: round half to even; poisson: " + _RATE_READOUT,
            in_range_only=False,
            methods=("multiclass", "regression", "poisson"),
            in_range_methods=("multiclass",),
        ),
    )
}


def names() -> tuple[str, ...]:
    """Every approach, in the order reports list them."""
    return tuple(_CATALOGUE)


def references() -> tuple[str, ...]:
    """The classical references (statsmodels fits and boosted trees, no network)."""
    return tuple(n for n, s in _CATALOGUE.items() if s.is_reference)


def in_range_only() -> tuple[str, ...]:
    """The approaches that cannot predict a label outside the training label range, a method
    that cannot as ``<approach> · <method>``."""
    return tuple(
        name
        for n, s in _CATALOGUE.items()
        for name in ([n] if s.in_range_only else [f"{n} · {m}" for m in s.in_range_methods])
    )


def confined(approach: str, method: str | None = None) -> bool:
    """True when ``approach`` (with ``method``) cannot predict outside the training labels."""
    spec = get(approach)
    return spec.in_range_only or (method is not None and method in spec.in_range_methods)


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
    return get(cfg.approach.name).build(Settings.of(cfg), y_train)


def readme_table() -> str:
    """The approach table of README.md (markdown)."""
    rows = [
        "| approach | kind | head | loss | readout | predicts outside the training labels |",
        "|---|---|---|---|---|---|",
    ]
    for spec in _CATALOGUE.values():
        outside = "no, by construction" if spec.in_range_only else "yes"
        if spec.in_range_methods:
            outside = (
                f"not `{'`, `'.join(spec.in_range_methods)}`, by construction; the others in "
                "principle, rarely in practice (tree leaves hold training-range values)"
            )
        rows.append(
            f"| `{spec.name}` | {spec.kind} | {spec.head} | {spec.loss} | {spec.readout} "
            f"| {outside} |"
        )
    return "\n".join(rows) + "\n"
