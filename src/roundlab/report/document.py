"""A report as a list of blocks, rendered once to Markdown and once to HTML (render.py).

Building the content once keeps report.md and report.html saying the same thing. Text may hold
two inline marks, ``**bold**`` and ```code```; everything else is literal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.header):
                raise ValueError(
                    f"every table row must have {len(self.header)} cells like the header. "
                    f"Received: row={row!r}"
                )


@dataclass(frozen=True)
class Figure:
    """A PNG file under the report's figures directory; ``path`` is absolute."""

    path: Path
    caption: str


@dataclass(frozen=True)
class Code:
    text: str


Block = Heading | Paragraph | Bullets | Table | Figure | Code


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    def figures(self) -> list[Figure]:
        return [b for b in self.blocks if isinstance(b, Figure)]
