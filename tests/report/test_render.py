from pathlib import Path

import pytest

from roundlab.report import render
from roundlab.report.document import Document, Figure, Paragraph, Table


def test_table_rows_must_match_the_header():
    with pytest.raises(ValueError, match="every table row must have 2 cells"):
        Table(("a", "b"), (("1",),))


def test_html_escapes_text_and_keeps_the_two_inline_marks():
    doc = Document("t <x>", [Paragraph("a <script>alert(1)</script> **bold** and `x<y`")])
    out = render.to_html(doc)
    assert "<script>" not in out
    assert "<strong>bold</strong>" in out and "<code>x&lt;y</code>" in out


def test_markdown_escapes_pipes_in_table_cells():
    md = render.to_markdown(Document("t", [Table(("a",), (("x | y",),))]), Path("."))
    assert "x \\| y" in md


def test_html_embeds_figures_and_markdown_links_them_relatively(tmp_path):
    png = tmp_path / "figures" / "f.png"
    png.parent.mkdir()
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    doc = Document("t", [Figure(png, "a figure")])
    assert "](figures/f.png)" in render.to_markdown(doc, tmp_path)
    html = render.to_html(doc)
    assert 'src="data:image/png;base64,iVBORw0KGgpmYWtl"' in html
    assert 'data-file="figures/f.png"' in html
