"""Figures one can read: never wider than report.html shows at full size, bands inside the range
their metric can take, and no spike where an interval reaches 0 on a log axis."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from synthetic_results import synthetic_runs, write_runs

from roundlab.report import render
from roundlab.report.document import Document, Figure
from roundlab.report.figures import FRACTION, NON_NEGATIVE
from roundlab.report.pipeline import build_report
from roundlab.report.plotting import DPI, MAX_WIDTH, band_edges, new_figure
from roundlab.report.stats import Interval


def _png_size(path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_exact_match_band_stops_at_one_and_zero():
    lo, hi = band_edges([Interval(0.98, 0.05, 5), Interval(0.03, 0.05, 5)], FRACTION)
    np.testing.assert_allclose(lo, [0.93, 0.0])
    np.testing.assert_allclose(hi, [1.0, 0.08])


def test_mae_band_stops_at_zero_and_keeps_its_upper_end():
    lo, hi = band_edges([Interval(0.02, 0.04, 3)], NON_NEGATIVE)
    assert lo[0] == 0.0 and hi[0] == pytest.approx(0.06)


def test_a_band_reaching_zero_on_a_log_axis_is_left_out_instead_of_a_spike():
    intervals = [Interval(0.5, 0.1, 5), Interval(0.01, 0.02, 5), Interval(0.3, None, 1)]
    lo, hi = band_edges(intervals, NON_NEGATIVE, log=True)
    np.testing.assert_allclose(lo[:1], [0.4])
    np.testing.assert_allclose(hi[:1], [0.6])
    assert math.isnan(lo[1]) and math.isnan(hi[1])  # 0.01 - 0.02 < 0: minus infinity on log
    assert math.isnan(lo[2]) and math.isnan(hi[2])  # one seed: no interval at all


def test_a_figure_wider_than_the_report_column_is_refused():
    with pytest.raises(ValueError, match="at most 11.0 inches wide.*width=13.8"):
        new_figure(1, 3, "t")


def test_every_report_figure_is_at_most_1100_px_wide(tmp_path):
    out = build_report(
        write_runs(tmp_path / "results", synthetic_runs()),
        tmp_path / "reports",
        tmp_path,
        gradients=False,
    )
    widths = {p.name: _png_size(p)[0] for p in out.figures}
    assert {"sweep-count.png", "learning-count.png"} <= set(widths)
    assert max(widths.values()) <= MAX_WIDTH * DPI == 1100
    assert widths["learning-count.png"] == 920  # two panels of 4.6 inches side by side


def test_html_gives_each_figure_its_pixel_size(tmp_path):
    png = tmp_path / "f.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", 1050, 1280))
    page = render.to_html(Document("t", [Figure(png, "a figure")]))
    assert ' width="1050" height="1280" ' in page
    assert "max-width: 1120px" in page  # the column holds a 1100 px figure and its border
