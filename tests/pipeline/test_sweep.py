"""The sweep plan from profiles.yaml: what runs, where results land, what is refused."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roundlab import paths
from roundlab.sweep import children, cli, preview, runner
from roundlab.sweep import plan as planning
from roundlab.sweep import profile as profiles
from roundlab.sweep.resamples import from_configs

ROOT = Path(__file__).resolve().parents[2]
PARAMS = ROOT / "params.yaml"


def _profile(**raw):
    base = {"datasets": ["count"], "seeds": [0, 1, 2]}
    return profiles.parse_profile("p", {**base, **raw}, known_datasets=["count", "affine"])


def test_plan_covers_the_grid_with_one_multirun_per_family():
    profile = _profile(
        approaches=["classification", "regression"],
        activations={"hard_round": None, "ste_round": None, "sigmoid_round": [5, 20]},
    )
    multiruns = planning.plan(profile, resamples_of=from_configs)
    assert [m.family for m in multiruns] == ["approaches", "activations", "sigmoid_round"]
    assert multiruns[2].overrides == (
        "approach=rounding",
        "activation=sigmoid_round",
        "activation.steepness=5,20",
        "dataset=count",
        "trainer.learning_rate=0.001",
        "seed=0,1,2",
    )
    assert sum(len(m.runs) for m in multiruns) == 3 * (2 + 2 + 2)


def test_every_configuration_is_planned_at_every_learning_rate_of_the_grid():
    profile = _profile(
        approaches=["regression"],
        activations={"sine_round": [0.5]},
        seeds=[0],
        learning_rates=[0.0003, 0.003],
    )
    runs = [run for m in planning.plan(profile, resamples_of=from_configs) for run in m.runs]
    assert sorted((r.approach, r.learning_rate) for r in runs) == [
        ("regression", 0.0003),
        ("regression", 0.003),
        ("rounding", 0.0003),
        ("rounding", 0.003),
    ]
    assert all(
        "trainer.learning_rate=0.0003,0.003" in m.overrides
        for m in planning.plan(profile, resamples_of=from_configs)
    )


def test_an_approach_with_methods_is_planned_at_every_method():
    (m,) = planning.plan(
        _profile(approaches=["ordinal"], seeds=[0], learning_rates=[0.001, 0.01]),
        resamples_of=from_configs,
    )
    assert m.family == "ordinal"
    assert m.overrides[:2] == ("approach=ordinal", "approach.method=corn,coral")
    assert sorted((r.method, r.learning_rate) for r in m.runs) == [
        ("coral", 0.001),
        ("coral", 0.01),
        ("corn", 0.001),
        ("corn", 0.01),
    ]
    assert {r.variant for r in m.runs} == {"corn", "coral"}


def test_references_are_fitted_once_per_dataset_not_per_seed_and_rate():
    profile = _profile(
        datasets=["count", "affine"],
        approaches=["regression", "glm_poisson", "ordered_logit"],
        seeds=[3, 4, 5],
        learning_rates=[0.003, 0.01],
    )
    networks, references = planning.plan(profile, resamples_of=from_configs)
    assert len(networks.runs) == 2 * 3 * 2
    assert references.family == "references" and references.once
    assert sorted((r.dataset, r.approach, r.seed, r.learning_rate) for r in references.runs) == [
        ("affine", "glm_poisson", 3, 0.001),
        ("affine", "ordered_logit", 3, 0.001),
        ("count", "glm_poisson", 3, 0.001),
        ("count", "ordered_logit", 3, 0.001),
    ]
    assert "seed=3" in references.overrides
    assert "trainer.learning_rate=0.001" in references.overrides


def test_lightgbm_is_fitted_once_per_dataset_and_method():
    profile = _profile(
        datasets=["count", "affine"],
        approaches=["glm_poisson", "lightgbm"],
        seeds=[3, 4, 5],
        learning_rates=[0.003, 0.01],
    )
    trees, statsmodels = planning.plan(profile, resamples_of=from_configs)
    assert (trees.family, statsmodels.family) == ("lightgbm", "references")
    assert trees.once and trees.overrides[:2] == (
        "approach=lightgbm",
        "approach.method=multiclass,regression,poisson",
    )
    assert {"seed=3", "trainer.learning_rate=0.001"} <= set(trees.overrides)
    assert sorted((r.dataset, r.method, r.seed, r.learning_rate) for r in trees.runs) == [
        (d, m, 3, 0.001)
        for d in ("affine", "count")
        for m in ("multiclass", "poisson", "regression")
    ]
    assert [p.as_posix() for p in trees.result_files(Path("r"))][0] == (
        "r/count/lightgbm/multiclass/lr=0.001/seed=3.json"
    )
    assert [r.approach for r in statsmodels.runs] == ["glm_poisson", "glm_poisson"]


def test_planned_result_files_follow_the_result_layout():
    profile = _profile(approaches=["regression"], activations={"sine_round": [0.5, 1]}, seeds=[7])
    files = [
        p.as_posix()
        for m in planning.plan(profile, resamples_of=from_configs)
        for p in m.result_files(Path("r"))
    ]
    assert files == [
        "r/count/regression/default/lr=0.001/seed=7.json",
        "r/count/rounding/sine_round-width=0.5/lr=0.001/seed=7.json",
        "r/count/rounding/sine_round-width=1/lr=0.001/seed=7.json",
    ]


def test_datasets_with_their_own_overrides_get_their_own_multiruns():
    profile = profiles.parse_profile(
        "p",
        {
            "datasets": ["count", "affine"],
            "seeds": [0],
            "approaches": ["regression"],
            "dataset_overrides": {"count": ["n_train=6000"]},
        },
        known_datasets=["count", "affine"],
    )
    multiruns = planning.plan(profile, resamples_of=from_configs)
    assert [m.family for m in multiruns] == ["approaches-count", "approaches-affine"]
    assert "dataset.n_train=6000" in multiruns[0].overrides
    assert not any(o.startswith("dataset.n_train") for o in multiruns[1].overrides)


def test_a_dataset_with_resamples_is_planned_at_every_resample_in_its_own_multiruns():
    profile = profiles.parse_profile(
        "p",
        {
            "datasets": ["count", "ratings", "scores"],
            "seeds": [0, 1],
            "approaches": ["regression", "ordered_logit"],
        },
        known_datasets=["count", "ratings", "scores"],
    )
    resamples = {"count": 1, "ratings": 3, "scores": 3}
    multiruns = planning.plan(profile, resamples_of=lambda d, *_: resamples[d])
    assert [m.family for m in multiruns] == [
        "approaches-count",
        "references-count",
        "approaches-ratings-scores",
        "references-ratings-scores",
    ]
    plain, _, networks, references = multiruns
    assert not any(o.startswith("dataset.resample") for o in plain.overrides)
    assert {r.resample for r in plain.runs} == {None}
    assert "dataset.resample=0,1,2" in networks.overrides
    assert "dataset.resample=0,1,2" in references.overrides
    assert sorted((r.dataset, r.resample, r.seed) for r in networks.runs) == [
        (d, r, s) for d in ("ratings", "scores") for r in range(3) for s in (0, 1)
    ]
    # a reference is fitted once per resample: each has its own data
    assert sorted((r.dataset, r.resample) for r in references.runs) == [
        (d, r) for d in ("ratings", "scores") for r in range(3)
    ]
    files = {p.relative_to("r").as_posix() for p in networks.result_files(Path("r"))}
    assert "ratings/regression/default/lr=0.001/resample=2/seed=1.json" in files


def test_the_planner_reads_the_number_of_resamples_from_the_dataset_config_without_tensorflow(
    tmp_path,
):
    rows = "\n".join(f"{i},{i % 4}" for i in range(60))
    (tmp_path / "r.csv").write_text(f"x,y\n{rows}\n")
    code = f"""
import sys
from roundlab.sweep import plan as planning, profile as profiles
from roundlab.sweep.resamples import from_configs
profile = profiles.parse_profile(
    "p",
    {{
        "datasets": ["csv"],
        "seeds": [0],
        "approaches": ["regression"],
        "dataset_overrides": {{"csv": ["path={tmp_path / "r.csv"}", "label=y", "resamples=4"]}},
    }},
    known_datasets=["csv"],
)
(m,) = planning.plan(profile, resamples_of=from_configs)
print(sorted(r.resample for r in m.runs), [o for o in m.overrides if "resample" in o])
print("tensorflow" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "[0, 1, 2, 3] ['dataset.resamples=4', 'dataset.resample=0,1,2,3']",
        "False",
    ]


def test_command_names_the_profile_launcher_and_a_deterministic_sweep_dir():
    (m,) = planning.plan(_profile(approaches=["regression"]), resamples_of=from_configs)
    default = planning.command(m, _profile(), Path("/r"), Path("/mr"))
    assert "hydra.sweep.dir=/mr/approaches" in default and "results_dir=/r" in default
    assert [a for a in default if a.startswith("hydra/launcher")] == ["hydra/launcher=vectorized"]
    chunked = planning.command(m, _profile(max_members=4), Path("/r"), Path("/mr"))
    assert "hydra.launcher.max_members=4" in chunked
    parallel = planning.command(m, _profile(launcher="joblib", jobs=2), Path("/r"), Path("/mr"))
    assert "hydra/launcher=joblib" in parallel and "hydra.launcher.n_jobs=2" in parallel


def _dry_run(profile, tmp_path):
    lines = []
    for m in planning.plan(profile, resamples_of=from_configs):
        cmd = planning.command(m, profile, tmp_path / "results", tmp_path / "multirun")
        lines += preview.describe(m, profile, cmd)
    return lines


def test_dry_run_groups_the_jobs_as_the_launcher_will(tmp_path):
    profile = _profile(
        approaches=[], activations={"sigmoid_round": [1, 5], "sigmoid_round_np": [10]}
    )
    lines = _dry_run(profile, tmp_path)
    assert [line for line in lines if line.startswith("group of")] == [
        "group of 6: count/rounding/sigmoid_round steepness=[1.0, 5.0] learning_rate=[0.001] "
        "seeds=[0, 1, 2]"
    ]
    numpy_alone = [line for line in lines if "numpy-backed" in line]
    assert len(numpy_alone) == 3 and all(line.startswith("alone: job") for line in numpy_alone)


def test_dry_run_sees_a_profile_override_that_stops_stacking(tmp_path):
    profile = _profile(
        approaches=[], activations={"sigmoid_round": [1, 5]}, overrides=["model.dropout=0.1"]
    )
    lines = _dry_run(profile, tmp_path)
    assert not [line for line in lines if line.startswith("group of")]
    assert len([line for line in lines if "model.dropout=0.1" in line]) == 6


def test_parallel_jobs_split_the_cores_between_them(monkeypatch):
    monkeypatch.delenv("TF_NUM_INTRAOP_THREADS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert runner.environment(_profile(launcher="joblib", jobs=2))["TF_NUM_INTRAOP_THREADS"] == "2"
    assert "TF_NUM_INTRAOP_THREADS" not in runner.environment(_profile(jobs=1))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"datasets": []}, "datasets must list at least one dataset"),
        ({"datasets": ["mnist"]}, r"datasets must be among params.yaml `datasets`.*\['mnist'\]"),
        ({"seeds": [1, 1]}, "seeds must be distinct integers"),
        (
            {"learning_rates": [0.01, 0]},
            r"learning_rates must be .*Received: learning_rates=\[0.01, 0\]",
        ),
        ({"learning_rates": []}, "learning_rates must be a list of distinct values > 0"),
        (
            {"overrides": ["trainer.learning_rate=0.1"]},
            r"must not set the learning rate.*Received: \['trainer.learning_rate=0.1'\]",
        ),
        ({"approaches": ["rounding"]}, r"approaches must be among.*Received: \['rounding'\]"),
        ({"activations": {"sigmoid_round": []}}, "must be a non-empty list"),
        ({"jobs": 0}, "jobs must be an integer >= 1. Received: jobs=0"),
        ({"jobs": 2}, "above 1 only with launcher: joblib. Received: jobs=2, launcher=vectorized"),
        ({"launcher": "slurm"}, "launcher must be one of .*Received: launcher='slurm'"),
        ({"launcher": "basic", "max_members": 4}, "goes with launcher: vectorized"),
        ({"epochs": 3}, "takes only .*Received: epochs"),
        ({"dataset_overrides": {"afine": ["n_train=1"]}}, r"must name datasets of the profile"),
    ],
)
def test_bad_profiles_are_refused_naming_the_key_and_value(raw, message):
    with pytest.raises(ValueError, match=message):
        _profile(**raw)


def test_activation_parameters_must_match_the_activation():
    with pytest.raises(
        ValueError, match="sigmoid_round needs values of its parameter 'steepness'. Received: null"
    ):
        planning.plan(_profile(activations={"sigmoid_round": None}), resamples_of=from_configs)
    with pytest.raises(ValueError, match="ste_round takes no parameter"):
        planning.plan(_profile(activations={"ste_round": [1]}), resamples_of=from_configs)
    with pytest.raises(ValueError, match="activation must be one of .*Received: name='relu6'"):
        planning.plan(_profile(activations={"relu6": None}), resamples_of=from_configs)


def test_unknown_profile_name_lists_the_profiles():
    with pytest.raises(
        ValueError,
        match=r"profile must name an entry.*\['default', 'full', "
        r"'tiny'\]\)\. Received: profile='huge'",
    ):
        profiles.load_profile(PARAMS, "huge")


@pytest.mark.parametrize("name", ["default", "full", "tiny"])
def test_every_shipped_profile_parses_and_plans(name):
    assert planning.plan(profiles.load_profile(PARAMS, name), resamples_of=from_configs)


def test_default_and_full_profiles_follow_the_protocol():
    for name in ("default", "full"):
        profile = profiles.load_profile(PARAMS, name)
        assert len(profile.seeds) >= 5, name
        assert len(profile.learning_rates) >= 3, name  # a rate grid tuned on val
        assert [o for o in profile.overrides if o.startswith("trainer.epochs=")], name


def test_default_profile_can_answer_every_question():
    from roundlab import approaches
    from roundlab.data import registry
    from roundlab.data.statsmodels_sets import bundled_dataset

    profile = profiles.load_profile(PARAMS, "default")
    assert set(profile.approaches) == set(approaches.without_activation())  # question 1
    real = [d for d in profile.datasets if registry.get(d).make is bundled_dataset]
    assert real, profile.datasets  # the answers must hold on real data too
    full = yaml.safe_load((ROOT / "profiles.yaml").read_text())["full"]
    assert "datasets" not in full  # every dataset of params.yaml, the bundled ones once added
    assert set(full["dataset_overrides"]) <= set(registry.names())
    for knob in ("sigmoid_round", "sine_round", "soft_round", "comb_round"):  # question 2
        assert len(profile.activations.get(knob) or ()) >= 2, knob
    assert "hard_round" in profile.activations  # the negative control of the failed runs
    assert profile.datasets  # question 3: every default dataset has an extrapolation split
    params = yaml.safe_load(PARAMS.read_text())
    assert params["profile"] == "default"


def test_prepare_keeps_planned_results_and_removes_unplanned_ones_and_tmp_files(tmp_path):
    results = tmp_path / "results"
    multiruns = planning.plan(
        _profile(approaches=["regression"], seeds=[0]), resamples_of=from_configs
    )
    (planned,) = multiruns[0].result_files(results)
    unplanned = results / "count" / "regression" / "default" / "lr=0.001" / "seed=5.json"
    dropped = results / "count" / "rounding" / "sine_round-width=1" / "lr=0.001" / "seed=0.json"
    tmp = planned.with_name("seed=1.json.tmp")
    models = [planned.with_suffix(".keras"), unplanned.with_suffix(".keras")]
    for path in (planned, unplanned, dropped, tmp, *models):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    (results / paths.SWEEP_MANIFEST).write_text("profile: x\n")
    keep = results / "notes.txt"
    keep.write_text("mine")
    (tmp_path / "multirun" / "approaches").mkdir(parents=True)
    (tmp_path / "multirun" / "other").mkdir(parents=True)
    removed = runner.prepare(results, tmp_path / "multirun", multiruns)
    assert sorted(removed) == sorted([unplanned, dropped])
    assert planned.read_text() == "{}" and not tmp.exists()
    assert models[0].exists() and not models[1].exists()  # a dropped run's model goes with it
    assert not (results / "count" / "rounding").exists()
    assert not (results / paths.SWEEP_MANIFEST).exists() and keep.read_text() == "mine"
    assert not (tmp_path / "multirun" / "approaches").exists()
    assert (tmp_path / "multirun" / "other").exists()


def test_fresh_sweeps_turn_resume_off_in_every_multirun():
    (m,) = planning.plan(_profile(approaches=["regression"]), resamples_of=from_configs)
    assert "sweep.resume=false" not in planning.command(m, _profile(), Path("/r"), Path("/mr"))
    fresh = planning.command(m, _profile(), Path("/r"), Path("/mr"), fresh=True)
    assert "sweep.resume=false" in fresh


def test_conf_dir_is_the_package_conf_tree_of_the_checkout():
    assert paths.CONF_DIR == ROOT / "src" / "roundlab" / "conf"
    assert (paths.CONF_DIR / "config.yaml").is_file()


def test_tiny_profile_stays_tiny_and_still_has_a_failure_a_sweep_and_a_rate_choice():
    profile = profiles.load_profile(PARAMS, "tiny")
    runs = [r for m in planning.plan(profile, resamples_of=from_configs) for r in m.runs]
    assert len(runs) <= 20
    assert len(profile.learning_rates) >= 2  # the report's choice of rate is exercised
    assert "hard_round" in profile.activations  # the failed-runs section has something
    assert any(len(v or ()) >= 2 for v in profile.activations.values())  # a sweep curve


def test_a_bad_profile_is_one_line_naming_key_and_value(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("profile: p\ndatasets: [count]\n")
    (tmp_path / "profiles.yaml").write_text("p: {datasets: [count], seeds: [0], launcher: slurm}\n")
    assert cli.main(["--params", str(params), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "config error: profiles.p.launcher must be one of ['vectorized', 'basic', 'joblib', "
        "'vectorized_submitit_local', 'vectorized_submitit_slurm']. Received: launcher='slurm'"
    )


def test_multiruns_run_at_most_processes_at_once_and_are_logged_in_plan_order(tmp_path):
    """Each fake multirun appends its start and end time to a file; with processes=2 two of
    the four overlap at most, and the log keeps the plan's order whatever ends first."""
    import subprocess
    import sys

    profile = _profile(processes=2)
    multiruns = [planning.Multirun(f"m{i}", (), ()) for i in range(4)]
    stamps = tmp_path / "stamps"
    code = (
        "import sys, time; f = open(sys.argv[1], 'a'); f.write(f'start {time.time()}\\n'); "
        "f.flush(); time.sleep(float(sys.argv[2])); f.write(f'end {time.time()}\\n')"
    )

    def start(m):
        cmd = [sys.executable, "-c", code, str(stamps), str(0.9 - 0.2 * int(m.family[1]))]
        return children.Launched(m, cmd, subprocess.Popen(cmd), tmp_path / m.family)

    reported, ended = [], []
    log = children.run_multiruns(
        multiruns, profile, start, reported.append, lambda _, entry: ended.append(entry)
    )
    assert [e["family"] for e in log] == ["m0", "m1", "m2", "m3"]
    # each multirun's entry, passed on as it ends (for its line on the terminal)
    assert sorted(ended, key=lambda e: e["family"]) == log
    assert all(e["exit_code"] == 0 for e in log)
    events = sorted(
        (float(t), kind) for kind, t in (line.split() for line in stamps.read_text().splitlines())
    )
    running = peak = 0
    for _, kind in events:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    assert peak == 2
    assert reported[-1] == multiruns  # the last count covers every multirun


@pytest.mark.parametrize("value", [0, -1, "two", True])
def test_processes_must_be_a_positive_integer(value):
    with pytest.raises(
        ValueError, match=f"processes must be an integer >= 1. Received: processes={value!r}"
    ):
        _profile(processes=value)


def test_parallel_multiruns_split_the_cores_between_them(monkeypatch):
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 4)
    monkeypatch.delenv("TF_NUM_INTRAOP_THREADS", raising=False)
    assert runner.environment(_profile(processes=2))["TF_NUM_INTRAOP_THREADS"] == "2"
