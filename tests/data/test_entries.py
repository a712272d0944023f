"""params.yaml's dataset entries by value (roundlab.data.entries): a CSV dataset is one entry,
a dataset config states only what differs from the config it starts from."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab import data
from roundlab.data import entries
from roundlab.data.__main__ import main
from roundlab.sweep.plan import plan
from roundlab.sweep.profile import parse_profile


def _csv(path, rows=60):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, 2))
    y = np.clip(np.round(x[:, 0] + 2), 0, 4).astype(int)
    lines = ["a,b,y", *(f"{p:.4f},{q:.4f},{t}" for (p, q), t in zip(x, y, strict=True))]
    path.write_text("\n".join(lines) + "\n")
    return y


def test_an_entry_without_a_config_of_its_name_is_a_csv_file_with_its_keys_quoted():
    got = entries.parse({"fair": {"path": "inputs/a,b.csv", "label": "y", "features": ["a"]}})
    assert got["fair"] == entries.Entry(
        "fair", "csv", ("name=fair", "path='inputs/a,b.csv'", "label='y'", "features=['a']")
    )


def test_an_entry_of_a_config_name_keeps_that_config_and_overrides_its_keys():
    got = entries.parse({"affine": {}, "big": {"config": "affine", "n_train": 6000}})
    assert got["affine"] == entries.Entry("affine", "affine", ())
    assert got["big"] == entries.Entry("big", "affine", ("name=big", "n_train=6000"))


def test_an_entry_naming_an_unknown_config_is_refused_with_its_value():
    with pytest.raises(ValueError, match=r"datasets\.x\.config must name .* config='nope'"):
        entries.parse({"x": {"config": "nope"}})


def test_an_entry_name_that_would_leave_the_data_directory_is_refused():
    with pytest.raises(ValueError, match="params.yaml datasets"):
        entries.parse({"../up": {}})


def test_a_dataset_config_with_only_path_and_label_composes(tmp_path):
    conf = tmp_path / "dataset"
    conf.mkdir()
    (conf / "mine.yaml").write_text(
        "defaults:\n  - csv\n  - _self_\nname: mine\npath: in.csv\nlabel: y\n"
    )
    from roundlab import paths

    (conf / "csv.yaml").write_text((paths.CONF_DIR / "dataset" / "csv.yaml").read_text())
    cfg = data.read_config("mine", conf_dir=tmp_path)
    assert (cfg.name, cfg.generator, cfg.path, cfg.label) == ("mine", "csv", "in.csv", "y")
    assert (cfg.val_fraction, cfg.test_fraction, cfg.extrapolate_quantile) == (0.15, 0.15, 0)


def test_a_base_schema_alone_names_the_missing_keys_and_how_to_start_from_a_config(tmp_path):
    conf = tmp_path / "dataset"
    conf.mkdir()
    (conf / "mine.yaml").write_text("defaults:\n  - base_csv\nname: mine\npath: a\nlabel: y\n")
    with pytest.raises(
        ValueError, match=r"list that config, e\.g\. `csv`.*missing=\['seed', 'standardize'"
    ):
        data.read_config("mine", conf_dir=tmp_path)


def test_the_generate_command_writes_a_params_entry_by_value(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    (tmp_path / "inputs").mkdir()
    labels = _csv(tmp_path / "inputs" / "mine.csv")
    (tmp_path / "params.yaml").write_text(
        "datasets:\n  mine: {path: inputs/mine.csv, label: y, test_fraction: 0.2}\n"
    )
    assert main(["mine"]) == 0, capsys.readouterr().err
    stored = data.load("mine", data_dir=tmp_path / "data")
    assert stored.meta["params"]["test_fraction"] == 0.2
    assert sum(len(s.y) for s in stored.splits.values()) == len(labels)


@pytest.mark.parametrize(
    ("entry", "overrides", "blamed"),
    [
        ("{n_train: 50}", ["n_trian=5"], "the command line's overrides ['n_trian=5']"),
        ("{n_trian: 50}", ["n_train=60"], "params.yaml datasets.count"),
        ("{n_trian: 50}", [], "params.yaml datasets.count"),
    ],
    ids=["typo-on-the-command-line", "typo-in-params", "typo-in-params-alone"],
)
def test_a_key_the_dataset_config_lacks_is_blamed_where_it_was_written(
    tmp_path, monkeypatch, capsys, entry, overrides, blamed
):
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    (tmp_path / "params.yaml").write_text(f"datasets:\n  count: {entry}\n")
    assert main(["count", *overrides]) == 1
    typo = "n_trian"
    assert capsys.readouterr().err == (
        f"error: {blamed} must set existing keys of the dataset config count, with values of "
        f"their types. Received: Key '{typo}' not in 'CountConfig'\n"
    )
    assert not (tmp_path / "data").exists()


def test_a_profile_without_datasets_trains_every_entry_composed_from_its_config():
    known = entries.parse({"count": {}, "mine": {"path": "inputs/mine.csv", "label": "y"}})
    profile = parse_profile("p", {"seeds": [0], "approaches": ["regression"]}, known)
    assert profile.datasets == ("count", "mine")
    runs = plan(profile, resamples_of=lambda *_: 1)
    overrides = {m.family: m.overrides for m in runs}
    assert "dataset=count" in overrides["approaches-count"]
    mine = overrides["approaches-mine"]
    assert "dataset=csv" in mine and "dataset.name=mine" in mine
    assert "dataset.path='inputs/mine.csv'" in mine
    assert {r.dataset for m in runs for r in m.runs} == {"count", "mine"}


@pytest.mark.parametrize("path", ["inputs/it's.csv", "inputs\\a.csv", "x${oc.env:HOME}.csv"])
def test_a_value_hydra_and_yaml_would_read_differently_is_refused(path):
    with pytest.raises(ValueError, match=r"must not hold a quote, a backslash or '\$\{'"):
        entries.parse({"mine": {"path": path, "label": "y"}})


def test_an_entry_that_is_neither_a_config_nor_a_csv_names_the_configs():
    with pytest.raises(
        ValueError, match=r"datasets\.affin must name a dataset config \[.*'affine'"
    ):
        entries.parse({"affin": {"n_train": 100}})
