"""The "Answers in short" section fits on one screen: at most 450 words for a default-profile
sized result set (four datasets, every approach, four swept activations, all five questions),
built by hand so that the best values differ between datasets (the longest case)."""

from __future__ import annotations

from pathlib import Path

from synthetic_results import _run

from roundlab.report import cost, summary
from roundlab.report.document import Document
from roundlab.report.gradcheck import CheckRow
from roundlab.report.gradients import GradientResults
from roundlab.report.handwritten import HandwrittenRow, SpikyRow
from roundlab.report.headline import headline
from roundlab.report.recommendation import recommendations
from roundlab.report.render import to_markdown
from roundlab.report.selection import group
from roundlab.report.tuning import tune_groups

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ("affine", "anes96", "count", "digit_sum")
SWEPT = {
    "sigmoid_round": ("steepness", (1.0, 10.0, 100.0)),
    "sine_round": ("width", (0.1, 0.5, 1.0)),
    "soft_round": ("alpha", (0.5, 2.0, 8.0)),
    "comb_round": ("sigma", (0.05, 0.2, 1.0)),
}
PLAIN = (
    ("classification", None),
    ("regression", None),
    ("poisson", None),
    ("ordinal", "corn"),
    ("ordinal", "coral"),
    ("glm_poisson", None),
    ("ordered_logit", None),
)
WORD_LIMIT = 450


def _runs():
    out = []
    for d, dataset in enumerate(DATASETS):
        extrapolate = dataset != "anes96"
        for seed in range(3):
            for i, (approach, method) in enumerate(PLAIN):
                # coral stops at the budget on two datasets, as in the default profile
                stuck = method == "coral" and d % 2 == 0 and seed == 0
                r = _run(
                    dataset,
                    approach,
                    seed,
                    0.5 + 0.03 * ((i + d) % 5),
                    0.6,
                    extrapolate=extrapolate,
                    converged=not stuck,
                )
                if method:
                    r.config["approach"] = {"name": approach, "method": method}
                out.append(r)
            for a, (activation, (param, values)) in enumerate(SWEPT.items()):
                for v, value in enumerate(values):
                    em = 0.45 + 0.05 * ((v + d + a) % 3)  # a different best value per dataset
                    zero = 0.1 * v + 0.01 * d
                    params = {param: value}
                    out.append(
                        _run(
                            dataset,
                            "rounding",
                            seed,
                            em,
                            0.6,
                            activation,
                            params,
                            extrapolate,
                            zero=zero,
                        )
                    )
            out.append(_run(dataset, "rounding", seed, 0.52, 0.6, "ste_round", None, extrapolate))
    return out


def _gradients() -> GradientResults:
    checks = [
        CheckRow(name, f"{param}={v:g}", "finite differences", 200, 1e-6, True)
        for name, (param, values) in SWEPT.items()
        for v in values
    ] + [CheckRow(n, "—", "finite differences", 200, 1e-6, True) for n in ("ste_round", "spiky")]
    handwritten = [
        HandwrittenRow("approx_round_grad", "steepness=1", 0.0, 1.0, "agrees (k = 1: ...)"),
        HandwrittenRow(
            "approx_round_grad", "steepness=10", 2.0, 10.0, "wrong: misses the factor k (x = 10)"
        ),
        HandwrittenRow(
            "approx_round_grad", "steepness=100", 20, 100.0, "wrong: misses the factor k (x = 100)"
        ),
    ] + [
        HandwrittenRow("approx_round_grad_sin", f"width={w:g}", 0.0, None, "agrees")
        for w in (0.1, 0.5, 1.0)
    ]
    spiky = [SpikyRow("numpy", (), (), True), SpikyRow("TensorFlow ops", (), (), True)]
    recorded = cost.read(ROOT / cost.RECORD)
    return GradientResults(checks, handwritten, spiky, recorded, [], None, None)


def test_answers_in_short_fit_on_one_screen_for_a_default_sized_result_set(tmp_path):
    groups = tune_groups(group(_runs()))
    headlines = {d: headline(d, configs) for d, configs in groups.items()}
    recs = [r for h in headlines.values() for r in recommendations(h)]
    grad = _gradients()
    assert grad.cost is not None, "bench/numpy_cost.json must be recorded"
    blocks = summary.summary_blocks(headlines, groups, grad, recs)
    text = to_markdown(Document("t", blocks), tmp_path)
    section = text.split("## Answers in short")[1]
    for question in ("**1.", "**2.", "**3.", "**4.", "**5."):
        assert question in section
    assert section.count("\n- ") == 4 + 4 + 3 + 1 + 3  # datasets, sweeps, splits, 1, numpy
    assert len(section.split()) <= WORD_LIMIT, section
