"""A stacked member's Hydra job (roundlab.sweep.member_job) gives what Hydra's run_job gives:
the same .hydra files and log file in the same output directory, the same JobReturn, the same
callbacks, the Hydra config and the job's environment while its task runs."""

from __future__ import annotations

import logging
import os
import re
import warnings
from pathlib import Path

import pytest
from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobStatus, run_job
from hydra.types import HydraContext
from omegaconf import OmegaConf, open_dict

from roundlab.run import config
from roundlab.sweep import member_job

PROBE = "ROUNDLAB_MEMBER_JOB_PROBE"


class Recorder:
    """Callbacks that note what they are called with."""

    def __init__(self):
        self.calls = []

    def on_job_start(self, config, task_function):
        self.calls.append(("start", config.hydra.job.num, task_function))

    def on_job_end(self, config, job_return):
        self.calls.append(("end", config.hydra.job.num, job_return.status))


def _job(sweep_dir: Path, *extra: str):
    cfg = config.compose(
        [
            "approach=rounding",
            "activation=sigmoid_round",
            "activation.steepness=20",
            "seed=3",
            f"hydra.sweep.dir={sweep_dir}",
            f"+hydra.job.env_set.{PROBE}=here",
            *extra,
        ],
        return_hydra_config=True,
    )
    with open_dict(cfg):
        cfg.hydra.job.id = 7
        cfg.hydra.job.num = 7
    return cfg


def _task(seen: list, fail: bool = False):
    def task(cfg):
        hc = HydraConfig.get()
        seen.append((hc.runtime.output_dir, os.environ.get(PROBE), os.getcwd(), cfg.seed))
        logging.getLogger("roundlab.test").info("the member's line")
        if fail:
            raise RuntimeError("no gradient")
        return 0.5

    return task


@pytest.fixture(autouse=True)
def _logging_as_it_was():
    """Hydra's job logging puts a file handler on the root logger: closed and taken off after."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def _run_both(tmp_path, *extra, fail=False):
    before = HydraConfig.instance().cfg
    out = {}
    for name, run in (
        (
            "hydra",
            lambda ctx, cfg, task: run_job(task, cfg, "hydra.sweep.dir", "hydra.sweep.subdir", ctx),
        ),
        ("member", member_job.run),
    ):
        recorder, seen = Recorder(), []
        task = _task(seen, fail)
        ret = run(
            HydraContext(config_loader=None, callbacks=recorder),
            _job(tmp_path / name, *extra),
            task,
        )
        out[name] = (ret, recorder.calls, seen, task)
        assert HydraConfig.instance().cfg is before  # put back as it was
    return out


def _files(job_dir: Path, sweep_dir: Path) -> dict[str, str]:
    """Each file's text, the sweep directory and the log's timestamps left out."""
    return {
        p.relative_to(job_dir).as_posix(): re.sub(
            r"^\[[^]]*\]", "", p.read_text().replace(str(sweep_dir), "<sweep>"), flags=re.M
        )
        for p in sorted(job_dir.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("fail", [False, True])
def test_a_member_job_leaves_and_returns_what_run_job_does(tmp_path, fail):
    both = _run_both(tmp_path, fail=fail)
    (hret, hcalls, hseen, _), (mret, mcalls, mseen, mtask) = both["hydra"], both["member"]
    hdir, mdir = tmp_path / "hydra" / "7", tmp_path / "member" / "7"
    expected = _files(hdir, tmp_path / "hydra")
    assert set(expected) == {
        ".hydra/config.yaml",
        ".hydra/hydra.yaml",
        ".hydra/overrides.yaml",
        "app.log",
    }
    assert _files(mdir, tmp_path / "member") == expected
    assert "the member's line" in expected["app.log"]
    assert mseen == [(str(mdir), "here", os.getcwd(), 3)]
    assert hseen == [(str(hdir), "here", os.getcwd(), 3)]
    assert PROBE not in os.environ
    status = JobStatus.FAILED if fail else JobStatus.COMPLETED
    assert (mret.status, hret.status) == (status, status)
    assert [c[:2] for c in mcalls] == [("start", 7), ("end", 7)] and mcalls[0][2] is mtask
    assert mcalls[1][2] == status and [c[:2] for c in hcalls] == [("start", 7), ("end", 7)]
    if fail:  # a failed job's return value raises its error, as Hydra's does
        for ret in (mret, hret):
            with pytest.raises(RuntimeError, match="no gradient"):
                _ = ret.return_value
    else:
        assert mret.return_value == hret.return_value == 0.5
    assert mret.overrides == hret.overrides and mret.task_name == hret.task_name
    assert mret.working_dir == hret.working_dir
    assert OmegaConf.get_type(mret.cfg) is OmegaConf.get_type(hret.cfg)
    assert OmegaConf.is_struct(mret.cfg) and "hydra" not in mret.cfg
    assert OmegaConf.to_container(mret.cfg) == OmegaConf.to_container(hret.cfg)
    shown = OmegaConf.to_yaml(mret.hydra_cfg).replace(str(tmp_path / "member"), "<sweep>")
    assert shown == OmegaConf.to_yaml(hret.hydra_cfg).replace(str(tmp_path / "hydra"), "<sweep>")


def test_a_member_job_with_chdir_runs_its_task_in_its_directory_and_comes_back(tmp_path):
    both = _run_both(tmp_path, "hydra.job.chdir=true")
    (hret, _, hseen, _), (mret, _, mseen, _) = both["hydra"], both["member"]
    assert mseen[0][2] == str(tmp_path / "member" / "7") and hseen[0][2] == str(
        tmp_path / "hydra" / "7"
    )
    assert (mret.working_dir, hret.working_dir) == (mseen[0][2], hseen[0][2])
    assert os.getcwd() not in {mseen[0][2], hseen[0][2]}


@pytest.mark.parametrize(
    "value",
    [
        *["true", "1e3", "0x10", "null", "~", "1.5", "3", "off", "${seed}", "a: b", "é"],
        *["\U0001f600", "\x85", "\x07", "a\tb", "one\ntwo", "café " + "w " * 60, "x" * 200],
    ],
)
def test_the_yaml_is_omegaconfs_own_text_for_strings_yaml_could_misread(value):
    cfg = OmegaConf.create({"text": value, "nested": {"list": [value, 1, 1.5, None, True]}})
    assert config.to_yaml(cfg) == OmegaConf.to_yaml(cfg)
    keyed = OmegaConf.create({value: 1, "nested": {value: [value]}})
    assert config.to_yaml(keyed) == OmegaConf.to_yaml(keyed)


@pytest.mark.parametrize("chdir", ["true", "null"])
def test_a_member_job_in_a_relative_sweep_dir_gives_run_jobs_working_dir(
    tmp_path, monkeypatch, chdir
):
    """With a relative ``hydra.sweep.dir`` the working directory is given as run_job gives it
    (relative); an unset ``hydra.job.chdir`` under a version_base before 1.2 changes into the
    job's directory, with Hydra's warning, as run_job does."""
    from hydra import version

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(version, "base_at_least", lambda _: False)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        both = _run_both(Path("rel"), f"hydra.job.chdir={chdir}")
    warned = [w for w in warned if "change working directory" in str(w.message)]
    (hret, _, hseen, _), (mret, _, mseen, _) = both["hydra"], both["member"]
    assert (hret.working_dir, mret.working_dir) == ("rel/hydra/7", "rel/member/7")
    assert (hseen[0][2], mseen[0][2]) == (
        str(tmp_path / "rel" / "hydra" / "7"),
        str(tmp_path / "rel" / "member" / "7"),
    )
    assert os.getcwd() == str(tmp_path)
    assert len(warned) == (2 if chdir == "null" else 0)
