"""report.html in a real browser (headless chromium): every figure loads, has a size, and is
shown at its own size in a 1280 px window, so its text is as large as it was drawn. Skipped
only where no chromium can be found (`make browser` installs Debian's)."""

from __future__ import annotations

import base64
import re

import pytest
from browser import find_chromium, measure, unreadable
from synthetic_results import synthetic_runs, write_runs

from roundlab.report.pipeline import build_report

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium on PATH (nor $CHROMIUM): `make browser` installs Debian's chromium",
)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    results = write_runs(root / "results", synthetic_runs())
    out = build_report(results, root / "reports", root, gradients=False)
    return out


def test_every_figure_loads_and_shows_at_its_own_size_in_a_1280_px_window(report, tmp_path):
    measured = measure(CHROMIUM, report.html, tmp_path)
    assert measured["viewport"] == 1280
    assert len(measured["images"]) == len(report.figures) >= 4
    assert unreadable(measured) == []
    for img in measured["images"]:
        assert img["natural"][0] <= 1100  # the widest figure, plotting.MAX_WIDTH at 100 dpi


def test_a_missing_or_broken_figure_is_caught(report, tmp_path):
    page = report.html.read_text()
    uris = re.findall(r'src="data:image/png;base64,[^"]*"', page)
    broken = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()  # a header and no image
    page = page.replace(uris[0], f'src="data:image/png;base64,{broken}"', 1)
    page = page.replace(uris[1], 'src="figures/absent.png"', 1)
    damaged = tmp_path / "report.html"
    damaged.write_text(page)
    problems = unreadable(measure(CHROMIUM, damaged, tmp_path))
    assert len(problems) == 2 and all("not loaded (natural size 0x0)" in p for p in problems)


def test_a_window_narrower_than_a_figure_is_reported_as_shrinking_it(report, tmp_path):
    measured = measure(CHROMIUM, report.html, tmp_path, width=600)
    assert measured["viewport"] == 600
    assert any("shown" in p for p in unreadable(measured))
