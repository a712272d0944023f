"""The sweep's hold on its results directory and on its multiruns, with real processes: a second
sweep into the same results refuses in one line naming the first, and a sweep killed with
SIGKILL leaves no multirun running (on Linux its multiruns get SIGTERM and record their runs
KILLED)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from roundlab import results
from roundlab.sweep import children, lock, runner
from roundlab.sweep import plan as planning
from roundlab.sweep import profile as profiles
from roundlab.sweep.resamples import from_configs

LONG = {
    "datasets": ["count"],
    "seeds": [0, 1],
    "approaches": ["regression"],
    "overrides": [
        "trainer.epochs=100000",
        "trainer.early_stopping.enabled=false",
        "dataset.n_train=300",
        "model.hidden_sizes=[16]",
    ],
    "tracking": False,
}


def _project(tmp_path: Path) -> Path:
    (tmp_path / "params.yaml").write_text("profile: long\ndatasets: [count]\n")
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"long": LONG}))
    return tmp_path


def _sweep(project: Path, name: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(project / "params.yaml")]
    cmd += ["--results", str(project / "results"), "--sweep-dir", str(project / "multirun")]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONUNBUFFERED": "1"}
    out = open(project / f"{name}.txt", "w")  # noqa: SIM115  (closed with the process)
    return subprocess.Popen(cmd, cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT)


def _multirun_output(project: Path) -> str:
    """What the multiruns printed so far (each into its own log)."""
    return "".join(p.read_text() for p in (project / "multirun").rglob(runner.MULTIRUN_LOG))


def _wait_for(condition, proc: subprocess.Popen, what: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"exited {proc.returncode} before {what}"
        assert time.monotonic() < deadline, f"no {what} after {timeout} s"
        time.sleep(0.2)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent that does not reap it has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not children.LINUX, reason="the parent-death signal is Linux's")
def test_a_sweep_killed_with_sigkill_leaves_no_multirun_running(tmp_path):
    project = _project(tmp_path)
    sweep = _sweep(project, "sweep")
    _wait_for(lambda: "group of 2" in _multirun_output(project), sweep, "group")
    multiruns = _children(sweep.pid)
    assert multiruns

    sweep.send_signal(signal.SIGKILL)
    sweep.wait()
    deadline = time.monotonic() + 120
    while any(_alive(pid) for pid in multiruns) and time.monotonic() < deadline:
        time.sleep(0.2)

    assert not [pid for pid in multiruns if _alive(pid)]
    found = [results.read(p) for p in (project / "results").rglob("seed=*.json")]
    assert sorted(r.seed for r in found) == [0, 1]  # SIGTERM: the runs were recorded KILLED
    assert {(r.status, r.error) for r in found} == {("KILLED", "interrupted by SIGTERM")}


def test_a_second_sweep_into_the_same_results_refuses_naming_the_first(tmp_path):
    project = _project(tmp_path)
    first = _sweep(project, "first")
    lock_file = project / "results" / lock.LOCK_FILE
    _wait_for(lambda: lock_file.is_file() and lock_file.read_text(), first, "lock")

    second = _sweep(project, "second")
    code = second.wait(timeout=120)
    first.send_signal(signal.SIGTERM)
    first.wait(timeout=120)

    assert code == 1
    [line] = (project / "second.txt").read_text().strip().splitlines()
    assert line.startswith("a results directory takes one sweep at a time")
    assert f"Received: {lock_file} held by pid {first.pid} on " in line
    assert not lock_file.exists()  # the first removed it when it stopped


def test_the_lock_survives_pruning_is_ignored_by_readers_and_goes_with_the_sweep(tmp_path):
    resultsdir = tmp_path / "results"
    profile = profiles.parse_profile(
        "p", {"datasets": ["count"], "seeds": [0], "approaches": ["regression"]}, None
    )
    multiruns = planning.plan(profile, resamples_of=from_configs)
    busy = pytest.raises(lock.ResultsDirBusy, match=f"held by pid {os.getpid()} on ")
    with lock.hold(resultsdir) as path:
        with busy, lock.hold(resultsdir):
            pass
        runner.prepare(resultsdir, tmp_path / "multirun", multiruns)
        assert path.is_file()  # prune keeps it
        assert results.read_all(resultsdir) == []  # not read as a result
    assert list(resultsdir.iterdir()) == []  # results/ holds nothing of the lock after


def test_a_lock_file_a_killed_sweep_left_is_taken_over(tmp_path):
    resultsdir = tmp_path / "results"
    resultsdir.mkdir()
    (resultsdir / lock.LOCK_FILE).write_text("pid 1 on elsewhere since long ago\n")
    with lock.hold(resultsdir) as path:
        assert path.read_text().startswith(f"pid {os.getpid()} on ")
