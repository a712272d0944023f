"""roundlab: train networks whose targets are integers, and measure which approach works.

The subpackages are the pipeline's stages, each importing only those below it (a test walks
every import): ``activations`` and ``approaches`` (what a network ends in), ``data``,
``engine`` (how networks train), ``serving`` (saved models), ``tracking`` (MLflow), ``run``
(one job), ``sweep`` (many jobs) and ``report``. Beside them sit the leaves every stage may use
(``errors``, ``paths``, ``versions``, ``metrics``, ``interruption``, ``device``, ``runs``,
``results``) and the two command-line entries ``train`` and ``predict``.
"""

__version__ = "0.1.0"

from roundlab.serving import keras_objects  # noqa: E402

# Saved models load with plain keras.saving.load_model once roundlab is imported.
keras_objects.install()
