"""Compositions kept between sweeps (:mod:`roundlab.sweep.compose_cache`): a base read from the
cache is the base Hydra's composition gives, and anything the composition depends on that
changed, or an entry that is not what was written, is a miss."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from roundlab import paths
from roundlab.run.config import compose
from roundlab.sweep import compose_cache, decide, resamples
from roundlab.sweep.compose_cache import ComposeCache
from roundlab.sweep.jobs import member_values
from roundlab.sweep.plan import plan
from roundlab.sweep.profile import load_profile

SMALL = ["n_train=300", "n_val=100", "n_test=100", "n_extrapolate=100"]


def _profile(root: Path):
    profile = {
        "seeds": [0, 1],
        "approaches": ["regression", "ordinal"],
        "activations": {"sigmoid_round": [5, 10], "hard_round": None},
        "learning_rates": [0.01, 0.003],
        "overrides": ["trainer.epochs=2", "model.hidden_sizes=[8]"],
        "dataset_overrides": {"count": SMALL},
        "tracking": False,
    }
    (root / "params.yaml").write_text(yaml.safe_dump({"datasets": {"count": {}}, "profile": "p"}))
    (root / "profiles.yaml").write_text(yaml.safe_dump({"p": profile}))
    (root / "dvc.yaml").write_text("stages: {}\n")
    return load_profile(root / "params.yaml")


def _jobs(profile, results_dir: Path):
    common = decide.common_overrides(profile, results_dir)
    for m in plan(profile, resamples_of=resamples.from_configs):
        for job in decide.expand(m.overrides):
            full = [*job, *common]
            yield full, member_values(OverridesParser.create().parse_overrides(full))


def test_every_job_has_the_same_run_and_fingerprint_from_the_cache_as_from_hydra(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    profile = _profile(tmp_path)
    jobs = list(_jobs(profile, tmp_path / "results"))
    cache_dir = tmp_path / "multirun" / compose_cache.DIRECTORY
    fresh: decide.Bases = {}
    cold: decide.Bases = {}
    expected = []
    for full, (signature, values) in jobs:
        base = decide._base(fresh, signature, full, None)
        expected.append((base.key(values), base.fingerprint(values), base.tree))
        stored = decide._base(cold, signature, full, ComposeCache(cache_dir))
        assert (stored.key(values), stored.fingerprint(values)) == expected[-1][:2]
    entries = list(cache_dir.glob("*/*.yaml"))
    # regression, ordinal corn and coral, hard_round, sigmoid_round (both steepness values)
    assert len(entries) == len(fresh) == 5

    def no_hydra(overrides):
        raise AssertionError(f"composed again: {overrides}")

    monkeypatch.setattr(decide, "compose", no_hydra)
    warm: decide.Bases = {}
    cache = ComposeCache(cache_dir)
    for (full, (signature, values)), want in zip(jobs, expected, strict=True):
        base = decide._base(warm, signature, full, cache)
        assert (base.key(values), base.fingerprint(values), base.tree) == want
    assert len(jobs) == (1 + 2 + 2 + 1) * 2 * 2  # the 6 variants x 2 rates x 2 seeds


def test_an_edited_config_file_or_another_override_list_misses(tmp_path):
    conf = tmp_path / "conf"
    shutil.copytree(paths.CONF_DIR, conf, ignore=shutil.ignore_patterns("__pycache__"))
    overrides = ["dataset=count", "approach=regression", "trainer.epochs=3"]
    raw = compose(overrides, config_dir=conf)
    cache = ComposeCache(tmp_path / "cache", conf_dir=conf)
    cache.store(overrides, raw, cache.current())
    hit = ComposeCache(tmp_path / "cache", conf_dir=conf).lookup(overrides)
    assert hit is not None and OmegaConf.to_yaml(hit) == OmegaConf.to_yaml(raw)
    assert hit.trainer.epochs == 3 and OmegaConf.is_struct(hit)
    assert cache.lookup([*overrides[:2], "trainer.epochs=4"]) is None
    assert cache.lookup(list(reversed(overrides))) is None

    trainer = conf / "trainer" / "default.yaml"
    trainer.write_text(trainer.read_text().replace("batch_size: 64", "batch_size: 32"))
    edited = ComposeCache(tmp_path / "cache", conf_dir=conf)
    assert edited.context != cache.context
    assert edited.lookup(overrides) is None
    # The new context's first entry removes the old one's.
    edited.store(overrides, compose(overrides, config_dir=conf), edited.current())
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [edited.context]


def test_a_composition_made_while_a_config_file_was_edited_is_not_kept(tmp_path):
    """The sweep's first lookup fixes its context; a file edited later, composed, and reverted
    before the next sweep must not leave the edited composition under the reverted context."""
    conf = tmp_path / "conf"
    shutil.copytree(paths.CONF_DIR, conf, ignore=shutil.ignore_patterns("__pycache__"))
    overrides = ["dataset=count", "approach=regression"]
    cache = ComposeCache(tmp_path / "cache", conf_dir=conf)
    assert cache.lookup(overrides) is None  # the sweep's context, from the files as they are
    trainer = conf / "trainer" / "default.yaml"
    original = trainer.read_text()
    trainer.write_text(original.replace("epochs: 50", "epochs: 7"))
    before = cache.current()
    cache.store(overrides, compose(overrides, config_dir=conf), before)
    trainer.write_text(original)
    assert ComposeCache(tmp_path / "cache", conf_dir=conf).lookup(overrides) is None
    # edited after the composition started: the same
    cache.store(overrides, compose(overrides, config_dir=conf), before)
    assert ComposeCache(tmp_path / "cache", conf_dir=conf).lookup(overrides) is None
    cache.store(overrides, compose(overrides, config_dir=conf), cache.current())
    assert ComposeCache(tmp_path / "cache", conf_dir=conf).lookup(overrides).trainer.epochs == 50


def test_a_corrupt_entry_is_a_miss_and_hydra_settings_are_never_cached(tmp_path):
    overrides = ["dataset=count"]
    raw = compose(overrides)
    cache = ComposeCache(tmp_path)
    cache.store(overrides, raw, cache.current())
    (entry,) = tmp_path.glob("*/*.yaml")
    text = entry.read_text()
    entry.write_text(text.replace("epochs: 50", "epochs: 51"))  # a valid YAML, not what was written
    assert cache.lookup(overrides) is None
    entry.write_bytes(b"\xff\xfe\x00garbage")
    assert cache.lookup(overrides) is None
    entry.write_text(text)
    assert cache.lookup(overrides).trainer.epochs == 50

    searched = [*overrides, "hydra.searchpath=[file:///elsewhere]"]
    cache.store(searched, raw, cache.current())
    assert cache.lookup(searched) is None
    assert len(list(tmp_path.glob("*/*.yaml"))) == 1


@pytest.mark.parametrize("value", [2.5, True])
def test_a_member_value_its_type_cannot_hold_exactly_is_refused(value):
    with pytest.raises(ValueError, match="must be a int"):
        decide._exact(int, value)
