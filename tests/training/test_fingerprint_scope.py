"""Which edits change which runs' fingerprints: the code part covers the files a run's result
depends on (roundlab.run.code_scope), so editing tracking, serving, the sweep's progress or the
report retrains nothing, and editing an activation retrains only the runs that use it. Edits
are made to a copy of the package tree the hash reads."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys

import pytest

from roundlab import activations
from roundlab.run import code_scope, fingerprint
from roundlab.run.job import resolve

# One run per way it can depend on an activation module (or on none).
RUNS = {
    "sigmoid_round": ("approach=rounding", "activation=sigmoid_round"),
    "sine_round": ("approach=rounding", "activation=sine_round"),
    "comb_round": ("approach=rounding", "activation=comb_round"),
    "classification": ("approach=classification",),
    "regression, hidden sigmoid_round": (
        "approach=regression",
        "model.hidden_activation=sigmoid_round",
    ),
    "glm_poisson": ("approach=glm_poisson",),
}
NO_RUN = set()
EVERY_RUN = set(RUNS)


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A copy of the package tree that the code hash reads, with its caches emptied before and
    after (the cache outlives a monkeypatched PACKAGE_DIR)."""
    copy = tmp_path / "roundlab"
    shutil.copytree(fingerprint.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", copy)
    fingerprint.code_hash.cache_clear()
    yield copy
    fingerprint.code_hash.cache_clear()


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    """The resolved config of each of :data:`RUNS` (composed once: the edits leave them as
    they are)."""
    from roundlab.run import config

    results_dir = tmp_path_factory.mktemp("scope") / "results"
    return {
        run: resolve(config.compose([f"results_dir={results_dir}", *args]))
        for run, args in RUNS.items()
    }


def _fingerprints(configs) -> dict[str, str]:
    fingerprint.code_hash.cache_clear()  # a process that starts after the edit
    return {run: fingerprint.fingerprint(cfg) for run, cfg in configs.items()}


@pytest.mark.parametrize(
    ("edited", "retrained"),
    [
        ("tracking/tracker.py", NO_RUN),
        ("tracking/params.py", NO_RUN),
        ("serving/saved_models.py", NO_RUN),
        ("sweep/progress.py", NO_RUN),
        ("sweep/launcher.py", NO_RUN),
        ("report/headline.py", NO_RUN),
        ("study/cli.py", NO_RUN),
        ("engine/epoch_log.py", NO_RUN),
        ("run/config.py", NO_RUN),  # it makes the config, which is hashed itself
        ("activations/sigmoid.py", {"sigmoid_round", "regression, hidden sigmoid_round"}),
        ("activations/straight_through.py", {"comb_round"}),  # comb_round's backward pass
        ("approaches/classification.py", {"classification"}),
        ("engine/stacked.py", EVERY_RUN),
        ("data/synthetic.py", EVERY_RUN),
        ("data/__init__.py", EVERY_RUN),
        ("sweep/vectorized.py", EVERY_RUN),
        ("activations/catalogue.py", EVERY_RUN),
        ("run/job.py", EVERY_RUN),
    ],
)
def test_an_edit_changes_the_fingerprints_of_exactly_the_runs_whose_code_it_touches(
    package, configs, edited, retrained
):
    before = _fingerprints(configs)
    assert len(set(before.values())) == len(RUNS)
    with (package / edited).open("a") as handle:
        handle.write("# edited\n")
    after = _fingerprints(configs)
    assert {run for run in RUNS if after[run] != before[run]} == retrained


def test_every_catalogued_activation_is_found_in_the_module_defining_it():
    found = code_scope.activation_modules(fingerprint.PACKAGE_DIR)
    assert set(found) == set(activations.names())
    for name, module in found.items():
        assert getattr(importlib.import_module(module), name) is activations.spec(name).function


def test_the_files_every_run_depends_on_are_the_training_side_only():
    files = set(code_scope.code_files(fingerprint.PACKAGE_DIR, None, ()))
    for kept in ("engine/stacked.py", "data/build.py", "run/job.py", "sweep/grouping.py"):
        assert kept in files
    assert "activations/_ops.py" in files  # numpy_bridge, which every run imports, uses it
    top = {f.split("/")[0] for f in files}
    assert not top & {"tracking", "serving", "report", "study"}
    assert "run/config.py" not in files
    assert {f for f in files if f.startswith("sweep/")} == {
        "sweep/grouping.py",
        "sweep/vectorized.py",
    }
    defining = {
        m.replace(".", "/").removeprefix("roundlab/") + ".py"
        for m in code_scope.activation_modules(fingerprint.PACKAGE_DIR).values()
    }
    assert not files & defining


def test_a_reference_run_depends_on_no_approach_or_activation_module(compose):
    cfg = resolve(compose("approach=glm_poisson", "model.hidden_activation=sigmoid_round"))
    assert fingerprint.used_activations(cfg) == ()
    rounding = resolve(compose("approach=rounding", "activation=sine_round"))
    assert fingerprint.used_activations(rounding) == ("sine_round",)


def test_the_fingerprint_is_computed_without_tensorflow(compose):
    """The sweep decides what to reuse before any process imports TensorFlow."""
    cfg = resolve(compose("approach=rounding", "activation=sigmoid_round"))
    tree = json.dumps(fingerprint.OmegaConf.to_container(cfg))
    script = (
        "import json, sys\n"
        "from omegaconf import OmegaConf\n"
        "from roundlab.run.fingerprint import fingerprint\n"
        "print(fingerprint(OmegaConf.create(json.loads(sys.stdin.read()))))\n"
        "print(sorted({'tensorflow', 'keras'} & set(sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], input=tree, capture_output=True, text=True, check=True
    )
    assert proc.stdout.split("\n")[:2] == [fingerprint.fingerprint(cfg), "[]"]
