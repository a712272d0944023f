"""The catalogue of rounding activations: each declared once here, everything else derived.

An entry (:class:`~roundlab.activations.entry.Spec`) holds the function, its parameter (name,
default, range: :mod:`roundlab.activations.parameters`), whether it runs in numpy, its source
and its texts for tables. Derived from it: the registry (``names``, ``spec``, ``get``), the
parameter names the Keras layer routes, the package's exports, conf/activation/<name>.yaml
(:func:`config_yaml`) and the activation table in README.md (:func:`readme_table`).
``python -m roundlab.activations --write`` rewrites those files; tests fail when they differ.

Sources, by the short names the docstrings use:

- the custom-activation Q&A: the community Q&A thread "How to make a custom activation
  function with only Python in Tensorflow?". It writes an activation and its derivative in
  numpy and wraps both as a TensorFlow op (``tf.py_func`` with a gradient override then;
  :func:`~roundlab.activations.numpy_activation` here); its worked example is spiky(x). It
  also notes the alternative: build the function from TensorFlow ops and let autodiff
  differentiate it.
- the rounding Q&A: the community Q&A thread "What activation function should I use to enforce
  rounding-like behaviour?". Its answers: softmax classification over the integers; MSE
  regression rounded afterwards; ``approx_round(x, steepness)``, a sigmoid step, and
  ``approx_round_sin(x, width)``, a clipped sine, each with a hand-written gradient; and a
  Gaussian surrogate for round's derivative, a Dirac comb at the half-integers.
- Agustsson and Theis 2020, "Universally Quantized Neural Compression",
  https://arxiv.org/abs/2006.09952, sec. 4.1: soft round.
- Bengio, Léonard and Courville 2013, "Estimating or Propagating Gradients Through Stochastic
  Neurons for Conditional Computation", https://arxiv.org/abs/1308.3432: straight-through.
"""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf

from roundlab.activations.controls import hard_round, identity
from roundlab.activations.entry import Source, Spec
from roundlab.activations.gaussian_comb import comb_round
from roundlab.activations.numpy_twins import sigmoid_round_np, sine_round_np, spiky_np
from roundlab.activations.parameters import ALPHA, SIGMA, STEEPNESS, WIDTH
from roundlab.activations.sigmoid import sigmoid_round
from roundlab.activations.sine import sine_round
from roundlab.activations.soft import soft_round
from roundlab.activations.spiky import spiky
from roundlab.activations.straight_through import ste_round

CUSTOM_ACTIVATION_QA = Source(
    "custom-activation Q&A",
    "How to make a custom activation function with only Python in Tensorflow?",
)
ROUNDING_QA = Source(
    "rounding Q&A", "What activation function should I use to enforce rounding-like behaviour?"
)
SOFT_ROUND_PAPER = Source(
    "Agustsson and Theis 2020",
    "Universally Quantized Neural Compression",
    "https://arxiv.org/abs/2006.09952",
)
STRAIGHT_THROUGH_PAPER = Source(
    "Bengio, Léonard and Courville 2013",
    "Estimating or Propagating Gradients Through Stochastic Neurons for Conditional Computation",
    "https://arxiv.org/abs/1308.3432",
)

_TENSORFLOW = (
    Spec(identity, "x: no rounding at all (the control with a linear output)", "x", "1"),
    Spec(
        hard_round,
        "round(x): TensorFlow has no gradient for it, so training fails (the negative control)",
        "round(x)",
        "none (TensorFlow has no gradient for round): the negative control",
    ),
    Spec(
        ste_round,
        "round(x) forward, identity backward (straight-through estimator)",
        "round(x)",
        "1, straight-through",
        source=STRAIGHT_THROUGH_PAPER,
    ),
    Spec(
        sigmoid_round,
        "floor(x) + sigmoid(steepness * (frac(x) - 0.5)), the rounding Q&A's approx_round",
        "floor(x) + sigmoid(k·(frac(x) − ½))",
        "the true derivative k·s·(1 − s)",
        STEEPNESS,
        source=ROUNDING_QA,
        detail="`approx_round`",
    ),
    Spec(
        sine_round,
        "floor(x) + clipped_sin(frac(x), width), the rounding Q&A's approx_round_sin",
        "floor(x) + clipped_sin(frac(x), w)",
        "the clipped cosine",
        WIDTH,
        source=ROUNDING_QA,
        detail="`approx_round_sin`",
    ),
    Spec(
        soft_round,
        "soft round: identity at alpha = 0, round as alpha grows",
        "m + tanh(α·(x − m)) / (2·tanh(α/2)), m = floor(x) + ½",
        "autodiff, guarded at small alpha",
        ALPHA,
        source=SOFT_ROUND_PAPER,
        detail="sec. 4.1",
    ),
    Spec(
        comb_round,
        "round(x) forward, a comb of Gaussians at the half-integers backward",
        "round(x)",
        "Σ N(x; n + ½, σ²) over the nearest half-integers",
        SIGMA,
        source=ROUNDING_QA,
        detail="Gaussian surrogate of round's derivative",
    ),
    Spec(
        spiky,
        "spiky(x): frac(x) where frac(x) <= 0.5, else 0 (TensorFlow ops)",
        "frac(x) if frac(x) ≤ ½ else 0",
        "1 where frac(x) ≤ ½, else 0",
        source=CUSTOM_ACTIVATION_QA,
        detail="worked example",
    ),
)


def _numpy_twin(function: Callable[..., tf.Tensor]) -> Spec:
    """The entry of ``<name>_np``: ``<name>`` computed in numpy through numpy_activation."""
    of = next(entry for entry in _TENSORFLOW if f"{entry.name}_np" == function.__name__)
    return Spec(
        function,
        f"{of.name} through numpy_activation (tf.numpy_function): not XLA-compilable",
        f"as `{of.name}`, in numpy",
        f"as `{of.name}`, in numpy",
        of.parameter,
        numpy_backed=True,
        source=CUSTOM_ACTIVATION_QA,
        detail="numpy function + numpy derivative",
    )


# The TensorFlow activations first, then the numpy twins: the order of names() and of tables.
CATALOGUE: tuple[Spec, ...] = (
    *_TENSORFLOW,
    *(_numpy_twin(function) for function in (spiky_np, sigmoid_round_np, sine_round_np)),
)
_BY_NAME = {entry.name: entry for entry in CATALOGUE}

# Every parameter name some activation takes (the Keras layer routes these to get()).
PARAMETER_NAMES = frozenset(entry.param for entry in CATALOGUE if entry.param)


def names() -> list[str]:
    """Every catalogued activation name, the TensorFlow ones first, then the numpy twins."""
    return list(_BY_NAME)


def spec(name: str) -> Spec:
    """The catalogue entry for ``name``; ValueError listing the known names if there is none."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"activation must be one of {names()}. Received: name={name!r}") from None


def numpy_backed(*used: str | None) -> list[str]:
    """The numpy-backed activations among ``used`` (activation names, Keras ones and None
    allowed): they run on the host, so XLA cannot compile them and a group cannot stack them."""
    return [n for n in used if n in _BY_NAME and _BY_NAME[n].numpy_backed]


def config_yaml(name: str) -> str:
    """conf/activation/<name>.yaml: the Hydra config of ``name`` with its default parameter.

    The schema it names (``/schema/activation/<name>``) is built from :func:`spec` by
    ``roundlab.run.config.activation_schema``.
    """
    entry = spec(name)
    summary = entry.summary
    lines = []
    if entry.parameter is not None:
        summary += f"; {entry.param} {entry.constraint}"
        lines.append(f"{entry.param}: {entry.default!r}")
    return "\n".join(
        [
            f"# {summary}.",
            "defaults:",
            f"  - /schema/activation/{name}@_here_",
            "  - _self_",
            "",
            f"name: {name}",
            *lines,
            "",
        ]
    )


README_BEGIN = "<!-- activation table: generated by `python -m roundlab.activations --write` -->"
README_END = "<!-- end of the generated activation table -->"


def readme_table() -> str:
    """The activation table of README.md (markdown), with the sources it cites under it,
    between the README_BEGIN and README_END comment lines."""
    rows = [
        "| name | forward | backward | parameter | default | source |",
        "|---|---|---|---|---|---|",
    ]
    cited: list[Source] = []
    for entry in CATALOGUE:
        parameter = f"`{entry.param}`: {entry.constraint}" if entry.parameter else "—"
        default = f"{entry.default:g}" if entry.parameter else "—"
        cells = [f"`{entry.name}`", entry.forward, entry.backward, parameter, default]
        rows.append(f"| {' | '.join([*cells, _cite(entry)])} |")
        if entry.source and entry.source not in cited:
            cited.append(entry.source)
    legend = [
        f'- {source.cite}: "{source.title}"' + (f", {source.link}" if source.link else "")
        for source in cited
    ]
    return "\n".join([README_BEGIN, *rows, "", "Sources:", "", *legend, README_END, ""])


def _cite(entry: Spec) -> str:
    if entry.source is None:
        return "control"
    cite = entry.source.cite
    if entry.source.link:
        cite = f"[{cite}]({entry.source.link})"
    return f"{cite}, {entry.detail}" if entry.detail else cite
