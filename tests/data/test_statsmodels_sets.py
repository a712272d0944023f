"""The real datasets statsmodels bundles: the documented sizes and label ranges, every row of
the table exactly once, provenance in meta.json, the same bytes for a seed."""

from __future__ import annotations

import hashlib
from collections import Counter
from importlib import resources

import numpy as np
import pytest
import statsmodels.datasets.anes96
import statsmodels.datasets.randhie

from roundlab.data import compose_config, generate, load, save

from .support import CONF

BUNDLED = {"randhie": statsmodels.datasets.randhie, "anes96": statsmodels.datasets.anes96}
# conf/dataset/<name>.yaml states these: (rows, label range) per split.
DOCUMENTED = {
    "randhie": {
        "train": (13468, [0, 10]),
        "val": (2886, [0, 10]),
        "test": (2886, [0, 10]),
        "extrapolate": (950, [11, 77]),
    },
    "anes96": {"train": (660, [0, 6]), "val": (142, [0, 6]), "test": (142, [0, 6])},
}
LABELS = {"randhie": "mdvis", "anes96": "PID"}


@pytest.fixture(scope="module")
def made():
    return {name: generate(compose_config(name, conf_dir=CONF)) for name in BUNDLED}


@pytest.mark.parametrize("name", BUNDLED)
def test_splits_have_the_documented_sizes_and_label_ranges(made, name):
    meta = made[name].meta
    assert {s: (e["n"], e["label_range"]) for s, e in meta["splits"].items()} == DOCUMENTED[name]


@pytest.mark.parametrize("name", BUNDLED)
def test_every_row_of_the_statsmodels_table_lands_in_exactly_one_split(made, name):
    frame = BUNDLED[name].load_pandas().data
    dataset = made[name]
    # standardize: true in the config; the labels are untouched, so compare label counts and
    # the number of rows, then the raw features with standardisation off.
    labels = np.concatenate([s.y for s in dataset.splits.values()])
    assert Counter(labels.tolist()) == Counter(frame[LABELS[name]].astype(int).tolist())
    raw = generate(compose_config(name, ["standardize=false"], conf_dir=CONF))
    stored = np.concatenate([s.x for s in raw.splits.values()])
    table = frame[raw.meta["feature_names"]].to_numpy(dtype=np.float64).astype(np.float32)
    assert sorted(map(bytes, stored)) == sorted(map(bytes, table))


def test_the_features_are_the_documented_covariates(made):
    assert made["randhie"].meta["feature_names"] == list(
        statsmodels.datasets.randhie.load_pandas().exog_name
    )
    assert made["anes96"].meta["feature_names"] == [
        "logpopul",
        "TVnews",
        "selfLR",
        "ClinLR",
        "DoleLR",
        "age",
        "educ",
        "income",
    ]


@pytest.mark.parametrize("name", BUNDLED)
def test_meta_records_provenance_and_the_hash_of_the_bundled_file(made, tmp_path, name):
    save(made[name], tmp_path / name)
    meta = load(tmp_path / name).meta
    assert {"source", "licence", "citation", "url", "label"} <= set(meta["provenance"])
    assert "public domain" in meta["provenance"]["licence"]
    assert LABELS[name] in meta["provenance"]["label"]
    assert meta["oracle"] is None
    data = resources.files(BUNDLED[name].__name__).joinpath(f"{name}.csv").read_bytes()
    assert meta["sources"] == {
        f"statsmodels/datasets/{name}/{name}.csv": hashlib.sha256(data).hexdigest()
    }


@pytest.mark.parametrize("name", BUNDLED)
def test_a_seed_gives_the_same_bytes_and_another_seed_other_splits(made, name):
    again = generate(compose_config(name, conf_dir=CONF))
    other = generate(compose_config(name, ["seed=1"], conf_dir=CONF))
    assert again.meta["splits"] == made[name].meta["splits"]
    for split, part in made[name].splits.items():
        assert part.x.tobytes() == again.splits[split].x.tobytes()
        assert part.y.tobytes() == again.splits[split].y.tobytes()
    assert other.meta["splits"]["train"] != made[name].meta["splits"]["train"]
