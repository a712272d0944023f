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


def roundlab_version() -> str:
    """The installed distribution's version (a wheel's, or the editable install's): the one
    ``roundlab --version`` and the report give. Sources put on ``sys.path`` without installing
    have none, and say so."""
    try:
        return metadata.version("roundlab")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`PACKAGES` (absent ones left out) and Python's."""
    return dict(_installed())
