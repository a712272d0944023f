"""bench/profiles.yaml's ``workload_613bb97`` is the default profile's work at commit 613bb97,
the baseline of the sweep benchmarks: this code plans the same 1208 runs from it, in one round,
with the trainer of then, so ``bench/stages.py --profile workload_613bb97`` times that work."""

import subprocess
import sys
from pathlib import Path

import yaml

from roundlab.run.config import compose
from roundlab.sweep import plan as planning
from roundlab.sweep import profile as profiles
from roundlab.sweep.resamples import from_configs

ROOT = Path(__file__).resolve().parents[2]
NAME = "workload_613bb97"


def _profile() -> profiles.Profile:
    raw = yaml.safe_load((ROOT / "bench" / "profiles.yaml").read_text())[NAME]
    return profiles.parse_profile(NAME, raw, known_datasets=None)


def test_the_613bb97_workload_plans_its_1208_runs_without_rate_extensions():
    profile = _profile()
    multiruns = planning.plan(profile, resamples_of=from_configs)
    assert sum(len(m.runs) for m in multiruns) == 1208
    assert profile.rate_extensions == 0
    assert profile.datasets == ("affine", "count", "digit_sum", "anes96")


def test_the_613bb97_workload_trains_with_the_trainer_of_then():
    trainer = compose(["dataset=anes96", *_profile().overrides]).trainer
    assert trainer.epochs == 300
    assert trainer.max_epochs_factor == 1  # stop at `epochs`, as every run did then
    assert trainer.early_stopping.min_delta == 0.0
    assert trainer.selection == "holdout"  # anes96 was selected on its val split then


def test_an_unknown_profile_or_profiles_file_is_refused_by_name_before_anything_runs():
    def bench(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, str(ROOT / "bench" / "stages.py"), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    unknown = bench("--profiles", str(ROOT / "bench" / "profiles.yaml"), "--profile", "nope")
    assert unknown.returncode == 2 and "sweep@" not in unknown.stdout
    assert "--profile must name a profile of profiles.yaml" in unknown.stderr
    assert "'workload_613bb97']). Received: 'nope'" in unknown.stderr
    missing = bench("--profiles", "no-such.yaml")
    assert missing.returncode == 2
    assert "--profiles: no such file. Received: 'no-such.yaml'" in missing.stderr
