"""The rate extensions, without training: the rule on hand-made val scores (an edge that beats its
neighbour extends one x3 step outward; a tie, an interior choice or a bound does not), and the
rounds planned from result files (only the configurations at an edge, every seed, one multirun
per family restricted by an allow-list, never a reference)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from roundlab import results
from roundlab.runs import RunKey
from roundlab.sweep import extend, workers
from roundlab.sweep.plan import Multirun, plan
from roundlab.sweep.profile import Profile, parse_profile
from roundlab.sweep.rates import BOUNDS, Choice, Trial, choose, ladder, next_rate, outward

GRID = (0.001, 0.003, 0.01)


def _trials(scores: dict[float, tuple[float, float]]) -> list[Trial]:
    """One trial per rate from (mean val exact match, mean val MAE), as three seeds that
    spread ±0.01 around them."""
    return [
        Trial(rate, (em - 0.01, em, em + 0.01), (mae + 0.01, mae, mae - 0.01))
        for rate, (em, mae) in scores.items()
    ]


def test_an_upper_edge_that_beats_its_neighbour_extends_by_three():
    trials = _trials({0.001: (0.5, 0.6), 0.003: (0.6, 0.5), 0.01: (0.7, 0.4)})
    assert choose(trials).rate == 0.01 and choose(trials).edge == 1
    assert next_rate(trials, GRID, 2) == 0.03


def test_a_lower_edge_that_beats_its_neighbour_extends_down_to_six_digits():
    trials = _trials({0.001: (0.7, 0.4), 0.003: (0.6, 0.5), 0.01: (0.5, 0.6)})
    assert choose(trials).edge == -1
    assert next_rate(trials, GRID, 2) == 0.000333333
    assert f"{next_rate(trials, GRID, 2):g}" == "0.000333333"  # the override and path segment


def test_an_edge_tied_with_its_neighbour_does_not_extend():
    # equal exact match and MAE: the tie goes to the lower rate, which is not better than 0.01
    trials = _trials({0.001: (0.5, 0.6), 0.003: (0.7, 0.4), 0.01: (0.7, 0.4)})
    assert choose(trials).rate == 0.003 and choose(trials).edge == 0
    assert next_rate(trials, GRID, 2) is None
    low = _trials({0.001: (0.7, 0.4), 0.003: (0.7, 0.4), 0.01: (0.5, 0.6)})
    assert choose(low).rate == 0.001 and choose(low).edge == 0
    assert next_rate(low, GRID, 2) is None


def test_a_tie_on_exact_match_is_broken_by_mae_and_can_extend():
    trials = _trials({0.001: (0.5, 0.6), 0.003: (0.7, 0.45), 0.01: (0.7, 0.4)})
    assert choose(trials).rate == 0.01
    assert next_rate(trials, GRID, 2) == 0.03


def test_an_interior_choice_does_not_extend():
    trials = _trials({0.001: (0.5, 0.6), 0.003: (0.8, 0.3), 0.01: (0.6, 0.5)})
    assert choose(trials).rate == 0.003 and choose(trials).edge == 0
    assert next_rate(trials, GRID, 2) is None


def test_the_extension_bound_stops_and_the_choice_stays_at_its_edge():
    scores = {0.001: (0.5, 0.6), 0.003: (0.6, 0.5), 0.01: (0.7, 0.4), 0.03: (0.75, 0.35)}
    assert next_rate(_trials(scores), GRID, 2) == 0.09
    scores[0.09] = (0.8, 0.3)
    full = _trials(scores)
    assert next_rate(full, GRID, 2) is None  # two rates beyond 0.01 already
    assert choose(full).rate == 0.09 and choose(full).edge == 1  # still flagged
    assert next_rate(_trials(scores), GRID, 3) == 0.27
    assert next_rate(_trials({0.001: (0.5, 0.6), 0.01: (0.7, 0.4)}), (0.001, 0.01), 0) is None


def test_the_rate_bounds_stop_an_extension():
    near_top = {0.03: (0.5, 0.6), 0.1: (0.7, 0.4)}
    assert outward(0.1, 1) == 0.3 and next_rate(_trials(near_top), (0.03, 0.1), 2) == 0.3
    top = {0.1: (0.5, 0.6), 0.3: (0.7, 0.4)}
    assert next_rate(_trials(top), (0.1, 0.3), 2) is None  # 0.9 > 0.3
    bottom = {2e-5: (0.7, 0.4), 6e-5: (0.5, 0.6)}
    assert next_rate(_trials(bottom), (2e-5, 6e-5), 2) is None  # 6.66667e-06 < 1e-05
    assert BOUNDS == (1e-5, 0.3)


def test_a_rate_whose_seeds_all_failed_scores_worst():
    trials = [Trial(0.001, (0.5,), (0.6,)), Trial(0.01)]
    assert choose(trials).rate == 0.001 and choose(trials).edge == -1
    assert choose([Trial(0.001), Trial(0.01)]) == Choice(0.001, 0)  # nothing beats nothing


def test_the_ladder_lists_every_rate_an_extension_can_reach():
    assert ladder(GRID, 2) == [0.000333333, 0.000111111, 0.03, 0.09]
    assert ladder((0.1, 0.3), 2) == [0.0333333, 0.0111111]
    assert ladder(GRID, 0) == []


# -- rounds planned from result files ---------------------------------------------------------


def _profile(**raw) -> Profile:
    base = {
        "datasets": ["count", "affine"],
        "seeds": [0, 1],
        "learning_rates": [0.001, 0.01],
        "approaches": ["classification", "regression", "ordinal", "ordered_logit"],
        "activations": {"sigmoid_round": [5, 20], "hard_round": None},
    }
    return parse_profile("p", {**base, **raw}, None)


def _one_resample(dataset, overrides, config=None):
    return 1


def _param(act):
    return {"sigmoid_round": "steepness", "hard_round": None}[act]


def _write(results_dir: Path, key: RunKey, em: float, mae: float = 0.5, ok=True) -> None:
    status = results.FINISHED if ok else results.FAILED
    run = results.RunResult(
        status,
        key.dataset,
        key.approach,
        key.seed,
        key.activation,
        key.activation_params,
        config={
            "trainer": {"learning_rate": key.learning_rate},
            "approach": {"method": key.method},
        },
        metrics={"val": {"exact_match": em, "mae": mae}} if ok else {},
    )
    results.write(run, key.result_path(results_dir))


def _fill(results_dir: Path, multiruns: list[Multirun], better_high: set[tuple]) -> None:
    """Every run's file: configurations in ``better_high`` ((dataset, variant)) score better the
    higher the rate; the others the lower the rate, except regression, equal at every rate."""
    for m in multiruns:
        for k in m.runs:
            step = 0.05 * math.log(k.learning_rate / 0.001)
            if (k.dataset, k.variant) in better_high:
                em = 0.5 + step
            elif k.approach == "regression":
                em = 0.5
            else:
                em = 0.5 - step
            _write(results_dir, k, em + 0.001 * k.seed)


def test_a_round_extends_every_edge_and_batches_each_family_into_one_multirun(tmp_path):
    profile = _profile()
    planned = plan(profile, _param, resamples_of=_one_resample)
    _fill(tmp_path, planned, {("count", "sigmoid_round-steepness=20"), ("affine", "corn")})
    ext = extend.extensions(profile, planned, tmp_path, 1)
    families = {m.family: m for m in ext}
    # regression ties (no extension); references are never extended
    assert set(families) == {
        "rate_extensions/1/approaches",
        "rate_extensions/1/ordinal",
        "rate_extensions/1/activations",
        "rate_extensions/1/sigmoid_round",
    }
    sig = families["rate_extensions/1/sigmoid_round"]
    assert {(k.dataset, k.params, k.learning_rate) for k in sig.runs} == {
        ("count", (("steepness", 20.0),), 0.03),
        ("count", (("steepness", 5.0),), 0.000333333),
        ("affine", (("steepness", 5.0),), 0.000333333),
        ("affine", (("steepness", 20.0),), 0.000333333),
    }
    assert sorted({k.seed for k in sig.runs}) == [0, 1] and len(sig.runs) == 8
    # the cross product of the union, cut to those runs by the allow-list
    assert "trainer.learning_rate=0.000333333,0.03" in sig.overrides
    assert "activation.steepness=5,20" in sig.overrides and "seed=0,1" in sig.overrides
    ordinal = families["rate_extensions/1/ordinal"]
    assert {(k.dataset, k.method, k.learning_rate) for k in ordinal.runs} == {
        ("count", "corn", 0.000333333),
        ("count", "coral", 0.000333333),
        ("affine", "corn", 0.03),
        ("affine", "coral", 0.000333333),
    }
    plain = families["rate_extensions/1/approaches"]
    assert "approach=classification" in plain.overrides  # regression tied: narrowed away
    assert all(m.round == 1 for m in ext)
    listed = yaml.safe_load(extend.allow_list(sig))
    assert "count/rounding/sigmoid_round-steepness=20/lr=0.03/seed=1.json" in listed
    assert len(listed) == 8
    (task,) = workers.tasks([sig], tmp_path / "q")  # its cross product, held to the allow-list
    allow = tmp_path / "q" / workers.ALLOW_LISTS / "rate_extensions_1_sigmoid_round.yaml"
    assert all(job[-1] == f"sweep.only={allow}" for job in task.jobs)
    assert yaml.safe_load(allow.read_text()) == listed


def test_rounds_go_on_until_the_bound_and_the_recomputation_follows_the_files(tmp_path):
    profile = _profile(
        datasets=["count"], approaches=["regression"], activations={}, rate_extensions=2
    )
    planned = plan(profile, _param, resamples_of=_one_resample)
    _fill(tmp_path, planned, {("count", "default")})
    first = extend.extensions(profile, planned, tmp_path, 1)
    assert [k.learning_rate for k in first[0].runs] == [0.03, 0.03]
    assert extend.all_rounds(profile, planned, tmp_path) == first  # round 1 left no files yet
    _fill(tmp_path, first, {("count", "default")})
    second = extend.extensions(profile, planned + first, tmp_path, 2)
    assert [k.learning_rate for k in second[0].runs] == [0.09, 0.09]
    _fill(tmp_path, second, {("count", "default")})
    assert extend.extensions(profile, planned + first + second, tmp_path, 3) == []  # bound: 2
    assert extend.all_rounds(profile, planned, tmp_path) == first + second
    assert (
        extend.all_rounds(_profile(datasets=["count"], rate_extensions=0), planned, tmp_path) == []
    )


def test_a_configuration_with_a_missing_run_is_not_extended(tmp_path):
    profile = _profile(datasets=["count"], approaches=["regression"], activations={})
    planned = plan(profile, _param, resamples_of=_one_resample)
    _fill(tmp_path, planned, {("count", "default")})
    planned[0].runs[0].result_path(tmp_path).unlink()
    assert extend.extensions(profile, planned, tmp_path, 1) == []


def test_the_candidates_cover_the_ladder_of_every_network_run_but_no_reference():
    profile = _profile(datasets=["count"], seeds=[0])
    keys = extend.candidates(profile, plan(profile, _param, resamples_of=_one_resample))
    assert {k.learning_rate for k in keys} == {0.000333333, 0.000111111, 0.03, 0.09}
    assert not any(k.approach == "ordered_logit" for k in keys)
    assert len(keys) == 4 * 7  # classification, regression, corn, coral, hard_round, 2 sigmoid


@pytest.mark.parametrize("value", [-1, 1.0, True, "2"])
def test_rate_extensions_must_be_an_integer_of_at_least_zero(value):
    with pytest.raises(ValueError, match=r"rate_extensions must be an integer >= 0\. Received"):
        _profile(rate_extensions=value)


def test_rate_extensions_defaults_to_two_and_zero_turns_them_off():
    assert _profile().rate_extensions == 2
    assert _profile(rate_extensions=0).rate_extensions == 0


def test_prepare_keeps_the_files_an_extension_could_plan_again_and_removes_the_rest(tmp_path):
    from roundlab.sweep.runner import prepare

    profile = _profile(datasets=["count"], seeds=[0], approaches=["regression"], activations={})
    planned = plan(profile, _param, resamples_of=_one_resample)
    regression = RunKey.of("count", "regression")
    kept = [_at_rate(regression, lr) for lr in (0.001, 0.01, 0.03, 0.09, 0.000111111)]
    dropped = [_at_rate(regression, lr) for lr in (0.27, 0.002)]
    for key in kept + dropped:
        _write(tmp_path / "results", key, 0.5)
    removed = prepare(
        tmp_path / "results", tmp_path / "multirun", planned, extend.candidates(profile, planned)
    )
    assert sorted(removed) == sorted(k.result_path(tmp_path / "results") for k in dropped)
    assert all(k.result_path(tmp_path / "results").is_file() for k in kept)


def _at_rate(key: RunKey, rate: float) -> RunKey:
    return RunKey.of(key.dataset, key.approach, seed=key.seed, learning_rate=rate)
