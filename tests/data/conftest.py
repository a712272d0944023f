"""Fixtures of the data tests: small configs of every generator, an example CSV."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from omegaconf import DictConfig

from roundlab.data import compose_config

from .support import CONF, SMALL_SIZES, write_csv


@pytest.fixture
def example_csv(tmp_path: Path) -> Path:
    """200 rows: y = round(10·x1 + 5·x2) with x1, x2 uniform in [0, 1), and a constant column."""
    rng = np.random.default_rng(7)
    x = rng.random((200, 2))
    y = np.floor(10 * x[:, 0] + 5 * x[:, 1] + 0.5).astype(int)
    rows = [[f"{a:.6f}", f"{b:.6f}", 1.0, int(label)] for (a, b), label in zip(x, y, strict=True)]
    return write_csv(tmp_path / "example.csv", ["x1", "x2", "const", "y"], rows)


@pytest.fixture
def small_config(example_csv: Path) -> Callable[..., DictConfig]:
    """``small_config(name, *overrides)``: conf/dataset/<name>.yaml composed by Hydra, with
    small sizes (sized generators) or the example CSV (csv)."""

    def make(name: str, *overrides: str) -> DictConfig:
        if name == "csv":
            # The extrapolate split is opt-in for a CSV: these tests check it too.
            base = [f"path={example_csv}", "label=y", "extrapolate_quantile=0.05"]
        elif name == "diabetes":
            base = []
        else:
            base = SMALL_SIZES
        return compose_config(name, [*base, *overrides], conf_dir=CONF)

    return make
