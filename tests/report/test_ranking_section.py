"""The "Across datasets" section on hand-made results: the diagram's PNG and one sentence per
metric, rebuilt to the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hand_made_headlines import CLS, LOGIT, REG, SIGMOID, headlines

from roundlab.report.document import Bullets, Figure, Heading, Paragraph
from roundlab.report.ranking_section import FIGURE, HEADING, ranking_blocks

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# The same order on all four datasets in exact match (classification, sigmoid_round,
# regression); in MAE sigmoid_round and classification swap places on two of them.
SAME_ORDER = {
    "a": {CLS: (0.8, 0.3), REG: (0.4, 0.9), SIGMOID: (0.6, 0.25)},
    "b": {CLS: (0.7, 0.4), REG: (0.3, 1.1), SIGMOID: (0.5, 0.2), LOGIT: (0.2, 2.0)},
    "c": {CLS: (0.9, 0.3), REG: (0.5, 0.6), SIGMOID: (0.6, 0.2)},
    "d": {CLS: (0.6, 0.5), REG: (0.2, 1.4), SIGMOID: (0.4, 0.7)},
}


def test_section_draws_the_diagram_and_writes_one_sentence_per_metric(tmp_path):
    blocks = ranking_blocks(headlines(SAME_ORDER), tmp_path)
    heading, intro, sentences, figure = blocks
    assert heading == Heading(HEADING, 2)
    assert isinstance(intro, Paragraph) and isinstance(sentences, Bullets)
    assert isinstance(figure, Figure) and figure.path == tmp_path / FIGURE
    assert figure.path.read_bytes().startswith(PNG_SIGNATURE)
    assert figure.path.stat().st_size > 10_000
    # k = 3, N = 4: CD = 2.343 · sqrt(3·4 / 24) = 1.66; the same order on every dataset
    # gives an infinite F_F
    assert sentences.items[0] == (
        "**Test exact match**: best average rank classification (1.00 of 3 approaches); the "
        "Nemenyi test (critical difference 1.66 ranks) cannot separate it from rounding · "
        "sigmoid_round, only from regression; Friedman test p < 0.001 (Iman–Davenport F = ∞)."
    )
    # MAE: sigmoid_round 1, 1, 1, 2 → 1.25; classification 2, 2, 2, 1 → 1.75; regression 3
    # chi2_F = 12·4/(3·4) · (1.25² + 1.75² + 3² − 12) = 6.5; F_F = 3·6.5 / (8 − 6.5) = 13
    assert sentences.items[1] == (
        "**Test MAE**: best average rank rounding · sigmoid_round (1.25 of 3 approaches); "
        "the Nemenyi test (critical difference 1.66 ranks) cannot separate it from "
        "classification, only from regression; Friedman test p = 0.007 (Iman–Davenport "
        "F = 13.00)."
    )
    assert "ordered_logit (reference) (none on a, c, d)" in intro.text
    assert "With 4 datasets" in intro.text and "little power" in intro.text


def test_rebuilding_the_section_gives_the_same_png_bytes(tmp_path):
    first = ranking_blocks(headlines(SAME_ORDER), tmp_path / "one")
    second = ranking_blocks(headlines(SAME_ORDER), tmp_path / "two")
    assert first[-1].path.read_bytes() == second[-1].path.read_bytes()
    assert first[:-1] == second[:-1]


def test_a_friedman_test_that_does_not_reject_calls_no_approach_better(tmp_path):
    # classification and regression swap places from one dataset to the next
    swapping = {
        d: {CLS: (0.8 - s, 0.3 + s), REG: (0.6 + s, 0.5 - s)}
        for d, s in (("a", 0.0), ("b", 0.4), ("c", 0.0), ("d", 0.4))
    }
    sentences = ranking_blocks(headlines(swapping), tmp_path)[2]
    assert sentences.items[0] == (
        "**Test exact match**: best average rank classification (1.50 of 2 approaches, "
        "shared with regression); Friedman test p = 1.000 (Iman–Davenport F = 0.00): "
        "the ranks do not tell any of the 2 approaches apart, so no post-hoc "
        "comparison is made."
    )


def test_one_dataset_gives_no_ranking_and_no_figure(tmp_path):
    blocks = ranking_blocks(headlines({"a": SAME_ORDER["a"]}), tmp_path)
    assert not any(isinstance(b, Figure) for b in blocks)
    assert not (tmp_path / FIGURE).exists()
    assert blocks[2].items[0] == (
        "**Test exact match**: no ranking: a ranking needs at least 2 datasets (one dataset "
        "ranks nothing across datasets) and 2 approaches with a value on each; there are 1 "
        "and 3."
    )


def test_a_long_list_not_separated_from_the_best_is_counted_and_the_short_one_named(tmp_path):
    # eight approaches in the same order on all four datasets: CD = 3.031 · sqrt(72 / 24) = 5.25,
    # so only the last two (6 and 7 ranks behind the first) are separated from it
    corn, coral = ("ordinal", None, "corn"), ("ordinal", None, "coral")
    poisson, glm = ("poisson", None, None), ("glm_poisson", None, None)
    names = [CLS, REG, SIGMOID, corn, coral, poisson, glm, LOGIT]
    table = {
        d: {key: (0.9 - 0.1 * i, 0.1 + 0.1 * i) for i, key in enumerate(names)} for d in "abcd"
    }
    sentences = ranking_blocks(headlines(table), tmp_path)[2]
    assert sentences.items[0] == (
        "**Test exact match**: best average rank classification (1.00 of 8 approaches); the "
        "Nemenyi test (critical difference 5.25 ranks) separates it only from glm_poisson "
        "(reference), ordered_logit (reference), not from the other 5; Friedman test "
        "p < 0.001 (Iman–Davenport F = ∞)."
    )


# Builds the section of test_a_long_list... in a fresh interpreter and prints the PNG's digest.
_BUILD = """
import hashlib, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from hand_made_headlines import CLS, LOGIT, REG, SIGMOID, headlines
from roundlab.report.ranking_section import ranking_blocks
keys = [CLS, REG, SIGMOID, ("ordinal", None, "corn"), ("ordinal", None, "coral"),
        ("poisson", None, None), ("glm_poisson", None, None), LOGIT]
# two datasets swap neighbours, so several bars of more than two approaches are drawn
swapped = (1, 0, 3, 2, 5, 4, 7, 6)
places = {{"a": range(8), "b": range(8), "c": swapped, "d": swapped}}
table = {{d: {{k: (0.9 - 0.1 * p[i], 0.5) for i, k in enumerate(keys)}} for d, p in places.items()}}
png = ranking_blocks(headlines(table), Path({out!r}))[-1].path
print(hashlib.sha256(png.read_bytes()).hexdigest())
"""


def test_the_diagram_has_the_same_bytes_whatever_the_string_hash_seed(tmp_path):
    """scikit-posthocs collects each bar's approaches in a set; the drawing must not follow the
    set's order, which changes with PYTHONHASHSEED from one process to the next."""
    digests = set()
    for seed in ("1", "2", "3"):
        script = _BUILD.format(tests=str(Path(__file__).parent), out=str(tmp_path / seed))
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1


def test_a_friedman_rejection_the_post_hoc_test_cannot_place_is_said_so(tmp_path):
    keys = [CLS, REG, SIGMOID, LOGIT, ("ordinal", None, "corn"), ("ordinal", None, "coral")]
    places = {  # 0 is the best on that dataset
        "a": (4, 3, 1, 0, 2, 5),
        "b": (3, 1, 2, 5, 0, 4),
        "c": (5, 4, 2, 0, 1, 3),
        "d": (4, 2, 1, 3, 0, 5),
    }
    table = {d: {k: (0.9 - 0.1 * p[i], 0.5) for i, k in enumerate(keys)} for d, p in places.items()}
    sentence = ranking_blocks(headlines(table), tmp_path)[2].items[0]
    # average ranks: corn 1.75, sigmoid_round 2.5, ordered_logit 3, regression 3.5,
    # classification 5, coral 5.25; chi2_F = 48/42 · (83.125 − 73.5) = 11, F_F = 33/9 = 3.67,
    # p = 0.023; the widest gap, 3.5, stays under CD = 2.850 · sqrt(42/24) = 3.77
    assert sentence == (
        "**Test exact match**: best average rank ordinal · corn (1.75 of 6 approaches); the "
        "Nemenyi test (critical difference 3.77 ranks) cannot separate it from any other "
        "approach; Friedman test p = 0.023 (Iman–Davenport F = 3.67): the ranks differ "
        "somewhere, but the post-hoc test is not powerful enough to say where."
    )
