"""Shared fixtures: the real config composed with Hydra's compose API, shrunk to a tiny run
that writes into tmp_path and tracks into a tmp sqlite store."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# A few hundred examples and a handful of epochs: seconds per run on 2 CPU cores.
TINY = [
    "dataset=count",
    "dataset.n_train=300",
    "dataset.n_val=100",
    "dataset.n_test=100",
    "dataset.n_extrapolate=100",
    "model.hidden_sizes=[16]",
    "trainer.epochs=8",
    "trainer.batch_size=32",
    "trainer.learning_rate=0.02",
    # 100 validation rows would select by k-fold (five fits and a refit per run); the tests of
    # k-fold selection ask for it, the others test the holdout protocol.
    "trainer.selection=holdout",
    # Runs still improving at 8 epochs would train on to 32; the tests of the cap ask for it.
    "trainer.max_epochs_factor=1",
]


@pytest.fixture(scope="session")
def store(tmp_path_factory):
    """A tmp sqlite MLflow store reached through MLFLOW_TRACKING_URI, shared by the tests of
    the session (creating the schema takes seconds); tests look their runs up by id."""
    uri = f"sqlite:///{tmp_path_factory.mktemp('mlflow') / 'mlflow.db'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MLFLOW_TRACKING_URI", uri)
        yield uri


@pytest.fixture
def compose(tmp_path, store):
    """compose(*overrides): the real config, shrunk, writing results under tmp_path."""
    from roundlab.run import config

    def _compose(*overrides: str):
        return config.compose([*TINY, f"results_dir={tmp_path / 'results'}", *overrides])

    return _compose


@pytest.fixture
def tiny():
    """The overrides that shrink a run, for tests that launch their own processes."""
    return list(TINY)
