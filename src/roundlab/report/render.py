"""Markdown and self-contained HTML from a :class:`~roundlab.report.document.Document`.

report.md links the PNG files under figures/ (relative paths, so the directory can be moved
whole); report.html embeds the same PNGs as base64 data URIs, so the one file can be mailed or
opened anywhere without its figures directory. Each image carries its pixel size and the text
column is wider than the widest figure (plotting.MAX_WIDTH at plotting.DPI: 1100 px), so a
browser shows every figure at its own size, its 10-point text about 14 px tall, and shrinks one
only in a window narrower than that.
"""

from __future__ import annotations

import base64
import html
import re
import struct
from pathlib import Path

from roundlab.report.document import Bullets, Code, Document, Figure, Heading, Paragraph, Table

_INLINE = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`")

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1120px;
       margin: 2rem auto; padding: 0 1rem; line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.92rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.55rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1rem 0 1.5rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9rem; color: #555; }
code, pre { background: #f5f5f5; font-family: ui-monospace, monospace; font-size: 0.88rem; }
pre { padding: 0.6rem; overflow-x: auto; }
caption { caption-side: bottom; text-align: left; font-size: 0.88rem; color: #555;
          padding-top: 0.3rem; }
"""


def to_markdown(doc: Document, base_dir: Path) -> str:
    """Markdown with figure paths relative to ``base_dir`` (the directory report.md lives in)."""
    out = [f"# {doc.title}", ""]
    for block in doc.blocks:
        if isinstance(block, Heading):
            out += ["#" * block.level + " " + block.text, ""]
        elif isinstance(block, Paragraph):
            out += [block.text, ""]
        elif isinstance(block, Bullets):
            out += [f"- {item}" for item in block.items] + [""]
        elif isinstance(block, Table):
            out += [_md_row(block.header), "|" + "|".join("---" for _ in block.header) + "|"]
            out += [_md_row(row) for row in block.rows]
            out += ["", f"*{block.caption}*", ""] if block.caption else [""]
        elif isinstance(block, Figure):
            rel = Path(block.path).resolve().relative_to(Path(base_dir).resolve()).as_posix()
            out += [f"![{_md_alt(block.caption)}]({rel})", "", f"*{block.caption}*", ""]
        elif isinstance(block, Code):
            out += ["```", block.text.rstrip("\n"), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def to_html(doc: Document) -> str:
    """One HTML file with the CSS inline and every figure embedded as a data URI."""
    body: list[str] = [f"<h1>{html.escape(doc.title)}</h1>"]
    for block in doc.blocks:
        if isinstance(block, Heading):
            level = min(max(block.level, 1), 6)
            anchor = re.sub(r"[^a-z0-9]+", "-", block.text.lower()).strip("-")
            body.append(f'<h{level} id="{anchor}">{_inline(block.text)}</h{level}>')
        elif isinstance(block, Paragraph):
            body.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, Bullets):
            items = "".join(f"<li>{_inline(item)}</li>" for item in block.items)
            body.append(f"<ul>{items}</ul>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{_inline(c)}</th>" for c in block.header)
            rows = "".join(
                "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>"
                for row in block.rows
            )
            caption = f"<caption>{_inline(block.caption)}</caption>" if block.caption else ""
            body.append(
                f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
            )
        elif isinstance(block, Figure):
            png = Path(block.path).read_bytes()
            data = base64.b64encode(png).decode("ascii")
            body.append(
                f'<figure><img src="data:image/png;base64,{data}"{_size(png)} '
                f'alt="{html.escape(block.caption, quote=True)}" '
                f'data-file="figures/{html.escape(Path(block.path).name, quote=True)}">'
                f"<figcaption>{_inline(block.caption)}</figcaption></figure>"
            )
        elif isinstance(block, Code):
            body.append(f"<pre><code>{html.escape(block.text)}</code></pre>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(doc.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _size(png: bytes) -> str:
    """`` width="W" height="H"`` from the PNG's header (its IHDR chunk), so the page is laid out
    at the figure's size before the image decodes; empty for bytes that are not a PNG."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return ""
    width, height = struct.unpack(">II", png[16:24])
    return f' width="{width}" height="{height}"'


def _inline(text: str) -> str:
    """Escape, then turn ``**x**`` into <strong> and ```x``` into <code>."""
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        if m.group(1) is not None:
            out.append(f"<strong>{html.escape(m.group(1))}</strong>")
        else:
            out.append(f"<code>{html.escape(m.group(2))}</code>")
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _md_row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _md_alt(text: str) -> str:
    return text.replace("[", "(").replace("]", ")")
