"""How numbers are written in the report's tables and sentences."""

from __future__ import annotations

from roundlab.report.stats import Interval


def cell(iv: Interval, bold: bool = False, digits: int = 3) -> str:
    """``0.812 ± 0.021``, bold when asked and there is a value; an em dash when there is none."""
    text = iv.format(digits) if iv.n else "—"
    return f"**{text}**" if bold and iv.n else text


def vector(values: tuple[float, ...]) -> str:
    """``[0.2, 0, 0.2, 0]``."""
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"
