"""dvc.yaml's sweep and report stages list what they read, so DVC reruns exactly what changed."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from imports import ROOT, all_modules, closure, graph

CONF = ROOT / "src" / "roundlab" / "conf"


def _hydra_targets() -> list[str]:
    """The modules conf/ names in ``_target_`` (callbacks, launchers): Hydra imports them."""
    targets = set()
    for path in CONF.rglob("*.yaml"):
        for line in path.read_text().splitlines():
            key, _, value = line.strip().partition(":")
            if key == "_target_" and value.strip().startswith(("roundlab", "hydra_plugins")):
                targets.add(value.strip().rpartition(".")[0])
    return sorted(targets)


# What each stage's processes import: the stage command's module, and for the sweep the
# multiruns' entry point, every Hydra plugin roundlab ships (Hydra imports them all when it
# discovers plugins) and the targets conf/ names.
ENTRIES = {
    "sweep": lambda: [
        "roundlab.sweep.__main__",
        "roundlab.train",
        *[m for m in all_modules() if m.startswith("hydra_plugins")],
        *_hydra_targets(),
    ],
    "report": lambda: ["roundlab.report.__main__"],
}


def _file(module: str) -> Path:
    return all_modules()[module].relative_to(ROOT)


def _stage(name: str) -> dict:
    """A stage of dvc.yaml; for a foreach stage, what each instance runs (its ``do``)."""
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"][name]
    return stage.get("do", stage)


def _covered(path: Path, deps: list[str]) -> bool:
    return any(path == Path(d) or Path(d) in path.parents for d in deps)


@pytest.mark.parametrize("stage", ["sweep", "report"])
def test_stage_depends_on_every_module_its_processes_import(stage):
    deps = _stage(stage)["deps"]
    files = {_file(m) for m in closure(ENTRIES[stage]())}
    assert len(files) > 20, "the import walk found almost nothing"
    missing = sorted(str(p) for p in files if not _covered(p, deps))
    assert not missing, f"dvc.yaml stage {stage} misses deps {missing}"


def test_generate_depends_on_every_module_the_data_code_imports():
    deps = _stage("generate")["deps"]
    imported = {
        target
        for module, targets in graph().items()
        if module.startswith("roundlab.data")
        for target in targets
    }
    files = {_file(m) for m in imported}
    assert Path("src/roundlab/metrics.py") in files  # the oracle's numbers in meta.json
    missing = sorted(str(p) for p in files if not _covered(p, deps))
    assert not missing, f"dvc.yaml stage generate misses deps {missing}"


def test_the_sweep_imports_its_launcher_and_callback():
    modules = closure(ENTRIES["sweep"]())
    assert "roundlab.sweep.launcher" in modules and "roundlab.sweep.callback" in modules


def test_the_sweep_does_not_depend_on_the_report():
    deps = _stage("sweep")["deps"]
    report_files = [_file(m) for m in all_modules() if m.startswith("roundlab.report")]
    assert report_files and not [p for p in report_files if _covered(p, deps)]
    assert not [m for m in closure(ENTRIES["sweep"]()) if m.startswith("roundlab.report")]


# What the report reads of the sweep: its planning code, to recompute the plan (and its rate
# extensions) of a results directory whose manifest is gone (roundlab.report.planned), and the
# rule that picks a learning rate, shared with the sweep (roundlab.report.tuning).
PLANNING = {
    "src/roundlab/sweep/__init__.py",
    "src/roundlab/data/__init__.py",
    "src/roundlab/data/entries.py",
    "src/roundlab/sweep/extend.py",
    "src/roundlab/sweep/manifest.py",
    "src/roundlab/sweep/plan.py",
    "src/roundlab/sweep/rates.py",
    "src/roundlab/sweep/result_reads.py",
    "src/roundlab/sweep/profile.py",
    "src/roundlab/sweep/profile_fields.py",
}


def test_report_stage_does_not_depend_on_training_code():
    # a change to how runs train must rerun the sweep, and the report only through results/
    deps = _stage("report")["deps"]
    assert "results" in deps
    training = ["src/roundlab/run", "src/roundlab/sweep", "src/roundlab/engine", "data"]
    training += ["src/roundlab/conf", "src/roundlab/data", "src/roundlab/train.py"]
    assert {d for d in deps if any(_covered(Path(d), [t]) for t in training)} == PLANNING


def test_the_report_imports_only_the_planning_side_of_the_sweep():
    modules = closure(ENTRIES["report"]())
    prefixes = ("roundlab.sweep", "roundlab.run.", "roundlab.data")
    sweep = {str(_file(m)) for m in modules if m.startswith(prefixes)}
    assert sweep == PLANNING


def test_sweep_tracks_only_the_active_profile_and_its_own_dataset_entry():
    assert _stage("sweep")["params"] == [
        "profile",
        "datasets.${key}",
        {"profiles.yaml": ["${profile}"]},
    ]


def test_params_yaml_holds_only_the_profile_name_and_the_datasets():
    # `dvc exp show` prints every key of params.yaml as a column: the profiles live apart
    assert set(yaml.safe_load((ROOT / "params.yaml").read_text())) == {"profile", "datasets"}


def test_every_dataset_entry_has_its_own_generate_and_sweep_stage():
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    assert stages["generate"]["foreach"] == stages["sweep"]["foreach"] == "${datasets}"
    assert _stage("generate")["params"] == ["datasets.${key}"]
    assert _stage("generate")["cmd"] == "python -m roundlab.data ${key}"
    assert _stage("sweep")["cmd"] == "python -m roundlab.sweep --dataset ${key}"


def test_a_sweep_depends_on_its_own_dataset_and_no_other():
    data_deps = [d for d in _stage("sweep")["deps"] if d.split("/")[0] == "data"]
    assert data_deps == ["data/${key}"]


def test_dvc_keeps_finished_results_for_a_resumed_sweep():
    assert _stage("sweep")["outs"] == [{"results/${key}": {"persist": True}}]


def _dvc(workdir: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "dvc", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def committed_pipeline(tmp_path: Path) -> Path:
    """A copy of the pipeline whose sweep and report stages DVC holds as up to date, their
    data and outputs stand-ins (status compares the deps' hashes, not what the stages wrote)."""
    for name in ("dvc.yaml", "params.yaml", "profiles.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=ignore)
    (tmp_path / "bench").mkdir()
    shutil.copy(ROOT / "bench" / "numpy_cost.json", tmp_path / "bench")
    for name in yaml.safe_load((ROOT / "params.yaml").read_text())["datasets"]:
        (tmp_path / "data" / name).mkdir(parents=True)
        (tmp_path / "results" / name).mkdir(parents=True)
    for out in ("reports/figures", "reports/plots", "reports/metrics"):
        (tmp_path / out).mkdir(parents=True)
    for out in ("reports/report.md", "reports/report.html", "reports/headline.json"):
        (tmp_path / out).write_text("{}\n")
    _dvc(tmp_path, "init", "--no-scm", "-q")
    _dvc(tmp_path, "commit", "-f", "-q", "sweep", "report")
    assert "up to date" in _dvc(tmp_path, "status", "sweep", "report")
    return tmp_path


def _edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# an edit\n")


def test_editing_the_launcher_reruns_the_sweep_and_not_the_report(committed_pipeline):
    _edit(committed_pipeline / "src/roundlab/sweep/launcher.py")
    assert "src/roundlab/sweep" in _dvc(committed_pipeline, "status", "sweep")
    assert "up to date" in _dvc(committed_pipeline, "status", "report")


def test_editing_the_launcher_plugin_reruns_the_sweep(committed_pipeline):
    _edit(committed_pipeline / "src/hydra_plugins/roundlab_vectorized_launcher/config.py")
    assert "src/hydra_plugins" in _dvc(committed_pipeline, "status", "sweep")


def test_editing_a_report_module_reruns_the_report_and_not_the_sweep(committed_pipeline):
    _edit(committed_pipeline / "src/roundlab/report/stats.py")
    assert "up to date" in _dvc(committed_pipeline, "status", "sweep")
    assert "src/roundlab/report" in _dvc(committed_pipeline, "status", "report")


def test_a_new_csv_entry_changes_only_its_own_stages_and_the_report(committed_pipeline):
    """Adding a dataset is one entry of params.yaml and its file under inputs/: no config file,
    no dvc.yaml edit. Its generate and sweep stages are new; every other sweep stays up to date
    (every generate instance depends on all of inputs/: each reruns and writes the same data)."""
    (committed_pipeline / "inputs").mkdir(exist_ok=True)
    (committed_pipeline / "inputs" / "fair.csv").write_text("x,y\n0.5,1\n1.5,2\n")
    params = committed_pipeline / "params.yaml"
    params.write_text(params.read_text() + "  fair: {path: inputs/fair.csv, label: y}\n")
    status = _dvc(committed_pipeline, "status", "sweep", "report")
    changed = {line.strip().rstrip(":") for line in status.splitlines() if line[:1].isalnum()}
    assert changed == {"sweep@fair", "report"}, status
