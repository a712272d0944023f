"""A finished run's model in MLflow: ``mlflow.pyfunc.load_model(f"runs:/{run_id}/model")``
predicts integers from raw features.

MLflow's Keras flavour alone would hand back the network's raw output (logits for
classification, a real number before rounding), so the model is logged as a small pyfunc
(:class:`IntegerModel`) whose artifacts are the run's ``.keras`` file and its result file: it
applies the training standardisation and the approach's readout
(:class:`roundlab.serving.saved_models.Predictor`), the same code ``python -m roundlab.predict``
runs. It is logged as code (MLflow's models from code): the stored
:mod:`roundlab.tracking.model_code` builds it from the installed roundlab when the model is
loaded, so nothing is pickled, and ``python -m roundlab.predict --run`` refuses a stored model
that would unpickle or run other code (:mod:`roundlab.tracking.model_check`). Its signature is
the training feature columns in (integer or float: :func:`signature`), one ``prediction``
column (long) out. Loading it
needs roundlab installed (``mlflow models serve --env-manager
local``); its pip requirements are listed, not inferred (inference loads the model in a
subprocess: seconds per run).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mlflow.artifacts
import mlflow.pyfunc
import numpy as np
import pandas as pd
from mlflow.exceptions import MlflowException

from roundlab import approaches, paths
from roundlab.serving.saved_models import (
    InputError,
    Predictor,
    feature_matrix,
    reference_refused,
)
from roundlab.tracking.model_check import check_loadable
from roundlab.tracking.server import bound_retries
from roundlab.tracking.store import quiet, root_origin, sqlite_file
from roundlab.versions import package_versions

ARTIFACT_PATH = "model"
URI_ENV = "MLFLOW_TRACKING_URI"
# The installed packages the model needs besides roundlab itself, pinned as installed.
REQUIREMENTS = ("mlflow", "keras", "tensorflow", "tensorflow-cpu", "numpy")
# The model's code, stored with it and run when it is loaded (models from code: no pickle).
CODE_FILE = Path(__file__).with_name("model_code.py")


class IntegerModel(mlflow.pyfunc.PythonModel):
    """Raw features (a DataFrame with the training feature columns) -> integer predictions."""

    def load_context(self, context: Any) -> None:
        self.predictor = Predictor.load(
            Path(context.artifacts["result"]), Path(context.artifacts["keras"])
        )

    def predict(self, context: Any, model_input: pd.DataFrame, params: Any = None) -> Any:
        table = {str(c): model_input[c].tolist() for c in model_input.columns}
        predictions = self.predictor.predict_table(table, "model input")
        return pd.DataFrame({"prediction": predictions})


def signature(features: list[str]) -> Any:
    """Every training feature column, required, of MLflow's ``any`` type; one ``prediction``
    column (long) out.

    Not ``double``: MLflow's schema enforcement refuses an int64 column for a double one ("Can
    not safely convert int64 to float64", since above 2**53 the conversion loses digits), and
    ``pandas.read_csv`` reads a column of whole numbers as int64; nor ``long``, which refuses
    floats. MLflow has no "int or float" type, so the columns are ``any``: enforcement still
    refuses a missing column, and :meth:`IntegerModel.predict` refuses, in one line naming the
    column and row, a value that is not a finite number (as ``python -m roundlab.predict``)."""
    from mlflow.models import ModelSignature
    from mlflow.types import ColSpec, Schema
    from mlflow.types.schema import AnyType

    return ModelSignature(
        inputs=Schema([ColSpec(AnyType(), name, required=True) for name in features]),
        outputs=Schema([ColSpec("long", "prediction")]),
    )


def requirements() -> list[str]:
    installed = package_versions()
    return [f"{name}=={installed[name]}" for name in REQUIREMENTS if name in installed]


@contextmanager
def _tracking_uri(uri: str) -> Iterator[None]:
    """MLflow's model logging goes through its fluent tracking URI: point it at ``uri``, then
    put back the URI and ``$MLFLOW_TRACKING_URI`` (which MLflow's own helper unsets)."""
    from mlflow.tracking._tracking_service import utils

    env = os.environ.get(URI_ENV)
    try:
        with utils._use_tracking_uri(uri):
            yield
    finally:
        if env is not None:
            os.environ[URI_ENV] = env


def log(client: Any, run_id: str, result_file: Path, model_file: Path, features: list[str]) -> None:
    """Log the run's model as ``runs:/<run_id>/model``, through ``client`` (an MlflowClient),
    in the run's experiment (MLflow would otherwise put it in the active, default one)."""
    from mlflow.models import Model

    experiment = client.get_run(run_id).info.experiment_id
    entry = client.create_logged_model(experiment, name=ARTIFACT_PATH, source_run_id=run_id)
    with _tracking_uri(client.tracking_uri):
        Model.log(
            artifact_path=None,
            name=ARTIFACT_PATH,
            flavor=mlflow.pyfunc,
            run_id=run_id,
            model_id=entry.model_id,
            python_model=str(CODE_FILE),
            artifacts={"keras": str(model_file), "result": str(result_file)},
            signature=signature(features),
            pip_requirements=requirements(),
        )


def _check_store_exists(uri: str, run_id: str) -> None:
    """Refuse, naming the file and how it was chosen, an sqlite store that does not exist:
    opening it would create an empty store (in whatever directory the root resolved to) only
    to report that the run is not there."""
    db = sqlite_file(uri)
    if db is None or db.is_file():
        return
    origin = f"${URI_ENV}={uri}" if os.environ.get(URI_ENV) else root_origin(paths.project_root())
    raise InputError(
        f"--run must name a run of an existing MLflow store. Received: --run={run_id}, "
        f"no store at {db} ({origin})"
    )


def _reference_config(uri: str, run_id: str) -> dict[str, Any] | None:
    """The config of run ``run_id`` (from its params, ``dataset.name`` -> ``{"dataset":
    {"name": ...}}``) when it is a reference fit, which logs no model; None otherwise, or when
    the run cannot be read."""
    from roundlab.tracking.store import client

    try:
        params = client(uri).get_run(run_id).data.params
    except MlflowException:
        return None
    if params.get("approach.name") not in approaches.references():
        return None
    config: dict[str, Any] = {"seed": params.get("seed", 0)}
    for key, value in params.items():
        group, _, name = key.partition(".")
        if group in ("dataset", "approach") and name and "." not in name:
            config.setdefault(group, {})[name] = value
    return config


def predict_run(run_id: str, table: dict[str, list[str]], source: str) -> np.ndarray:
    """Integer predictions for ``table`` (column -> values, read from ``source``) from the model
    logged by the MLflow run ``run_id``, on ``$MLFLOW_TRACKING_URI`` or the project's store.
    The model is downloaded and checked before it is loaded: one whose loading would run code
    from the store is refused (:mod:`roundlab.tracking.model_check`). Raises
    :class:`InputError` when the run has no logged model or a model that is refused."""
    quiet()
    bound_retries()  # a store that does not answer costs seconds, as in training
    uri = paths.default_tracking_uri()
    _check_store_exists(uri, run_id)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            local = mlflow.artifacts.download_artifacts(
                artifact_uri=f"runs:/{run_id}/{ARTIFACT_PATH}", dst_path=tmp, tracking_uri=uri
            )
        except MlflowException as err:
            reference = _reference_config(uri, run_id)
            if reference is not None:
                raise reference_refused(f"--run={run_id}", reference) from None
            raise InputError(
                f"--run must name an MLflow run with a logged model. Received: --run={run_id} "
                f"({err.message.splitlines()[0]})"
            ) from None
        # What was checked is what loads: the same local copy, not a second download.
        check_loadable(Path(local), CODE_FILE, run_id)
        model = mlflow.pyfunc.load_model(local)
        features = model.metadata.get_input_schema().input_names()
        frame = pd.DataFrame(feature_matrix(table, features, source), columns=features)
        return model.predict(frame)["prediction"].to_numpy()
