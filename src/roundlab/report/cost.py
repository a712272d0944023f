"""What a numpy-defined activation costs against the same function in TensorFlow ops: the
recorded measurement the report shows for question 5.

The report never times anything while it builds: a timing differs on every run, and the report
must be a function of its inputs. ``bench/numpy_cost.py`` measures forward + backward time of
each numpy twin and of its TensorFlow version, in graph mode and XLA-compiled where the
activation allows it, and records the rows with the machine they came from in
``bench/numpy_cost.json`` (committed; ``make bench`` measures again). ``tf.numpy_function`` runs
on the host under the GIL, so a numpy-backed activation cannot be XLA-compiled: its XLA row has
no time and says why.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from roundlab.paths import atomic_write

GRAPH = "graph (tf.function)"
XLA = "XLA (jit_compile=True)"
RECORD = Path("bench") / "numpy_cost.json"


@dataclass(frozen=True)
class CostRow:
    activation: str
    mode: str
    median_ms: float | None
    note: str


@dataclass(frozen=True)
class Recorded:
    """Measured rows and where they were measured: ``machine`` maps e.g. ``tensorflow``,
    ``cpu cores``, ``values``, ``repeats`` to what the benchmark ran with."""

    rows: list[CostRow]
    command: str
    machine: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def write(recorded: Recorded, path: Path) -> Path:
    return atomic_write(Path(path), json.dumps(recorded.to_dict(), indent=1, sort_keys=True) + "\n")


def read(path: Path) -> Recorded | None:
    """The recorded measurement, or None when ``path`` does not exist (never measured)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text())
        return Recorded(
            [CostRow(**row) for row in raw["rows"]], raw["command"], dict(raw.get("machine", {}))
        )
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise ValueError(
            f"{path} must be a numpy-cost record written by bench/numpy_cost.py; measure again "
            f"with `python bench/numpy_cost.py`. Received: {err!r}"
        ) from err
