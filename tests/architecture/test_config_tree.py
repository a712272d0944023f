"""The Hydra config tree has one source, the package's ``roundlab/conf``: a wheel ships it, and
the checkout (the DVC pipeline, the tests) reads the same files, so no second copy can drift."""

from __future__ import annotations

from imports import ROOT, SRC
from roundlab import paths


def test_the_checkout_has_no_top_level_conf_tree():
    # a top-level conf/ beside the package's would be a copy that the wheel does not ship
    assert not (ROOT / "conf").exists()


def test_conf_dir_is_inside_the_package():
    assert paths.CONF_DIR == SRC / "roundlab" / "conf"
    assert paths.CONF_PACKAGE == "pkg://roundlab.conf"
    assert (paths.CONF_DIR / "__init__.py").is_file()  # Hydra's pkg:// needs a package


def test_every_config_group_of_the_root_config_is_in_the_package():
    groups = sorted(p.name for p in paths.CONF_DIR.iterdir() if p.is_dir() and p.name[0] != "_")
    assert groups == [
        "activation",
        "approach",
        "dataset",
        "experiment",
        "hydra",
        "model",
        "tracking",
        "trainer",
    ]
    # 40, plus hydra/launcher/vectorized_submitit_{local,slurm}.yaml
    assert len(list(paths.CONF_DIR.rglob("*.yaml"))) == 42
