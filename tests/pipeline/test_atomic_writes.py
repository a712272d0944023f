"""Every file roundlab writes appears whole or not at all: written to a temporary name beside
it and renamed into place, a full disk or a directory it cannot write to ending in one line
that names the path, with no partial file left (roundlab.paths.atomic_path)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest
import yaml

from disk_faults import fill_disk_for
from roundlab import data, paths
from roundlab.errors import WriteFailed
from roundlab.sweep import cli, runner
from roundlab.sweep import plan as planning
from roundlab.sweep import profile as profiles
from roundlab.sweep.resamples import from_configs

PROFILE = {"datasets": ["count"], "seeds": [0], "approaches": ["regression"], "tracking": False}


def _files(directory: Path) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())


def test_a_write_replaces_the_old_file_whole_and_leaves_nothing_else(tmp_path):
    path = tmp_path / "deep" / "file.yaml"
    paths.atomic_write(path, "old\n")
    paths.atomic_write(path, "new\n")
    assert path.read_text() == "new\n" and _files(tmp_path) == ["deep/file.yaml"]


def test_a_full_disk_keeps_the_old_file_and_removes_the_temporary(tmp_path, monkeypatch):
    path = paths.atomic_write(tmp_path / "seed=0.json", "old\n")
    fill_disk_for(monkeypatch, "seed=0.json")
    with pytest.raises(WriteFailed) as err:
        paths.atomic_write(path, "new\n" * 1000)
    assert err.value.errno == errno.ENOSPC
    assert str(err.value).startswith(f"{path} must be written whole; nothing partial was left")
    assert str(err.value).endswith("Received: ENOSPC: No space left on device")
    assert path.read_text() == "old\n" and _files(tmp_path) == ["seed=0.json"]


def test_a_writer_that_fails_halfway_leaves_no_partial_file(tmp_path):
    target = tmp_path / "seed=0.keras"
    failing = pytest.raises(WriteFailed, match="seed=0.keras must be written whole")
    with failing as err, paths.atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp.name.endswith(".keras")
        tmp.write_bytes(b"PK\x03\x04" + bytes(4092))  # the 4096 bytes a full disk left
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert err.value.errno == errno.ENOSPC and _files(tmp_path) == []


def test_an_interruption_while_writing_removes_the_temporary_and_stays_an_interruption(tmp_path):
    with pytest.raises(KeyboardInterrupt), paths.atomic_path(tmp_path / "report.md") as tmp:
        tmp.write_text("half")
        raise KeyboardInterrupt
    assert _files(tmp_path) == []


def test_a_directory_that_cannot_be_made_is_one_error_naming_the_setting(tmp_path):
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(WriteFailed) as err:
        paths.check_writable(tmp_path / "file" / "results", "results_dir")
    assert str(err.value) == (
        "results_dir must be a directory roundlab can write to. Received: "
        f"results_dir={tmp_path / 'file' / 'results'} (ENOTDIR: Not a directory)"
    )


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root writes through mode 0555; tests/training/test_write_failures.py runs the "
    "commands without CAP_DAC_OVERRIDE instead",
)
def test_a_read_only_directory_is_refused_and_left_empty(tmp_path):
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(WriteFailed, match=r"\(EACCES: Permission denied\)"):
            paths.check_writable(tmp_path, "--results")
    finally:
        tmp_path.chmod(0o755)
    assert _files(tmp_path) == []


def test_the_sweep_removes_the_temporaries_of_killed_writes(tmp_path):
    results = tmp_path / "results"
    (multirun,) = planning.plan(
        profiles.parse_profile("p", PROFILE, None), resamples_of=from_configs
    )
    (planned,) = multirun.result_files(results)
    left = [
        planned.with_name(".seed=0.json.tmp-123-0a1b2c3d.json"),
        planned.with_name(".seed=0.keras.tmp-123-0a1b2c3d.keras"),
    ]
    for path in (planned, *left):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    runner.prune(results, [planned])
    assert _files(results) == [planned.relative_to(results).as_posix()]


def _enospc() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _Started:
    """A multirun process that ends at once, noting whether the manifest existed when it was
    started."""

    seen: list[bool] = []

    def __init__(self, cmd, env=None, **options):
        results = Path(next(a for a in cmd if a.startswith("results_dir=")).split("=", 1)[1])
        self.seen.append((results / "count" / paths.SWEEP_MANIFEST).is_file())
        self.returncode = 0

    def poll(self):
        return 0


@pytest.fixture
def params(tmp_path):
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets: [count]\n")
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"p": PROFILE}))
    return tmp_path / "params.yaml"


def test_the_sweep_writes_its_manifest_before_the_first_multirun_starts(
    tmp_path, params, monkeypatch
):
    monkeypatch.setattr(runner.subprocess, "Popen", _Started)
    _Started.seen = []
    argv = ["--params", str(params), "--results", str(tmp_path / "results")]
    assert cli.main([*argv, "--sweep-dir", str(tmp_path / "multirun")]) == 0
    assert _Started.seen == [True]
    assert (tmp_path / "multirun" / runner.LOG).is_file()


def test_a_full_disk_for_the_manifest_stops_the_sweep_in_one_line_before_any_multirun(
    tmp_path, params, monkeypatch, capsys
):
    monkeypatch.setattr(runner.subprocess, "Popen", _Started)
    _Started.seen = []
    fill_disk_for(monkeypatch, paths.SWEEP_MANIFEST)
    argv = ["--params", str(params), "--results", str(tmp_path / "results")]
    assert cli.main([*argv, "--sweep-dir", str(tmp_path / "multirun")]) == 1
    err = capsys.readouterr().err
    manifest = tmp_path / "results" / "count" / paths.SWEEP_MANIFEST
    assert err == f"write error: {paths.write_failed(manifest, _enospc())}\n"
    assert _Started.seen == [] and _files(tmp_path / "results") == []  # the write left nothing


def test_a_full_disk_while_saving_data_keeps_the_old_dataset(tmp_path, monkeypatch):
    from roundlab.run import config

    dataset = data.generate(config.compose(["dataset=count", "dataset.n_train=50"]).dataset)
    directory = data.save(dataset, tmp_path / "count")
    before = {name: (directory / name).read_bytes() for name in _files(directory)}
    smaller = data.generate(config.compose(["dataset=count", "dataset.n_train=40"]).dataset)
    fill_disk_for(monkeypatch, "meta.json")
    with pytest.raises(WriteFailed, match=f"^{directory} must be written whole") as err:
        data.save(smaller, directory)
    assert err.value.errno == errno.ENOSPC
    assert {name: (directory / name).read_bytes() for name in _files(directory)} == before
    assert [p.name for p in tmp_path.iterdir()] == ["count"]  # no staging directory left
    assert np.array_equal(data.load(directory).train.y, dataset.train.y)
