"""``python -m roundlab.data <name> [key=value ...]``: write data/<name>/ from params.yaml's
entry ``datasets.<name>`` (:mod:`roundlab.data.entries`), or from the dataset config
``<name>`` when params.yaml has no such entry (the command of the DVC ``generate`` stage).

``key=value`` overrides the dataset's parameters, e.g.
``python -m roundlab.data csv path=my.csv label=count``. A dataset with resamples is written
whole: every resample in its own data/<name>/resample=<r>/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hydra.errors import HydraException

from roundlab import paths
from roundlab.data import entries
from roundlab.data.build import compose_config, generate_all
from roundlab.data.schemas import require
from roundlab.data.store import save
from roundlab.errors import WriteFailed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m roundlab.data",
        description="Generate data/<name>/ from params.yaml's entry or the dataset config.",
    )
    parser.add_argument("name", help="a dataset of params.yaml `datasets`, or a dataset config")
    parser.add_argument("overrides", nargs="*", help="key=value parameter overrides")
    parser.add_argument("--data-dir", type=Path, help="parent directory (default: <root>/data)")
    parser.add_argument(
        "--params", type=Path, help="params file (default: <project root>/params.yaml)"
    )
    args = parser.parse_args(argv)
    known: dict[str, entries.Entry] = {}
    try:
        known = entries.load(args.params or paths.project_root() / "params.yaml")
        entry = known.get(args.name, entries.Entry(args.name, args.name))
        cfg = compose_config(entry.config, [*entry.overrides, *args.overrides])
        require(
            cfg.name == args.name,
            f"the dataset config {entry.config} must set name: {args.name} (it names data/<name>/)",
            name=cfg.name,
        )
        datasets = generate_all(cfg)
    except HydraException as error:  # a key the config lacks, a value of the wrong type
        what = str(error.__cause__ or error).splitlines()[0]
        where = _refused_by(entry, args.overrides, in_params=args.name in known)
        print(
            f"error: {where} must set existing keys of the dataset config {entry.config}, with "
            f"values of their types. Received: {what}",
            file=sys.stderr,
        )
        return 1
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    dataset = datasets[0]
    try:
        target = save(datasets, (args.data_dir or paths.data_dir()) / dataset.name)
    except WriteFailed as error:  # a full disk, no permission: one line naming the directory
        print(f"write error: {error}", file=sys.stderr)
        return 1
    sizes = ", ".join(f"{split} {len(part)}" for split, part in dataset.splits.items())
    lo, hi = dataset.label_range("train")
    each = f"{len(datasets)} resamples, each about " if len(datasets) > 1 else ""
    print(
        f"{dataset.name}: {each}{sizes} rows; {dataset.n_features} features; "
        f"train labels {lo}..{hi} -> {target}"
    )
    return 0


def _refused_by(entry: entries.Entry, overrides: list[str], in_params: bool) -> str:
    """Where the keys Hydra refused were written: the params.yaml entry's, unless the entry
    composes without the command line's overrides (or has none to compose)."""
    if in_params and overrides:
        try:
            compose_config(entry.config, list(entry.overrides))
        except HydraException:
            return f"params.yaml datasets.{entry.name}"
    if overrides:
        return f"the command line's overrides {overrides}"
    return f"params.yaml datasets.{entry.name}" if in_params else "the dataset config itself"


if __name__ == "__main__":
    sys.exit(main())
