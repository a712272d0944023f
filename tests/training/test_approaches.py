"""The approach catalogue: every approach declared once, with a config file and a builder."""

import numpy as np
import pytest

from roundlab import approaches, paths


def test_every_approach_has_a_config_file_and_every_file_an_approach():
    files = {p.stem for p in (paths.CONF_DIR / "approach").glob("*.yaml")}
    assert files == set(approaches.names())


@pytest.mark.parametrize("name", approaches.names())
def test_each_approach_builds_the_head_its_config_names(compose, name):
    approach = approaches.build(compose(f"approach={name}"), np.array([2, 3, 6]))
    assert approach.name == name
    assert approach.units == (5 if name == "classification" else 1)
    assert (approach.activation is not None) is approaches.get(name).uses_activation


def test_only_classification_is_confined_to_the_training_label_range():
    assert [n for n in approaches.names() if approaches.get(n).in_range_only] == ["classification"]


def test_an_unknown_approach_names_the_known_ones():
    with pytest.raises(
        ValueError, match=r"approach.name must be one of .*Received: approach.name='x'"
    ):
        approaches.get("x")


def test_readme_holds_the_generated_approach_table():
    readme = (paths.CONF_DIR.parent / "README.md").read_text()
    assert approaches.readme_table() in readme


def test_every_approach_config_names_its_catalogue_entry():
    for name in approaches.names():
        text = (paths.CONF_DIR / "approach" / f"{name}.yaml").read_text()
        schema = "classification" if name == "classification" else "approach"
        assert f"\nname: {name}\n" in text and f"/schema/approach/{schema}@_here_" in text
