"""Learning-rate tuning on val: the rate kept per configuration, the grid and trials recorded,
and no choice anywhere that moves when only test or extrapolation numbers move."""

import math
import random

from synthetic_results import LEARNING_RATES, _run, synthetic_runs

from roundlab.report import answers, curves
from roundlab.report.headline import headline
from roundlab.report.selection import best_per_family, group
from roundlab.report.tuning import family_trials, tune, tune_groups
from roundlab.sweep.rates import Trial, choose


def _chosen(runs):
    """Every choice the report makes: per dataset the tuned configurations' rates, the headline
    rows, the rounding representative, the knob values and the sweep curves' best index."""
    groups = tune_groups(group(runs))
    out = {}
    for dataset, configs in groups.items():
        h = headline(dataset, configs)
        out[dataset] = (
            [(c.family, c.setting, c.learning_rate) for c in configs],
            [(c.family, c.setting, c.learning_rate) for c in h.rows],
            answers.in_range(h, configs).rounding.title,
            [(c.activation, c.best) for c in curves.sweep_curves(configs)],
        )
    out["knobs"] = [(k.activation, k.best) for k in answers.knobs(groups)]
    return out


def test_group_keeps_learning_rates_apart():
    configs = group(synthetic_runs())["count"]
    regression = [c for c in configs if c.approach == "regression"]
    assert [c.learning_rate for c in regression] == list(LEARNING_RATES)
    assert all(len(c.runs) == 3 for c in regression)


def test_tuning_keeps_the_rate_best_on_val_and_records_the_grid():
    configs = tune(group(synthetic_runs())["count"])
    rates = {c.title: c.learning_rate for c in configs}
    assert rates["regression"] == 1e-2  # synthetic regression does better at the higher rate
    assert rates["classification"] == 1e-3
    assert rates["rounding · sigmoid_round steepness=20"] == 1e-3
    sigmoid = next(c for c in configs if c.params == {"steepness": 20.0})
    assert sigmoid.grid == LEARNING_RATES and sigmoid.trials == 2
    assert all(r.key.learning_rate == 1e-3 for r in sigmoid.runs)


def test_tuning_ties_go_to_the_lower_val_mae_then_the_lower_rate():
    runs = [
        _run("count", "regression", s, 0.6, 0.5, lr=lr) for s in range(3) for lr in (1e-3, 1e-2)
    ]
    (tied,) = tune(group(runs)["count"])
    assert tied.learning_rate == 1e-3
    for r in runs:
        r.metrics["val"]["mae"] = 0.1 if r.key.learning_rate == 1e-2 else 0.4
    (by_mae,) = tune(group(runs)["count"])
    assert by_mae.learning_rate == 1e-2


def test_family_trials_count_knob_values_times_rates():
    trials = family_trials(tune(group(synthetic_runs())["count"]))
    assert trials["classification"] == 2 and trials["regression"] == 2
    assert trials["sigmoid_round"] == 3 * 2 and trials["soft_round"] == 2 * 2
    assert trials["ste_round"] == 1  # its single run had one rate


def test_perturbing_only_test_and_extrapolation_numbers_changes_no_choice():
    before = _chosen(synthetic_runs())
    rng = random.Random(0)
    perturbed = synthetic_runs()
    for r in perturbed:
        for split in ("test", "extrapolate"):
            for name in r.metrics.get(split, {}):
                r.metrics[split][name] = rng.uniform(0.0, 1.0)
    after = _chosen(perturbed)
    assert after == before
    # the perturbation did move the reported numbers
    rows = best_per_family(tune(group(perturbed)["count"]))
    assert [c.metric("test", "exact_match").mean for c in rows] != [
        c.metric("test", "exact_match").mean
        for c in best_per_family(tune(group(synthetic_runs())["count"]))
    ]


def test_tuning_keeps_the_sweeps_choice_and_flags_only_the_edges_it_could_not_leave():
    """The report chooses with the sweep's rule (roundlab.sweep.rates.choose): regression,
    extended from 0.01 to 0.03 where it peaked, is interior; classification, still improving at
    0.09 when the bound stopped its extensions, stays flagged at its edge."""
    peaks = {"regression": 0.03, "classification": 0.09}
    runs = [
        _run("count", a, s, 0.8 - abs(math.log(lr / peak)) / 10, 0.3, lr=lr)
        for a, peak in peaks.items()
        for s in range(3)
        for lr in (1e-3, 1e-2, 0.03, 0.09)
    ]
    configs = {c.approach: c for c in tune(group(runs)["count"])}
    for approach, cfg in configs.items():
        trials = [
            Trial.of(lr, [r for r in runs if r.approach == approach and r.key.learning_rate == lr])
            for lr in cfg.grid
        ]
        assert (cfg.learning_rate, cfg.rate_at_edge) == (
            choose(trials).rate,
            choose(trials).edge != 0,
        )
    assert configs["regression"].learning_rate == 0.03 and not configs["regression"].rate_at_edge
    assert configs["classification"].learning_rate == 0.09
    assert configs["classification"].rate_at_edge
    assert configs["classification"].grid == (1e-3, 1e-2, 0.03, 0.09)
