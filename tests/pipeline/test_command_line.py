"""``roundlab`` (the console script, and ``python -m roundlab``): its version is the installed
distribution's, and it names its commands."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from imports import ROOT
from roundlab import __main__ as command_line
from roundlab import versions

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_installed_version_is_pyprojects():
    assert versions.roundlab_version() == VERSION


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as done:
        command_line.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"roundlab {VERSION}\n"


def test_python_m_roundlab_is_the_same_command():
    done = subprocess.run(
        [sys.executable, "-m", "roundlab", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, f"roundlab {VERSION}\n")


def test_help_names_every_command(capsys):
    with pytest.raises(SystemExit) as done:
        command_line.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: roundlab [-h] [--version] {study} ...")
    assert "study: train and compare every approach on a CSV file" in " ".join(out.split())


def test_an_unknown_command_is_refused_naming_the_known_ones(capsys):
    with pytest.raises(SystemExit) as done:
        command_line.main(["trian"])
    assert done.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    # Python 3.12.8 dropped the quotes around the choices
    assert err.replace("'study'", "study").endswith("invalid choice: 'trian' (choose from study)")


def test_the_reports_environment_section_gives_the_installed_version(tmp_path):
    from roundlab.report import environment

    assert environment.tables([], {}, tmp_path)["Code and data"]["roundlab"] == VERSION
