"""Whether a sweep's jobs are tracked: decided once, in the sweep's own process, before any
multirun starts.

Left to the jobs, a tracking server that is down or hangs would cost every multirun its check
and, under ``warn``, print one warning per process; under ``fail`` the sweep would fail only
once its multiruns did. So the sweep asks the server first (:mod:`roundlab.tracking.server`),
with the settings its jobs will compose: ``enabled`` from the profile's ``tracking``, the URI
from ``$MLFLOW_TRACKING_URI`` or the project's store, the rest from the package's
``conf/tracking/mlflow.yaml``, each overridden by a ``tracking.<key>=`` entry of the profile's
``overrides``. ``fail`` stops the sweep with :class:`~roundlab.errors.TrackingUnreachable` (one
line naming the URI); ``warn`` prints one warning and the multiruns run with
``tracking.enabled=false``. Asking also bounds MLflow's HTTP retries in this process, and so in
every multirun it starts.

Reads YAML only: no Hydra composition, no TensorFlow, so the sweep still starts at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from roundlab import paths
from roundlab.errors import ConfigError
from roundlab.sweep.profile import Profile
from roundlab.tracking import server

# The keys of the tracking config the decision reads, as a profile override may set them.
OVERRIDABLE = ("uri", "on_unreachable", "connect_timeout_s")


@dataclass(frozen=True)
class JobTracking:
    """The ``tracking`` values of the profile's jobs that decide whether they are tracked."""

    enabled: bool
    uri: str
    on_unreachable: str
    connect_timeout_s: float


def job_tracking(profile: Profile) -> JobTracking:
    """The tracking settings the profile's jobs will compose (see the module docstring)."""
    defaults = yaml.safe_load((paths.CONF_DIR / "tracking" / "mlflow.yaml").read_text())
    values = {key: defaults.get(key) for key in OVERRIDABLE}
    values["uri"] = paths.default_tracking_uri()
    for override in profile.overrides:
        key, sep, value = str(override).lstrip("+").partition("=")
        if sep and key.startswith("tracking.") and key[len("tracking.") :] in OVERRIDABLE:
            values[key[len("tracking.") :]] = value.strip().strip("'\"")
    try:
        timeout_s = float(values["connect_timeout_s"])
    except (TypeError, ValueError):
        raise ConfigError(
            f"tracking.connect_timeout_s must be a number of seconds. "
            f"Received: tracking.connect_timeout_s={values['connect_timeout_s']!r}"
        ) from None
    return JobTracking(
        profile.tracking, str(values["uri"]), str(values["on_unreachable"]), timeout_s
    )


def decide(profile: Profile) -> JobTracking:
    """The profile's job tracking, ``enabled`` only when the server answers (or the store is
    local). Raises :class:`~roundlab.errors.TrackingUnreachable` when it does not and the
    policy is ``fail``; warns once when it is ``warn``."""
    tracking = job_tracking(profile)
    if not tracking.enabled or server.usable(tracking):
        return tracking
    return JobTracking(False, tracking.uri, tracking.on_unreachable, tracking.connect_timeout_s)
