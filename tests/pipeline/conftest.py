"""A small sweep project written under a test's own directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

SMALL = ["n_train=300", "n_val=100", "n_test=100", "n_extrapolate=100"]


@pytest.fixture
def sweep_project() -> Callable[..., Path]:
    """``write(root, **profile_keys)``: a project at ``root`` whose profile ``p`` sweeps plain
    regression, sigmoid_round (two steepness values, an integer grid the schema makes float) and
    the hard_round control, two rates and two seeds, 2 epochs of a small count dataset, without
    tracking; ``profile_keys`` replace or add profile keys. Returns ``root``."""

    def write(root: Path, **profile_keys) -> Path:
        profile = {
            "seeds": [0, 1],
            "approaches": ["regression"],
            "activations": {"sigmoid_round": [5, 10], "hard_round": None},
            "learning_rates": [0.01, 0.003],
            "overrides": ["trainer.epochs=2", "model.hidden_sizes=[8]", "trainer.batch_size=64"],
            "dataset_overrides": {"count": SMALL},
            "tracking": False,
            **profile_keys,
        }
        root.mkdir(parents=True, exist_ok=True)
        params = {"datasets": {"count": {}}, "profile": "p"}
        (root / "params.yaml").write_text(yaml.safe_dump(params))
        (root / "profiles.yaml").write_text(yaml.safe_dump({"p": profile}))
        (root / "dvc.yaml").write_text("stages: {}\n")
        return root

    return write
