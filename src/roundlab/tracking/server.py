"""Whether runs can be tracked: a remote MLflow server is asked once per process, briefly.

MLflow's HTTP client retries a dead server with exponential back-off (7 attempts: minutes for
a run of seconds), and each job of a sweep would pay that again. So before training,
:func:`usable` asks the server's health endpoint (``<uri>/health``, which ``mlflow server``
answers with ``OK``) with a timeout of ``tracking.connect_timeout_s`` seconds, and bounds
MLflow's own retries for the rest of the process, and the processes it starts, through their
environment variables (:data:`RETRY_ENV`, set only where the user has not). An HTTP request,
not a TCP connection: a server that accepts connections but never answers (hung, or a proxy
whose backend is gone) would pass a TCP check and then cost every MLflow call its retries.
A local store (``sqlite:///...``, a file path) has no server to reach and is not checked.

When the server does not answer, ``tracking.on_unreachable`` decides:

- ``fail``: stop before training with :class:`TrackingUnreachable`, one line naming the URI;
- ``warn``: one warning, then the process trains untracked (result files are written as usual);
- ``auto``: ``fail`` when the URI was given explicitly (``$MLFLOW_TRACKING_URI`` or a
  ``tracking.uri`` other than the project's default sqlite store), ``warn`` otherwise.
"""

from __future__ import annotations

import http.client
import logging
import os
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlparse

from roundlab import paths
from roundlab.errors import ConfigError, TrackingUnreachable

log = logging.getLogger(__name__)

ON_UNREACHABLE = ("auto", "fail", "warn")
# At most 3 attempts 1 s and 2 s apart, 10 s each: a server that dies mid-sweep costs a job
# seconds before RunTracker switches tracking off for it (MLflow's defaults: 7 attempts, 120 s).
RETRY_ENV = {
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "10",
}
REMOTE_SCHEMES = ("http", "https")

# uri -> whether to track; one check per process, whatever the number of jobs it runs.
_verdicts: dict[str, bool] = {}


def usable(tracking: Any) -> bool:
    """Whether to track runs with the ``tracking`` config (enabled, uri, on_unreachable,
    connect_timeout_s). Raises :class:`TrackingUnreachable` under the fail policy."""
    if not tracking.enabled:
        return False
    uri = str(tracking.uri)
    if uri not in _verdicts:
        _verdicts[uri] = _decide(uri, str(tracking.on_unreachable), tracking.connect_timeout_s)
    return _verdicts[uri]


class Unreachable(TrackingUnreachable):
    """:class:`~roundlab.errors.TrackingUnreachable` as this module raises it: ``problem``
    names the server and why, ``advice`` what a job's config can do about it; an entry point
    whose settings live elsewhere gives its own with :meth:`advising`."""

    def __init__(self, problem: str, advice: str) -> None:
        super().__init__(f"{problem}; {advice}")
        self.problem, self.advice = problem, advice

    def advising(self, advice: str) -> Unreachable:
        return Unreachable(self.problem, advice)


def _decide(uri: str, on_unreachable: str, timeout_s: float) -> bool:
    bound_retries()
    problem = unreachable(uri, timeout_s)
    if problem is None:
        return True
    message = f"MLflow tracking server {uri} is not reachable ({problem})"
    if policy(uri, on_unreachable) == "fail":
        raise Unreachable(
            message,
            "start it, or train untracked with tracking.on_unreachable=warn "
            "or tracking.enabled=false",
        )
    log.warning("%s: training untracked, result files are written as usual", message)
    return False


def policy(uri: str, on_unreachable: str) -> str:
    """``fail`` or ``warn``: ``auto`` resolved by whether the URI was given explicitly."""
    check_on_unreachable(on_unreachable)
    if on_unreachable != "auto":
        return on_unreachable
    explicit = bool(os.environ.get("MLFLOW_TRACKING_URI")) or uri != paths.default_tracking_uri()
    return "fail" if explicit else "warn"


def check_on_unreachable(value: str) -> None:
    """Refuse a ``tracking.on_unreachable`` outside :data:`ON_UNREACHABLE`."""
    if value not in ON_UNREACHABLE:
        raise ConfigError(
            f"tracking.on_unreachable must be one of {list(ON_UNREACHABLE)}. "
            f"Received: tracking.on_unreachable={value!r}"
        )


def unreachable(uri: str, timeout_s: float) -> str | None:
    """Why the server of ``uri`` does not answer its health endpoint with a success in
    ``timeout_s`` seconds (per connection attempt and per read), or None (also for a local
    store, which has no server)."""
    if urlparse(uri).scheme not in REMOTE_SCHEMES:
        return None
    health = f"{uri.rstrip('/')}/health"
    try:
        with urllib.request.urlopen(health, timeout=timeout_s) as response:
            response.read(64)
    except urllib.error.HTTPError as err:
        return f"{health} answered HTTP {err.code}"
    except urllib.error.URLError as err:  # the connection failed: refused, timed out, no host
        return f"{type(err.reason).__name__}: {err.reason}"
    except (OSError, http.client.HTTPException) as err:  # connected, then no (valid) answer
        return f"{type(err).__name__}: {err or 'no answer'}"
    return None


def bound_retries() -> None:
    """Put :data:`RETRY_ENV` in the environment where the user has not set those variables."""
    for name, value in RETRY_ENV.items():
        os.environ.setdefault(name, value)
