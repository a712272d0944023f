"""Runs that would exhaust memory are refused before anything is built; constant labels warn."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import numpy as np
import pytest

from roundlab.approaches import label_range
from roundlab.data import dataset as dataset_module
from roundlab.engine import member_bytes, memory, models
from roundlab.errors import ConfigError
from roundlab.run import config, validate
from roundlab.run.job import resolve as resolved
from roundlab.train import train

# Runs argv[2:] and writes its peak resident set (KB) to argv[1]; exits with its code.
MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "open(sys.argv[1], 'w').write(str(peak))\n"
    "sys.exit(code)\n"
)

WIDE = [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 5_000_000]


def _csv(path, labels):
    rows = [f"{i * 0.1:.1f},{(i * 7) % 5},{y}" for i, y in enumerate(labels)]
    path.write_text("a,b,y\n" + "\n".join(rows) + "\n")
    return path


def _csv_config(tmp_path, labels, *overrides):
    file = _csv(tmp_path / "labels.csv", labels)
    return config.compose(
        [
            "dataset=csv",
            f"dataset.path={file}",
            "dataset.label=y",
            f"results_dir={tmp_path / 'results'}",
            "tracking.enabled=false",
            "trainer.epochs=2",
            *overrides,
        ]
    )


def test_a_label_range_wider_than_max_classes_is_refused_naming_it():
    with pytest.raises(ConfigError) as error:
        label_range.check_label_range("classification", np.array(WIDE), 1000)
    message = str(error.value)
    assert "approach.max_classes=1000" in message and "span 0..5000000" in message
    assert "5,000,001 classes" in message and "approach=regression" in message
    assert message.endswith("Received: label range=0..5000000")


def test_max_classes_is_the_limit_itself():
    label_range.check_label_range("classification", np.array([3, 1002]), 1000)
    with pytest.raises(ConfigError, match="span 3..1003 \\(1,001 classes\\)"):
        label_range.check_label_range("classification", np.array([3, 1003]), 1000)


def test_classification_on_labels_spanning_five_million_fails_before_building_a_network(
    tmp_path, monkeypatch
):
    built = []
    monkeypatch.setattr(models, "build_mlp", lambda *args: built.append(args))
    cfg = _csv_config(tmp_path, WIDE, "approach=classification")
    assert cfg.approach.max_classes == label_range.DEFAULT_MAX_CLASSES == 1000
    with pytest.raises(ConfigError, match="training labels span 0..5000000"):
        train(cfg)
    assert built == []
    assert not (tmp_path / "results").exists()


def test_regression_on_the_same_labels_is_not_refused(tmp_path):
    result = train(_csv_config(tmp_path, WIDE, "approach=regression"))
    assert result.status in ("FINISHED", "FAILED") and result.approach == "regression"


def test_raising_max_classes_reaches_the_memory_guard_with_the_estimate(tmp_path):
    cfg = _csv_config(tmp_path, WIDE, "approach=classification", "approach.max_classes=10000000")
    with pytest.raises(ConfigError) as error:
        train(cfg)
    message = str(error.value)
    assert "trainer.max_memory_mb=4096" in message
    assert "largest layer pre_activation (64 x 5000001)" in message
    estimate = float(message.rpartition("estimate=")[2].split()[0])
    # 64-64 MLP, 5,000,001 outputs: the output layer alone is 65 x 5e6 weights x 5 copies x 4 B
    assert estimate > 65 * 5_000_001 * 5 * 4 / 2**20


def test_a_huge_hidden_layer_is_refused_with_its_estimate(compose):
    cfg = resolved(compose("approach=regression", "model.hidden_sizes=[100000,100000]"))
    with pytest.raises(ConfigError, match=r"largest layer hidden_1 \(100000 x 100000\)"):
        train(cfg)


def test_the_estimate_is_member_bytes_times_the_members():
    total, layer, _ = memory.memory_estimate_mb(12, [16], 1, "adam", 32, n_val=100, members=3)
    expected = 3 * member_bytes(12, [16], 1, batch_size=32, n_val=100) / 2**20
    assert total == pytest.approx(expected) and layer == "hidden_0 (12 x 16)"


def test_a_limit_below_the_estimate_refuses_a_group_that_one_run_fits():
    memory.check_memory(12, [16], 1, "adam", 32, 100, limit_mb=1, members=1)
    with pytest.raises(ConfigError, match="for 1000 members trained together"):
        memory.check_memory(12, [16], 1, "adam", 32, 100, limit_mb=1, members=1000)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("trainer.max_memory_mb=0", "trainer.max_memory_mb must be > 0"),
        ("approach.max_classes=0", "approach.max_classes must be >= 1"),
        (
            "trainer.max_epochs_factor=0",
            r"trainer.max_epochs_factor must be >= 1. Received: trainer.max_epochs_factor=0",
        ),
    ],
)
def test_guard_limits_must_be_positive(compose, override, message):
    extra = ["approach=classification"] if "max_classes" in override else []
    with pytest.raises(ConfigError, match=message):
        validate.validate(resolved(compose(*extra, override)))


def test_constant_training_labels_train_equal_to_the_baseline_and_warn_once(
    tmp_path, caplog, monkeypatch
):
    monkeypatch.setattr(dataset_module, "_warned_constant", set())
    cfg = _csv_config(tmp_path, [3] * 60, "approach=regression")
    with caplog.at_level(logging.WARNING, logger="roundlab.data.dataset"):
        result = train(cfg)
        dataset_module.warn_if_constant("csv", np.full(5, 3))
    warnings = [r.getMessage() for r in caplog.records if r.name == "roundlab.data.dataset"]
    assert warnings == [
        "dataset csv: every training label is 3; every approach can only learn the constant "
        "and equals the baseline"
    ]
    assert result.ok and result.metrics["val"] == result.baseline["val"]


@pytest.mark.slow
def test_the_command_line_refuses_five_million_classes_in_one_line_without_gigabytes(tmp_path):
    file = _csv(tmp_path / "wide.csv", WIDE)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "ROUNDLAB_ROOT": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "roundlab.train",
        "dataset=csv",
        f"dataset.path={file}",
        "dataset.label=y",
        "approach=classification",
        "trainer.epochs=1",
        "tracking.enabled=false",
    ]
    stderr, peak = tmp_path / "stderr.txt", tmp_path / "peak_kb.txt"
    with stderr.open("w") as err:
        # Started from a small process: a child's peak counts the memory of the process it was
        # forked from (Linux carries it over exec), and pytest's own is gigabytes by now.
        proc = subprocess.run(
            [sys.executable, "-c", MEASURED, str(peak), *command],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=err,
            timeout=120,
        )
    assert proc.returncode != 0
    assert (
        stderr.read_text()
        .strip()
        .splitlines()[-1]
        .startswith("config error: approach=classification needs one output per label")
    )
    peak_kb = int(peak.read_text())
    assert peak_kb < 2 * 1024 * 1024  # TensorFlow's import, not a 10 GB softmax
