"""``python -m roundlab.sweep --dry-run``: how each multirun's jobs will train, before any does.

Each job's config is composed as its multirun will compose it (the same overrides, the same
derivation of members from one composed config), validated, and scheduled by the launcher's
own function (:func:`roundlab.sweep.schedule.schedule`): the groups printed are the groups the
vectorised launcher forms, including what profile overrides change (dropout or a numpy-backed
hidden activation make every job train alone) and which result files will be reused.
"""

from __future__ import annotations

from roundlab.run.config import compose
from roundlab.sweep import grouping
from roundlab.sweep.jobs import job_configs
from roundlab.sweep.plan import Multirun
from roundlab.sweep.profile import DEFAULT_MAX_MEMBERS, Profile
from roundlab.sweep.schedule import schedule, training_configs
from roundlab.sweep.workers import expand


def job_overrides(cmd: list[str]) -> list[list[str]]:
    """Each job's overrides of a multirun command line (``python -m roundlab.train -m ...``),
    as Hydra's basic sweeper expands them; Hydra's own settings (``hydra.*``) left out."""
    return expand(
        tuple(o for o in cmd[cmd.index("roundlab.train") + 2 :] if not o.startswith("hydra"))
    )


def describe(m: Multirun, profile: Profile, cmd: list[str]) -> list[str]:
    """One line per stacked group and per job that trains alone, and the reused jobs' count."""
    if not profile.launcher.startswith("vectorized"):
        return [f"{len(m.runs)} runs one at a time ({profile.launcher} launcher)"]
    jobs = job_configs(lambda o: compose(o, return_hydra_config=True), job_overrides(cmd))
    cfgs = training_configs(jobs)
    reused, groups, alone = schedule(cfgs, profile.max_members or DEFAULT_MAX_MEMBERS)
    lines = [f"{len(reused)} of {len(cfgs)} jobs reused (same fingerprint)"] if reused else []
    return lines + grouping.describe(cfgs, groups, alone)
