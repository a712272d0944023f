"""``python -m roundlab.data <name> [key=value ...]``: write data/<name>/ from
conf/dataset/<name>.yaml (the command of the DVC ``generate`` stage).

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
from roundlab.data.build import compose_config, generate_all
from roundlab.data.schemas import require
from roundlab.data.store import save
from roundlab.errors import WriteFailed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m roundlab.data",
        description="Generate data/<name>/ from conf/dataset/<name>.yaml.",
    )
    parser.add_argument("name", help="dataset config name (a file conf/dataset/<name>.yaml)")
    parser.add_argument("overrides", nargs="*", help="key=value parameter overrides")
    parser.add_argument("--data-dir", type=Path, help="parent directory (default: <root>/data)")
    args = parser.parse_args(argv)
    try:
        cfg = compose_config(args.name, args.overrides)
        require(
            cfg.name == args.name,
            f"conf/dataset/{args.name}.yaml must set name: {args.name} (it names data/<name>/)",
            name=cfg.name,
        )
        datasets = generate_all(cfg)
    except (ValueError, FileNotFoundError, HydraException) as error:
        cause = (
            f" ({error.__cause__})" if isinstance(error, HydraException) and error.__cause__ else ""
        )
        print(f"error: {error}{cause}", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())
