"""Constants and helpers of the data tests (fixtures are in conftest.py)."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "src" / "roundlab" / "conf"
BUILTIN = ["affine", "count", "digit_sum", "poisson", "diabetes"]
GENERATORS = [*BUILTIN, "csv"]
# Real data from statsmodels: no size parameters, and anes96 has no extrapolate split.
BUNDLED = ["randhie", "anes96"]
SMALL_SIZES = ["n_train=80", "n_val=30", "n_test=30", "n_extrapolate=30"]


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def digest(meta: dict) -> str:
    """SHA-256 over the recorded SHA-256 of every array of a dataset's meta."""
    parts = [meta["splits"][s][p]["sha256"] for s in sorted(meta["splits"]) for p in ("x", "y")]
    return hashlib.sha256("".join(parts).encode()).hexdigest()
