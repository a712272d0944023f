"""What a sweep's terminal shows: no TensorFlow start-up noise (absl, oneDNN, the NodeDef error
of every run), one progress bar or plain progress lines, one ``multirun <family>:`` line per
multirun and the ``sweep:`` total; the hard_round control's failures counted as expected
failures, not as failures; each multirun's output in its own log file."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
import yaml

import roundlab
from roundlab import results
from roundlab.results import RunResult
from roundlab.sweep import progress as progress_mod
from roundlab.sweep.progress import Progress, multirun_ended, result_tally, tally

NOISE = re.compile(r"absl|oneDNN|NodeDef|E0000|I0000|W0000|InitializeLog|cpu_feature_guard")
NO_GRADIENT_ERROR = "no gradient: the loss has no gradient with respect to 6 of 6 weight tensors"
EXPECTED = "1 expected failures (hard_round control)"


def _quiet_env() -> dict[str, str]:
    """The test session's environment without its TF_CPP_MIN_LOG_LEVEL: the package's default
    is what is tested."""
    return {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}


def _result(activation: str | None, status: str, error: str | None = None) -> RunResult:
    approach = "rounding" if activation else "regression"
    return RunResult(status, "count", approach, 0, activation=activation, error=error)


def test_only_the_no_gradient_failure_of_the_negative_control_is_expected():
    assert results.expected_failure(_result("hard_round", "FAILED", NO_GRADIENT_ERROR))
    # the same control failing for another reason, another activation without a gradient, a
    # control that finished or was killed: not expected
    assert not results.expected_failure(_result("hard_round", "FAILED", "disk full"))
    assert not results.expected_failure(_result("sigmoid_round", "FAILED", NO_GRADIENT_ERROR))
    assert not results.expected_failure(_result("hard_round", "FINISHED"))
    assert not results.expected_failure(_result("hard_round", "KILLED", NO_GRADIENT_ERROR))


def test_status_records_and_result_files_are_counted_by_the_same_rule(tmp_path):
    files = {
        "control": _result("hard_round", "FAILED", NO_GRADIENT_ERROR),
        "fault": _result("sigmoid_round", "FAILED", "loss became NaN"),
        "ok": _result(None, "FINISHED"),
    }
    for name, result in files.items():
        results.write(result, tmp_path / f"{name}.json")
    records = [
        {"status": r.status, "error": r.error, "result_file": str(tmp_path / f"{n}.json")}
        for n, r in files.items()
    ]
    records.append({"status": "FAILED", "error": "no status file"})  # a job killed outright
    assert tally(records) == progress_mod.Tally(done=4, failed=2, expected=1)
    paths = [tmp_path / f"{n}.json" for n in [*files, "absent"]]
    assert result_tally(paths) == progress_mod.Tally(done=3, failed=1, expected=1)
    assert result_tally(paths).finished == 1


def test_plain_progress_is_one_line_per_change_without_control_codes():
    out = io.StringIO()  # not a terminal: DVC's log, CI, a pipe
    bar = Progress(20, "sweep", stream=out)
    bar.started -= 30.0  # half a minute in
    bar.update(0, 0)
    bar.update(5, 0, 4)
    bar.update(5, 0, 4)  # unchanged: no line
    bar.grow(8)
    bar.update(10, 1, 4)
    bar.close()
    assert out.getvalue().splitlines() == [
        "sweep: 0/20 runs, 0 failed, 30s elapsed, ETA unknown",
        # 30 s for 5 runs: 6 s a run, 15 to go
        "sweep: 5/20 runs, 0 failed, 4 expected failures (hard_round control), 30s elapsed, "
        "ETA 1m30s",
        "sweep: 10/28 runs, 1 failed, 4 expected failures (hard_round control), 30s elapsed, "
        "ETA 54s",
    ]
    assert not re.search(r"[\r\x1b]", out.getvalue())


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_one_bar_is_redrawn_and_lines_print_above_it():
    screen = _Terminal()
    bar = Progress(4, "sweep", stream=screen)
    bar.update(2, 0, 1)
    bar.write("multirun activations: 1 runs", file=screen)
    bar.update(4, 0, 1)
    bar.close()
    text = screen.getvalue()
    assert "\r" in text and "\n" not in text.split("multirun activations")[0]
    # the bar is cleared for the line, then drawn again below it, with the counts
    before, after = text.split("multirun activations: 1 runs\n")
    assert "2/4 runs, 0 failed, 1 expected failures (hard_round control)" in before
    assert "|" in after and "4/4 runs, 0 failed" in after and after.endswith("\n")


def test_a_multirun_that_exits_with_an_error_shows_its_line_and_its_logs_tail(tmp_path, capsys):
    log = tmp_path / "approaches" / "multirun.log"
    log.parent.mkdir()
    log.write_text("".join(f"line {i}\n" for i in range(30)) + "hydra: Could not override\n")
    entry = {"family": "approaches", "runs": 4, "reused": 0, "exit_code": 1, "wall_time_s": 3.2}
    multirun_ended(Progress(4, "sweep", stream=io.StringIO()), entry, log)
    out, err = capsys.readouterr()
    assert out == (
        f"multirun approaches: 4 runs, 0 finished, 0 failed, 0 reused, in 3 s, exit code 1 "
        f"(log: {log})\n"
    )
    tail = err.splitlines()
    assert tail[0] == f"multirun approaches: last lines of {log}:"
    assert tail[1:] == [f"line {i}" for i in range(11, 30)] + ["hydra: Could not override"]


def test_import_noise_is_dropped_and_other_stderr_kept(capfd):
    with roundlab._stderr_without_import_noise():
        os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are\n")
        os.write(2, b"I0000 00:00:1 port.cc:153] oneDNN custom operations are on. You may\n")
        os.write(2, b"a real problem\n")
    assert capfd.readouterr().err == "a real problem\n"


def test_importing_tensorflow_after_roundlab_prints_nothing():
    code = "import os, roundlab, tensorflow as tf; tf.constant(1.0) + 1; import keras; "
    code += "print(os.environ['TF_CPP_MIN_LOG_LEVEL'])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_quiet_env()
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("3\n", "")
    # a level the user set wins
    mine = subprocess.run(
        [sys.executable, "-c", "import os, roundlab; print(os.environ['TF_CPP_MIN_LOG_LEVEL'])"],
        capture_output=True,
        text=True,
        env={**_quiet_env(), "TF_CPP_MIN_LOG_LEVEL": "1"},
    )
    assert mine.stdout == "1\n"


QUIET = {
    "datasets": ["count"],
    "seeds": [0],
    "learning_rates": [0.01],
    "approaches": ["regression"],
    "activations": {"hard_round": None},
    "overrides": ["trainer.epochs=2", "dataset.n_train=300", "model.hidden_sizes=[16]"],
    "processes": 2,
    "tracking": False,
}


@pytest.mark.slow
def test_a_sweeps_terminal_shows_progress_and_one_line_per_multirun_only(tmp_path):
    (tmp_path / "params.yaml").write_text("profile: quiet\ndatasets: [count]\n")
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"quiet": QUIET}))
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(tmp_path / "params.yaml")]
    cmd += ["--results", "results", "--sweep-dir", "multirun", "--fail-on-failed-jobs"]
    done = subprocess.run(
        cmd, cwd=tmp_path, env=_quiet_env(), capture_output=True, text=True, timeout=600
    )
    lines = (done.stdout + done.stderr).splitlines()
    # the hard_round failure is expected: --fail-on-failed-jobs passes
    assert done.returncode == 0, "\n".join(lines)
    assert [line for line in lines if NOISE.search(line)] == []
    families = [line for line in lines if line.startswith("multirun ")]
    # two workers (processes: 2) take the two families' tasks, whichever is free first: one
    # worker may take both while the other is still importing TensorFlow, so a worker's line
    # names the families it ran, and across the lines each family ran once
    line_re = re.compile(
        r"multirun (worker-\d)(?: \((?P<families>[a-z, ]+)\))?: (?P<runs>\d) runs, "
        r"(?P<finished>\d) finished, 0 failed, (?:(?P<expected>\d) expected failures "
        r"\(hard_round control\), )?0 reused, in \d+ s \(log: multirun/\1/multirun\.log\)"
    )
    shown = [line_re.fullmatch(line) for line in families]
    assert len(shown) == 2 and all(shown), families
    ran = [f for m in shown if m["families"] for f in m["families"].split(", ")]
    assert sorted(ran) == ["activations", "approaches"]
    assert sum(int(m["runs"]) for m in shown) == 2
    assert sum(int(m["finished"]) for m in shown) == 1
    assert sum(int(m["expected"] or 0) for m in shown) == 1
    # the expected failure is counted on the line of the worker that ran the activations
    assert next(m for m in shown if "activations" in (m["families"] or ""))["expected"] == "1"
    total = done.stdout.splitlines()[-1]
    assert re.fullmatch(
        rf"sweep: 2 of 2 result files present, 0 reused, in \d+ s; 1 finished, 0 failed, "
        rf"{re.escape(EXPECTED)}",
        total,
    )
    progress = [line for line in lines if line not in (*families, total)]
    assert all(re.match(r"sweep: \d/2 runs, 0 failed, ", line) for line in progress), progress
    # what the jobs printed is in each multirun's log, headed by its command
    worker = next(m for m in shown if "approaches" in (m["families"] or ""))[1]
    log = (tmp_path / "multirun" / worker / "multirun.log").read_text().splitlines()
    assert log[:2] == [f"# tasks from {tmp_path / 'multirun' / '_queue'}", log[1]]
    assert log[1].startswith("$ python -m roundlab.train -m ") and "sweep.queue=" in log[1]
    assert any("results/count/regression" in line and "FINISHED" in line for line in log)
