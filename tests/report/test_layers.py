"""The report's three layers stay apart: computing without matplotlib, figures without
TensorFlow, and no function in report/ longer than 60 lines."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import roundlab.report

REPORT = Path(roundlab.report.__file__).parent
COMPUTE = (
    "selection",
    "stats",
    "headline",
    "curves",
    "answers",
    "gradcheck",
    "handwritten",
    "cost",
    "gradients",
    "environment",
    "dvc_files",
)
FIGURES = ("plotting", "figures", "activation_figures")


def _modules_after_import(modules: tuple[str, ...]) -> set[str]:
    code = (
        "import sys\n"
        + "".join(f"import roundlab.report.{m}\n" for m in modules)
        + "print('\\n'.join(sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return set(out.split())


def test_compute_modules_do_not_import_matplotlib():
    loaded = _modules_after_import(COMPUTE)
    assert "roundlab.report.gradients" in loaded
    assert not {m for m in loaded if m.split(".")[0] == "matplotlib"}


def test_figure_modules_do_not_import_tensorflow():
    loaded = _modules_after_import(FIGURES)
    assert "matplotlib" in loaded
    assert "tensorflow" not in loaded


@pytest.mark.parametrize("path", sorted(REPORT.glob("*.py")), ids=lambda p: p.name)
def test_no_function_is_longer_than_60_lines(path):
    tree = ast.parse(path.read_text())
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > 60
    ]
    assert long == []
