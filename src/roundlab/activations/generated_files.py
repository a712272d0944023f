"""The files generated from the catalogue: roundlab/conf/activation/<name>.yaml and README.md's
table.

The configs are in ``roundlab.paths.CONF_DIR`` (inside the package, so a wheel ships them); the
README belongs to the source checkout only (its root, ``src/roundlab/conf`` three levels down), so
checking or rewriting the files needs a checkout. Every .yaml file in conf/activation/ is
generated: one without a catalogue entry is stale, and ``write_files`` deletes it.
"""

from __future__ import annotations

from pathlib import Path

from roundlab import paths
from roundlab.activations.catalogue import (
    README_BEGIN,
    README_END,
    config_yaml,
    names,
    readme_table,
)

CONFIG_DIR = paths.CONF_DIR / "activation"
README = paths.CONF_DIR.parents[2] / "README.md"


def expected_configs(config_dir: Path = CONFIG_DIR) -> dict[Path, str]:
    """Each catalogued activation's config file and the text it must hold."""
    return {config_dir / f"{name}.yaml": config_yaml(name) for name in names()}


def orphan_configs(config_dir: Path = CONFIG_DIR) -> list[Path]:
    """.yaml files in ``config_dir`` that no catalogue entry generates."""
    return sorted(set(config_dir.glob("*.yaml")) - set(expected_configs(config_dir)))


def readme_with_table(text: str) -> str:
    """``text`` (README.md) with the lines from README_BEGIN to README_END replaced by
    :func:`readme_table`."""
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(
            f"README.md must hold the line {README_BEGIN!r} and after it {README_END!r}, "
            f"between which the activation table is generated. Received: begin at {start}, "
            f"end at {end}"
        )
    return text[:start] + readme_table() + text[end + len(README_END) + 1 :]


def stale_files(config_dir: Path = CONFIG_DIR, readme: Path = README) -> list[Path]:
    """Every generated file that is missing, differs from the catalogue, or has no entry."""
    if not readme.is_file():
        raise FileNotFoundError(
            f"the generated files are checked and written in a source checkout of roundlab "
            f"(its README.md holds the activation table). Received: readme={readme} (missing)"
        )
    stale = [
        path
        for path, text in expected_configs(config_dir).items()
        if not path.is_file() or path.read_text() != text
    ]
    if readme_table() not in readme.read_text():
        stale.append(readme)
    return stale + orphan_configs(config_dir)


def write_files(config_dir: Path = CONFIG_DIR, readme: Path = README) -> list[Path]:
    """Rewrite the stale generated files, delete the orphan configs; return the paths touched."""
    touched = stale_files(config_dir, readme)
    for path, text in expected_configs(config_dir).items():
        if path in touched:
            path.write_text(text)
    if readme in touched:
        readme.write_text(readme_with_table(readme.read_text()))
    for path in orphan_configs(config_dir):
        path.unlink()
    return touched
