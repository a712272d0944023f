"""The versions that change results or their reading, recorded by every run and the report."""

from __future__ import annotations

import functools
import platform
from importlib import metadata

# tensorflow and tensorflow-cpu ship the same import package: whichever is installed is listed.
PACKAGES = (
    "roundlab",
    "tensorflow",
    "tensorflow-cpu",
    "keras",
    "numpy",
    "scipy",
    "scikit-learn",
    "statsmodels",
    "lightgbm",
    "hydra-core",
    "omegaconf",
    "mlflow",
    "dvc",
    "matplotlib",
)


@functools.cache  # the installed packages do not change while a process runs
def _installed() -> tuple[tuple[str, str], ...]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return tuple(out.items())


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`PACKAGES` (absent ones left out) and Python's."""
    return dict(_installed())
