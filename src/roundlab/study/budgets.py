"""The budgets of ``roundlab study --budget``: entries of the package's budgets.yaml, written in
profiles.yaml's format and checked by the sweep's own :func:`roundlab.sweep.profile.parse_profile`,
so a budget is a profile like any other (its keys, its errors).

The file ships inside the package (read through :mod:`importlib.resources`), so an installed
wheel has it without a checkout.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

from roundlab.errors import ConfigError

BUDGETS_FILE = "budgets.yaml"
DEFAULT_BUDGET = "default"


def raw_budgets() -> dict[str, dict[str, Any]]:
    """Every budget as budgets.yaml states it, in its order."""
    text = resources.files("roundlab.study").joinpath(BUDGETS_FILE).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def names() -> list[str]:
    return list(raw_budgets())


def budget(name: str, tracking: bool) -> dict[str, Any]:
    """The budget ``name`` as a profiles.yaml entry, MLflow tracking on or off as the study
    asks. The study's params.yaml makes it the active profile, and the sweep checks it there
    (:func:`roundlab.sweep.profile.load_profile`)."""
    budgets = raw_budgets()
    if name not in budgets:
        raise ConfigError(f"--budget must be one of {list(budgets)}. Received: --budget={name}")
    return {**budgets[name], "tracking": tracking}
