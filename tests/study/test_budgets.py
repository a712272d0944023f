"""The study's budgets are profiles: each parses with the sweep's own checks; `default` is the
pipeline's default profile; `quick` keeps every family the report compares, smaller."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from roundlab import approaches
from roundlab.data.entries import Entry
from roundlab.study import budgets
from roundlab.sweep.profile import PROFILES_FILE, parse_profile

ENTRY = {"d": Entry("d", "csv", ("name=d", "path='/x.csv'", "label='y'"))}


@pytest.mark.parametrize("name", ["quick", "default", "thorough"])
def test_every_budget_is_a_valid_profile_of_the_study_s_one_dataset(name):
    profile = parse_profile(name, budgets.budget(name, tracking=True), known_datasets=ENTRY)
    assert profile.datasets == ("d",)
    assert profile.dataset_overrides == {"d": ENTRY["d"].overrides}
    assert profile.launcher == "vectorized"


def test_default_budget_is_the_pipeline_s_default_profile():
    pipeline = yaml.safe_load((Path(__file__).resolve().parents[2] / PROFILES_FILE).read_text())[
        "default"
    ]
    assert budgets.raw_budgets()["default"] == pipeline


def test_quick_keeps_every_family_with_one_value_per_knob():
    quick = budgets.raw_budgets()["quick"]
    default = budgets.raw_budgets()["default"]
    assert tuple(quick["approaches"]) == approaches.without_activation()
    assert list(quick["activations"]) == list(default["activations"])
    assert all(v is None or len(v) == 1 for v in quick["activations"].values())
    assert all(
        v is None or v[0] in default["activations"][k] for k, v in quick["activations"].items()
    )
    assert (len(quick["seeds"]), len(quick["learning_rates"])) == (3, 2)
    assert quick["rate_extensions"] == 0
    assert "trainer.max_epochs_factor=1" in quick["overrides"]


def test_thorough_has_more_seeds_and_rates_than_default():
    raw = budgets.raw_budgets()
    for key in ("seeds", "learning_rates"):
        assert len(raw["thorough"][key]) > len(raw["default"][key])


def test_tracking_none_turns_the_budget_s_tracking_off():
    assert budgets.budget("quick", tracking=False)["tracking"] is False
