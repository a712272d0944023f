"""Hydra's own launcher conformance suites, run against roundlab's vectorised launcher as Hydra's
joblib and submitit plugins run them: with task configs that are not roundlab's, every job takes
the ordinary path, so the launcher must behave exactly as Hydra expects of any launcher."""

import pytest
from hydra import version
from hydra.core.plugins import Plugins
from hydra.plugins.launcher import Launcher
from hydra.test_utils.launcher_common_tests import IntegrationTestSuite, LauncherTestSuite

from hydra_plugins.roundlab_vectorized_launcher.vectorized_launcher import VectorizedLauncher

LAUNCHER = "roundlab_vectorized"


@pytest.fixture(autouse=True)
def hydra_as_in_its_own_test_runs(hydra_restore_singletons):
    """Hydra's suites expect its default version base (1.1 behaviour: a job runs in its own
    directory); roundlab's tests that ran before them in this process composed with
    version_base 1.3, a process-wide setting. Restored afterwards."""
    version.VersionBase.instance().version_base = version._UNSPECIFIED_
    yield


def test_hydra_discovers_the_vectorized_launcher():
    assert VectorizedLauncher.__name__ in [
        x.__name__ for x in Plugins.instance().discover(Launcher)
    ]


@pytest.mark.parametrize("launcher_name, overrides", [(LAUNCHER, [])])
class TestVectorizedLauncher(LauncherTestSuite):
    pass


@pytest.mark.parametrize(
    "task_launcher_cfg, extra_flags",
    [
        (
            {},
            [
                "-m",
                "hydra/hydra_logging=hydra_debug",
                "hydra/job_logging=disabled",
                f"hydra/launcher={LAUNCHER}",
            ],
        )
    ],
)
class TestVectorizedLauncherIntegration(IntegrationTestSuite):
    pass
