"""The catalogue is the one source: configs, README table, exports and defaults derive from it."""

from __future__ import annotations

import shutil

import pytest
from omegaconf import OmegaConf

from roundlab import activations
from roundlab.activations import catalogue, generated_files
from roundlab.activations.__main__ import main

# The values training has always used (conf/activation before it was generated).
TRAINING_DEFAULTS = {"steepness": 10.0, "width": 0.5, "alpha": 4.0, "sigma": 0.25}


def test_defaults_are_the_training_values_everywhere():
    for name in activations.names():
        spec = activations.spec(name)
        if spec.param:
            assert spec.default == TRAINING_DEFAULTS[spec.param]
            assert activations.get(name).params == {spec.param: TRAINING_DEFAULTS[spec.param]}
            config = OmegaConf.load(generated_files.CONFIG_DIR / f"{name}.yaml")
            assert config[spec.param] == TRAINING_DEFAULTS[spec.param]


def test_config_yaml_has_the_shape_hydra_composes():
    expected = (
        "# floor(x) + clipped_sin(frac(x), width), the rounding Q&A's approx_round_sin; "
        "width in (0, 1].\n"
        "defaults:\n"
        "  - /schema/activation/sine_round@_here_\n"
        "  - _self_\n"
        "\n"
        "name: sine_round\n"
        "width: 0.5\n"
    )
    assert catalogue.config_yaml("sine_round") == expected
    assert catalogue.config_yaml("ste_round").endswith("  - _self_\n\nname: ste_round\n")


@pytest.mark.parametrize("name", activations.names())
def test_config_file_is_what_the_catalogue_generates(name):
    path = generated_files.CONFIG_DIR / f"{name}.yaml"
    assert path.read_text() == catalogue.config_yaml(name)


def test_every_config_file_has_an_entry_and_every_entry_a_file():
    files = {path.stem for path in generated_files.CONFIG_DIR.glob("*.yaml")}
    assert files == set(activations.names())


def test_readme_holds_the_generated_table_once():
    assert generated_files.README.read_text().count(catalogue.readme_table()) == 1


def test_readme_table_has_a_row_per_activation_and_cites_every_source():
    table = catalogue.readme_table()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == activations.names()
    assert "| `sine_round` | floor(x) + clipped_sin(frac(x), w) |" in table
    assert "| `width`: in (0, 1] | 0.5 | rounding Q&A, `approx_round_sin` |" in table
    for source in (catalogue.ROUNDING_QA, catalogue.CUSTOM_ACTIVATION_QA):
        assert f'- {source.cite}: "{source.title}"' in table
    assert "https://arxiv.org/abs/2006.09952" in table
    assert "https://arxiv.org/abs/1308.3432" in table


@pytest.mark.parametrize("name", [n for n in activations.names() if activations.spec(n).source])
def test_function_docstring_cites_its_source(name):
    spec = activations.spec(name)
    doc = " ".join(spec.function.__doc__.split())
    assert (spec.source.link or spec.source.cite) in doc


def test_package_exports_every_catalogued_function_under_its_name():
    from roundlab.activations import comb_round, spiky

    assert comb_round is activations.spec("comb_round").function
    assert spiky is activations.spec("spiky").function
    for name in activations.names():
        assert getattr(activations, name) is activations.spec(name).function
        assert name in activations.__all__


def test_layer_routes_exactly_the_catalogues_parameter_names():
    assert set(TRAINING_DEFAULTS) == catalogue.PARAMETER_NAMES


@pytest.fixture
def checkout(tmp_path):
    """A copy of the generated files: conf/activation and a README around the table."""
    config_dir = tmp_path / "activation"
    shutil.copytree(generated_files.CONFIG_DIR, config_dir)
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nbefore\n\n{catalogue.readme_table()}\nafter\n")
    return config_dir, readme


def test_stale_files_names_every_differing_missing_and_orphan_file(checkout):
    config_dir, readme = checkout
    assert generated_files.stale_files(config_dir, readme) == []
    (config_dir / "sine_round.yaml").write_text(catalogue.config_yaml("sine_round") + "x: 1\n")
    (config_dir / "soft_round.yaml").unlink()
    (config_dir / "old_round.yaml").write_text("name: old_round\n")
    readme.write_text(readme.read_text().replace("| 0.25 |", "| 0.1 |"))
    assert sorted(generated_files.stale_files(config_dir, readme)) == sorted(
        [config_dir / "sine_round.yaml", config_dir / "soft_round.yaml", readme]
        + [config_dir / "old_round.yaml"]
    )


def test_write_files_regenerates_and_leaves_the_rest_of_the_readme_alone(checkout):
    config_dir, readme = checkout
    (config_dir / "comb_round.yaml").write_text("name: comb_round\nsigma: 0.1\n")
    (config_dir / "old_round.yaml").write_text("name: old_round\n")
    readme.write_text(readme.read_text().replace("| 0.25 |", "| 0.1 |"))
    touched = generated_files.write_files(config_dir, readme)
    assert set(touched) == {config_dir / "comb_round.yaml", config_dir / "old_round.yaml", readme}
    assert generated_files.stale_files(config_dir, readme) == []
    assert not (config_dir / "old_round.yaml").exists()
    assert readme.read_text() == f"# Title\n\nbefore\n\n{catalogue.readme_table()}\nafter\n"


def test_readme_without_the_table_markers_is_refused():
    with pytest.raises(ValueError, match="README.md must hold the line"):
        generated_files.readme_with_table("# Title\n\nno table\n")


def test_command_line_check_passes_on_this_checkout():
    assert main(["--check"]) == 0


def test_checking_the_generated_files_needs_the_checkouts_readme(tmp_path):
    # an installed wheel has the configs but no README.md: one clear error, not a traceback
    with pytest.raises(FileNotFoundError, match="source checkout of roundlab"):
        generated_files.stale_files(generated_files.CONFIG_DIR, tmp_path / "README.md")
