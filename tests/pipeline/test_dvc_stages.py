"""dvc.yaml's sweep and report stages list what they read, so DVC reruns exactly what changed."""

import ast
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def _module_file(name: str) -> Path | None:
    base = SRC / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path) -> set[str]:
    """roundlab modules ``path`` imports anywhere (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("roundlab")}
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("roundlab")
        ):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def _closure(entry: str) -> set[Path]:
    """Every source file of roundlab reachable from module ``entry`` by imports."""
    seen: set[Path] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        # importing a.b.c runs a/__init__.py and a/b/__init__.py too
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            path = _module_file(".".join(parts[:i]))
            if path is not None and path not in seen:
                seen.add(path)
                todo.extend(_imports(path))
    return seen


def _stage(name: str) -> dict:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"][name]


def _covered(path: Path, deps: list[str]) -> bool:
    rel = path.relative_to(ROOT)
    return any(rel == Path(d) or Path(d) in rel.parents for d in deps)


@pytest.mark.parametrize(
    ("stage", "entries"),
    [("sweep", ["roundlab.sweep", "roundlab.train"]), ("report", ["roundlab.report.__main__"])],
)
def test_stage_depends_on_every_module_its_command_imports(stage, entries):
    deps = _stage(stage)["deps"]
    files = set().union(*(_closure(e) for e in entries))
    assert files, "the import walk found nothing"
    missing = sorted(str(p.relative_to(ROOT)) for p in files if not _covered(p, deps))
    assert not missing, f"dvc.yaml stage {stage} misses deps {missing}"


def test_report_stage_does_not_depend_on_training_code():
    # a change to how runs train must rerun the sweep, and the report only through results/
    deps = _stage("report")["deps"]
    assert "results" in deps
    assert not any(d.startswith(("src/roundlab/train", "conf", "data")) for d in deps)


def test_sweep_tracks_only_the_active_profile():
    assert _stage("sweep")["params"] == ["profile", {"profiles.yaml": ["${profile}"]}]


def test_params_yaml_holds_only_the_profile_name_and_the_generated_datasets():
    # `dvc exp show` prints every key of params.yaml as a column: the profiles live apart
    assert set(yaml.safe_load((ROOT / "params.yaml").read_text())) == {"profile", "datasets"}


def test_generate_stages_track_their_config_as_a_file_not_as_params():
    generate = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["generate"]["do"]
    assert "params" not in generate
    assert "conf/dataset/${item}.yaml" in generate["deps"]


def test_sweep_depends_on_the_data_of_the_profiles_datasets_and_no_other():
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    profiles = yaml.safe_load((ROOT / "profiles.yaml").read_text())
    trained = {d for p in profiles.values() for d in p["datasets"]}
    data_deps = {d for d in _stage("sweep")["deps"] if d.split("/")[0] == "data"}
    assert data_deps == {f"data/{d}" for d in trained}
    assert trained <= set(params["datasets"])  # each has its generate stage


def test_dvc_keeps_finished_results_for_a_resumed_sweep():
    assert _stage("sweep")["outs"] == [{"results": {"persist": True}}]
