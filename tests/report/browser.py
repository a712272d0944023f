"""The report as a browser shows it: Debian's chromium, headless, loads a copy of report.html
with a script that measures every figure once the page has loaded (each <img>: loaded or not,
its natural pixel size and the size it is shown at) and writes the numbers into the page, which
``--dump-dom`` prints."""

from __future__ import annotations

import html as html_text
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

# Where a Debian or Ubuntu machine puts chromium; CHROMIUM names another.
NAMES = ("chromium", "chromium-browser", "google-chrome")
# Headless and quiet: no sandbox (tests may run as root), no GPU, no first-run or network calls.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
PROBE_ID = "figure-probe"
PROBE = (
    "<script>window.addEventListener('load', function () {"
    "  var images = Array.from(document.images).map(function (img) {"
    "    var r = img.getBoundingClientRect();"
    "    return {file: img.dataset.file || img.alt, complete: img.complete,"
    "            natural: [img.naturalWidth, img.naturalHeight], shown: [r.width, r.height]};"
    "  });"
    "  var pre = document.createElement('pre');"
    f"  pre.id = '{PROBE_ID}';"
    "  pre.textContent = JSON.stringify({viewport: window.innerWidth, images: images});"
    "  document.body.appendChild(pre);"
    "});</script>"
)


def find_chromium() -> str | None:
    """The chromium to run: $CHROMIUM, else the first of :data:`NAMES` on PATH; None if none."""
    if os.environ.get("CHROMIUM"):
        return shutil.which(os.environ["CHROMIUM"])
    return next((path for name in NAMES if (path := shutil.which(name))), None)


def measure(chromium: str, html: Path, work: Path, width: int = 1280) -> dict:
    """Every figure of ``html`` as chromium lays it out in a window ``width`` px wide:
    ``{"viewport": px, "images": [{file, complete, natural: [w, h], shown: [w, h]}]}``."""
    page = work / "probe.html"
    page.write_text(html.read_text().replace("</body>", PROBE + "</body>"))
    out = subprocess.run(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={work / 'profile'}",
            f"--window-size={width},1000",
            "--virtual-time-budget=10000",  # lets the load event fire before the dump
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout
    found = re.search(rf'<pre id="{PROBE_ID}">(.*?)</pre>', out, flags=re.S)
    assert found, f"chromium printed no measurements: {out[-500:]!r}"
    return json.loads(html_text.unescape(found.group(1)))


def unreadable(measured: dict) -> list[str]:
    """The figures a reader would not see whole: not loaded, zero-size, or shown narrower than
    their own size (the browser shrank them, and their text with them)."""
    problems = []
    for img in measured["images"]:
        (nw, nh), (sw, _) = img["natural"], img["shown"]
        if not img["complete"] or nw == 0 or nh == 0:
            problems.append(f"{img['file']}: not loaded (natural size {nw}x{nh})")
        elif sw < nw:
            problems.append(f"{img['file']}: shown {sw:.0f} px wide, its own size is {nw} px")
    return problems
