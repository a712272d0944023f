"""A reference refuses training labels its family cannot fit, as the networks do: one
``config error:`` line before anything is recorded, not a traceback and a FAILED result."""

import numpy as np
import pytest

from roundlab.engine import references
from roundlab.errors import ConfigError
from roundlab.run import config
from roundlab.run.job import train

from .processes import run


def _csv(path, labels):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(len(labels), 2))
    rows = "".join(f"{a:.4f},{b:.4f},{y}\n" for (a, b), y in zip(x, labels, strict=True))
    path.write_text("a,b,y\n" + rows)
    return path


def test_each_reference_checks_its_labels():
    assert set(references.LABEL_CHECKS) == set(references.FITS)
    with pytest.raises(ConfigError, match="glm_poisson needs non-negative count labels"):
        references.check_labels("glm_poisson", np.array([2, -1, 0]))
    with pytest.raises(ConfigError, match=r"at least two distinct labels.*labels=\[3\]"):
        references.check_labels("ordered_logit", np.array([3, 3, 3]))
    references.check_labels("glm_poisson", np.array([0, 4]))
    references.check_labels("ordered_logit", np.array([-2, 4]))


def test_a_reference_on_labels_it_cannot_fit_writes_nothing(tmp_path, store):
    data = _csv(tmp_path / "constant.csv", [3] * 120)
    cfg = config.compose(
        [
            "dataset=csv",
            f"dataset.path={data}",
            "dataset.label=y",
            "approach=ordered_logit",
            f"results_dir={tmp_path / 'results'}",
        ]
    )
    with pytest.raises(ConfigError, match="ordered_logit needs at least two distinct labels"):
        train(cfg)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("approach", ["glm_poisson", "poisson"])
def test_negative_counts_stop_a_reference_and_a_network_alike_in_one_line(tmp_path, approach):
    data = _csv(tmp_path / "negative.csv", [(i % 7) - 3 for i in range(150)])
    code, _, err, _ = run(
        tmp_path,
        ["dataset=csv", f"dataset.path={data}", "dataset.label=y", f"approach={approach}"],
    )
    assert code == 1
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"config error: approach={approach} needs non-negative count labels in the training "
        "split. Received: lowest training label=-3"
    )
    assert not (tmp_path / "results").exists()
