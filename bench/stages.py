"""What the pipeline's sweep stages cost from fresh: each dataset's ``sweep@<name>``.

The project's params.yaml and profiles.yaml (by default every dataset of the active profile) in
a tmp project, so the checkout's results, runs and MLflow store are left alone: each dataset's
``data/<name>`` is a link to this checkout's when it has one (``dvc repro generate``), else
generated there first (``python -m roundlab.data <name>``, not timed). Each dataset's
``python -m roundlab.sweep --dataset <name>`` runs as DVC runs it, one after another, into
empty results and a new MLflow store (``MLFLOW_TRACKING_URI`` is ignored): its wall time, its
runs (``_sweep_log.yaml``), the CPU time of its whole process tree (user + system: less
moved by other people's work on a shared machine than the wall time) and the peak resident set
of its largest process (the sweep or one of its workers).

``--profile NAME`` times another profile than params.yaml's, from profiles.yaml or from the
files given with ``--profiles``: bench/profiles.yaml's ``workload_613bb97`` is the default
profile's work at 613bb97, the sweep benchmarks' baseline (bench/README.md), run by this code.

    python bench/stages.py [--datasets affine count] [--profile NAME [--profiles FILE ...]]
                           [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from roundlab.errors import ConfigError
from roundlab.sweep.profile import load_profile

ROOT = Path(__file__).resolve().parent.parent


def _env(root: Path) -> dict[str, str]:
    """The tmp project's own root and store, whatever this shell points MLflow at."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    return {**env, "ROUNDLAB_ROOT": str(root)}


def stage(root: Path, dataset: str) -> dict:
    """One sweep stage in ``root``: wall time, CPU time, runs, workers and peak RSS (MB)."""
    cmd = [sys.executable, "-m", "roundlab.sweep", "--dataset", dataset]
    log = root / f"{dataset}.log"
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=_env(root), stdout=out, stderr=subprocess.STDOUT)
        # this stage's own peak: its process tree's largest, not an earlier stage's
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"sweep@{dataset} exited {proc.returncode}:\n{log.read_text()[-3000:]}")
    sweep_log = yaml.safe_load((root / "multirun" / dataset / "_sweep_log.yaml").read_text())
    return {
        "dataset": dataset,
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "runs": sum(r["runs"] for r in sweep_log["rounds"]),
        "workers": len(sweep_log["multiruns"]),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "load_before": load,
    }


def configure(tmp: Path, profile: str | None, extra: list[Path]) -> list[str]:
    """The tmp project's params.yaml, dvc.yaml and profiles.yaml: this checkout's, with the
    profiles of ``extra`` added and ``profile`` made the active one; its datasets."""
    shutil.copy(ROOT / "dvc.yaml", tmp / "dvc.yaml")
    profiles = yaml.safe_load((ROOT / "profiles.yaml").read_text())
    for path in extra:
        profiles.update(yaml.safe_load(path.read_text()))
    if profile is not None and profile not in profiles:
        sources = ", ".join(["profiles.yaml", *map(str, extra)])
        raise ConfigError(
            f"--profile must name a profile of {sources} ({sorted(profiles)}). "
            f"Received: {profile!r}"
        )
    (tmp / "profiles.yaml").write_text(yaml.safe_dump(profiles, sort_keys=False))
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["profile"] = profile or params["profile"]
    (tmp / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return list(load_profile(tmp / "params.yaml").datasets)


def project(tmp: Path, datasets: list[str]) -> Path:
    """``tmp`` with this checkout's inputs and the data of ``datasets``: linked when the
    checkout has it, else generated."""
    if (ROOT / "inputs").exists():
        (tmp / "inputs").symlink_to(ROOT / "inputs")
    (tmp / "data").mkdir()
    for dataset in datasets:
        if (ROOT / "data" / dataset).is_dir():
            (tmp / "data" / dataset).symlink_to(ROOT / "data" / dataset)
            continue
        print(f"data/{dataset}: not in this checkout, generating it (not timed)")
        subprocess.run(
            [sys.executable, "-m", "roundlab.data", dataset], cwd=tmp, env=_env(tmp), check=True
        )
    return tmp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", help="default: the active profile's")
    parser.add_argument("--profile", help="default: params.yaml's")
    parser.add_argument(
        "--profiles", nargs="*", type=Path, default=[], help="YAML files of more profiles"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    for path in args.profiles:
        if not path.is_file():
            parser.error(f"--profiles: no such file. Received: {str(path)!r}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            profile_datasets = configure(Path(tmp), args.profile, args.profiles)
        except ConfigError as error:  # an unknown or invalid profile, before anything runs
            parser.error(str(error))
        datasets = args.datasets or profile_datasets
        root = project(Path(tmp), datasets)
        for dataset in datasets:
            rows.append(stage(root, dataset))
            r = rows[-1]
            print(
                f"sweep@{dataset}: {r['runs']} runs in {r['wall_s']} s ({r['cpu_s']} s CPU), "
                f"{r['workers']} workers, "
                f"peak RSS {r['peak_rss_mb']} MB (load {r['load_before']:.1f} before)"
            )
    total = round(sum(r["wall_s"] for r in rows), 1)
    cpu = round(sum(r["cpu_s"] for r in rows), 1)
    runs = sum(r["runs"] for r in rows)
    print(
        f"all {len(rows)} stages: {runs} runs in {total} s ({total / runs:.3f} s a run), "
        f"{cpu} s CPU"
    )
    if args.json:
        summary = {"stages": rows, "total_s": total, "cpu_s": cpu, "runs": runs}
        args.json.write_text(json.dumps(summary) + "\n")


if __name__ == "__main__":
    main()
