"""The approach catalogue: every approach declared once, with a config file and a builder."""

import numpy as np
import pytest

from roundlab import approaches, paths


def test_every_approach_has_a_config_file_and_every_file_an_approach():
    files = {p.stem for p in (paths.CONF_DIR / "approach").glob("*.yaml")}
    assert files == set(approaches.names())


# Output units on training labels 2, 3, 6 (K = 5 labels in the range 2..6).
UNITS = {"classification": 5, "ordinal": 4}
NETWORKS = [n for n in approaches.names() if not approaches.get(n).is_reference]


@pytest.mark.parametrize("name", NETWORKS)
def test_each_approach_builds_the_head_its_config_names(compose, name):
    approach = approaches.build(compose(f"approach={name}"), np.array([2, 3, 6]))
    assert approach.name == name
    assert approach.units == UNITS.get(name, 1)
    assert (approach.activation is not None) is approaches.get(name).uses_activation


def test_a_reference_has_no_network_to_build(compose):
    with pytest.raises(ValueError, match="Received: approach.name='glm_poisson'"):
        approaches.build(compose("approach=glm_poisson"), np.array([2, 3, 6]))


def test_the_heads_over_the_training_range_are_the_ones_confined_to_it():
    confined = ["classification", "ordinal", "ordered_logit"]
    assert [n for n in approaches.names() if approaches.get(n).in_range_only] == confined
    assert approaches.in_range_only() == (*confined, "lightgbm · multiclass")
    assert approaches.confined("lightgbm", "multiclass")
    assert not approaches.confined("lightgbm", "poisson") and approaches.confined("ordinal", "corn")


def test_an_unknown_approach_names_the_known_ones():
    with pytest.raises(
        ValueError, match=r"approach.name must be one of .*Received: approach.name='x'"
    ):
        approaches.get("x")


def test_readme_holds_the_generated_approach_table():
    readme = (paths.CONF_DIR.parents[2] / "README.md").read_text()
    assert approaches.readme_table() in readme


def test_every_approach_config_names_its_catalogue_entry():
    for name in approaches.names():
        text = (paths.CONF_DIR / "approach" / f"{name}.yaml").read_text()
        schema = name if name in ("classification", "ordinal", "lightgbm") else "approach"
        assert f"\nname: {name}\n" in text and f"/schema/approach/{schema}@_here_" in text
