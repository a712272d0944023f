"""Checks shared by the report tests: the HTML parses with balanced tags, embeds every
figure, and every figure either file refers to exists."""

import re
from html.parser import HTMLParser
from pathlib import Path


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images: list[dict[str, str]] = []
        self.text: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))
        elif tag not in ("meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"unbalanced </{tag}> after {self.stack}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse_html(path: Path) -> _Collector:
    parser = _Collector()
    parser.feed(path.read_text())
    parser.close()
    assert parser.stack == [], f"unclosed tags {parser.stack}"
    return parser


def check_report(reports: Path) -> _Collector:
    """The checks the end-to-end test shares: files exist, HTML parses with balanced tags, every
    figure it refers to exists, and every figure of report.md exists."""
    md = (reports / "report.md").read_text()
    html = parse_html(reports / "report.html")
    assert html.images, "the report has no figure"
    for img in html.images:
        assert img["src"].startswith("data:image/png;base64,"), "HTML must embed its figures"
        assert (reports / img["data-file"]).is_file()
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert linked and all((reports / p).is_file() for p in linked)
    assert len(linked) == len(html.images)
    return html
