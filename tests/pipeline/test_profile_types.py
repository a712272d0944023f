"""Profile values are typed strictly: a value of the wrong type is refused naming the key and the
value received, never converted into something the profile does not say."""

import pytest
import yaml

from roundlab.errors import ConfigError
from roundlab.sweep import cli
from roundlab.sweep import profile as profiles


def _profile(**raw):
    base = {"datasets": ["count"], "seeds": [0, 1]}
    return profiles.parse_profile("p", {**base, **raw}, known_datasets=["count"])


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"tracking": "no"}, "profiles.p.tracking must be true or false. Received: tracking='no'"),
        ({"tracking": 0}, "profiles.p.tracking must be true or false. Received: tracking=0"),
        ({"seeds": [0.7, 1.2]}, "profiles.p.seeds must be distinct integers >= 0, at least one, "),
        ({"seeds": "zero"}, "profiles.p.seeds must be distinct integers >= 0.* seeds='zero'"),
        ({"seeds": [True, 2]}, r"profiles.p.seeds must be .*Received: seeds=\[True, 2\]"),
        ({"seeds": [-1]}, r"profiles.p.seeds must be .*Received: seeds=\[-1\]"),
        ({"seeds": None}, "profiles.p.seeds must be .*Received: seeds=None"),
        ({"jobs": "2", "launcher": "joblib"}, "jobs must be an integer >= 1. Received: jobs='2'"),
        ({"jobs": 2.0, "launcher": "joblib"}, "jobs must be an integer >= 1. Received: jobs=2.0"),
        ({"processes": 1.5}, "processes must be an integer >= 1. Received: processes=1.5"),
        ({"max_members": 8.0}, "max_members must be an integer >= 1. Received: max_members=8.0"),
        ({"datasets": "count"}, "datasets must be a list of names. Received: datasets='count'"),
        ({"approaches": "regression"}, "approaches must be a list of names"),
        ({"overrides": "trainer.epochs=2"}, "overrides must be a list of overrides .*'trainer"),
        ({"overrides": [3]}, r"overrides must be a list of overrides .*Received: overrides=\[3\]"),
        ({"dataset_overrides": {"count": "n_train=9"}}, "dataset_overrides.count must be a list"),
        ({"dataset_overrides": ["n_train=9"]}, "dataset_overrides must map datasets"),
        ({"activations": {"sigmoid_round": [True]}}, r"must be a non-empty list .*\[True\]"),
        ({"activations": {"sigmoid_round": ["ten"]}}, r"must be a non-empty list .*\['ten'\]"),
        ({"activations": ["sigmoid_round"]}, "activations must map activations"),
        ({"learning_rates": [True]}, r"learning_rates must be .*Received: learning_rates=\[True\]"),
        ({"learning_rates": 0.01}, "learning_rates must be .*Received: learning_rates=0.01"),
        ({"launcher": ["basic"]}, r"launcher must be one of .*Received: launcher=\['basic'\]"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_key_and_value(raw, message):
    with pytest.raises(ConfigError, match=message):
        _profile(**raw)


def test_values_of_the_right_type_are_kept_as_given():
    profile = _profile(
        seeds=[3, 0],
        tracking=False,
        processes=2,
        learning_rates=[0.01, "3e-3"],  # PyYAML reads 3e-3 (no decimal point) as a string
        activations={"sigmoid_round": [1, 2.5]},
    )
    assert profile.seeds == (3, 0) and profile.tracking is False and profile.processes == 2
    assert profile.learning_rates == (0.01, 0.003)
    assert profile.activations == {"sigmoid_round": (1.0, 2.5)}


def test_a_profile_that_is_not_a_mapping_is_refused():
    with pytest.raises(ConfigError, match="profiles.p must be a mapping of keys. Received: 5"):
        profiles.parse_profile("p", 5, known_datasets=None)


@pytest.mark.parametrize(
    "entry, line",
    [
        (
            "tracking: 'no'",
            "config error: profiles.p.tracking must be true or false. Received: tracking='no'",
        ),
        (
            "seeds: zero",
            "config error: profiles.p.seeds must be distinct integers >= 0, at least "
            "one, in a list. Received: seeds='zero'",
        ),
    ],
)
def test_the_sweep_stops_on_a_mistyped_profile_in_one_line(tmp_path, capsys, entry, line):
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets: [count]\n")
    raw = {"datasets": ["count"], "seeds": [0], **yaml.safe_load(entry)}
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"p": raw}))
    assert cli.main(["--params", str(tmp_path / "params.yaml"), "--dry-run"]) == 2
    assert capsys.readouterr().err.strip() == line
