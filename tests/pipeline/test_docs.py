"""The project's documents say what the code does: the result-file schema lists every field of
RunResult with the version that added it, the README links it, the licence is pyproject's."""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path

from roundlab import results

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "docs" / "result-schema.md"


def _schema_rows() -> dict[str, int]:
    """field -> its `since` version, from the field table of docs/result-schema.md."""
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| (\d+) \|", SCHEMA.read_text(), re.MULTILINE)
    return {name: int(since) for name, since in rows}


def test_result_schema_documents_exactly_the_fields_of_run_result():
    assert set(_schema_rows()) == {f.name for f in fields(results.RunResult)}


def test_result_schema_versions_are_readable_versions():
    since = set(_schema_rows().values())
    assert since <= set(results.READABLE_VERSIONS)
    assert f"| {results.FORMAT_VERSION} |" in SCHEMA.read_text()


def test_readme_links_the_schema_and_the_parameter_docs():
    readme = (ROOT / "README.md").read_text()
    assert "docs/result-schema.md" in readme and "docs/params.md" in readme


def test_licence_file_is_the_mit_licence_pyproject_declares():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    licence = (ROOT / "LICENSE").read_text()
    assert "MIT" in str(project["license"])
    assert licence.startswith("MIT License\n\nCopyright (c) 2026 the roundlab authors\n")
