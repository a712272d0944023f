"""roundlab: train networks whose targets are integers, and measure which approach works.

The subpackages are the pipeline's stages, each importing only those below it (a test walks
every import): ``activations`` and ``approaches`` (what a network ends in), ``data``,
``engine`` (how networks train), ``serving`` (saved models), ``tracking`` (MLflow), ``run``
(one job), ``sweep`` (many jobs) and ``report``. Beside them sit the leaves every stage may use
(``errors``, ``paths``, ``versions``, ``metrics``, ``interruption``, ``device``, ``runs``,
``results``) and the two command-line entries ``train`` and ``predict``.

TensorFlow's start-up noise is silenced here, because every entry point (``python -m
roundlab.train``, ``.sweep``, ``.predict``, ``.report``, ``.data``, ``.activations``, the Hydra
launcher plugin) imports this package before TensorFlow:

- ``TF_CPP_MIN_LOG_LEVEL=3`` (unless set): TensorFlow's C++ log keeps none of its INFO, WARNING
  and ERROR lines. Level 2 still printed ``E0000 … NodeDef mentions attribute
  use_unbounded_threadpool`` once per training run (a tf.data attribute the runtime does not
  know; training is unaffected); an error that matters reaches Python as an exception.
- Two lines are logged while ``import tensorflow`` runs, before TensorFlow's log reads that
  variable: ``WARNING: All log messages before absl::InitializeLog() …`` and ``oneDNN custom
  operations are on …``, each twice. No variable hides them but ``TF_ENABLE_ONEDNN_OPTS=0``,
  which changes the arithmetic, so the import runs with file descriptor 2 sent to a temporary
  file and everything else written there is passed on to stderr once it ends.
"""

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

__version__ = "0.1.0"

IMPORT_NOISE = re.compile(
    r"All log messages before absl::InitializeLog\(\) is called|oneDNN custom operations are on"
)


@contextlib.contextmanager
def _stderr_without_import_noise() -> Iterator[None]:
    """Send file descriptor 2 to a temporary file for the block, then write what it caught to
    stderr, but the lines :data:`IMPORT_NOISE` matches."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to keep quiet
        yield
        return
    with tempfile.TemporaryFile() as caught:
        sys.stderr.flush()
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            lines = caught.read().decode(errors="replace").splitlines(keepends=True)
            kept = "".join(line for line in lines if not IMPORT_NOISE.search(line))
            if kept:
                sys.stderr.write(kept)
                sys.stderr.flush()


from roundlab.serving import keras_objects  # noqa: E402


def _quietly(run_module: Any, module: Any) -> None:
    with _stderr_without_import_noise():
        run_module(module)


if "tensorflow" not in sys.modules:
    # Watches ``tensorflow`` as keras_objects watches ``keras``: the import runs quietly.
    sys.meta_path.insert(0, keras_objects.ImportHook("tensorflow", _quietly))

# Saved models load with plain keras.saving.load_model once roundlab is imported.
keras_objects.install()
