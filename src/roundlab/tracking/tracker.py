"""One training run in MLflow, from its creation to its end.

A single run is a top-level run; a sweep's job is a child of its sweep's parent
(:mod:`roundlab.tracking.parents`). Every run carries the host and process id that own it
(``roundlab.host``, ``roundlab.pid``), so a run left RUNNING by a killed process can be told
from a live one (:mod:`roundlab.tracking.stale_runs`). Artifacts are the resolved config
(``config.yaml``), the history (``history.csv``), the result file and, with
``tracking.log_models``, the model (:mod:`roundlab.tracking.model`). A failed run ends with
status FAILED (KILLED when interrupted).
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

from roundlab import paths
from roundlab.tracking.params import (
    ERROR_TAG,
    MAX_PARAM,
    MAX_TAG,
    data_digest,
    final_metrics,
    origin_tags,
    result_tags,
    write_history_csv,
)
from roundlab.tracking.parents import SWEEP_ID_TAG, SWEEP_TAG, parent_run, sweep_identity
from roundlab.tracking.store import client, experiment_id, owner

log = logging.getLogger(__name__)


class RunTracker:
    """One training run in MLflow. A tracking error is logged and switches tracking off for the
    run instead of failing it: the result file, not MLflow, is the record the report reads."""

    def __init__(
        self,
        uri: str | None,
        experiment: str,
        run_name: str,
        sweep_dir: Path | None = None,
        tags: dict[str, str] | None = None,
        log_models: bool = True,
    ) -> None:
        self.run_id: str | None = None
        self.log_models = log_models
        self._client = None
        try:
            self._client = client(uri)
            exp_id = experiment_id(self._client, experiment)
            tags = {**(tags or {}), **owner(), **origin_tags()}
            if sweep_dir is not None:
                tags["mlflow.parentRunId"] = parent_run(self._client, experiment, sweep_dir)
                tags[SWEEP_TAG] = str(Path(sweep_dir).absolute())
                tags[SWEEP_ID_TAG] = sweep_identity(sweep_dir)[SWEEP_ID_TAG]
            self.run_id = self._client.create_run(exp_id, run_name=run_name, tags=tags).info.run_id
        except Exception as err:  # tracking must never fail a run
            self._disable(err)

    @property
    def active(self) -> bool:
        return self.run_id is not None

    def log_params(self, flat: dict[str, Any]) -> None:
        """Log ``flat`` (name -> value, e.g. :func:`run_params`) as the run's params."""
        from mlflow.entities import Param

        params = [Param(k, str(v)[:MAX_PARAM]) for k, v in flat.items()]
        self._guard(
            lambda: [
                self._client.log_batch(self.run_id, params=params[i : i + 100])
                for i in range(0, len(params), 100)
            ]
        )

    def log_dataset(self, dataset: Any) -> None:
        """The training split as the run's dataset input (context ``train``)."""
        self._guard(lambda: self._log_dataset(dataset))

    def _log_dataset(self, dataset: Any) -> None:
        import mlflow.data
        from mlflow.entities import DatasetInput, InputTag
        from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

        logged = mlflow.data.from_numpy(
            dataset.train.x,
            source=str(paths.data_dir() / dataset.name),
            targets=dataset.train.y,
            name=dataset.name,
            digest=data_digest(dataset.meta),
        )
        context = InputTag(MLFLOW_DATASET_CONTEXT, "train")
        entry = DatasetInput(logged._to_mlflow_entity(), tags=[context])
        self._client.log_inputs(self.run_id, datasets=[entry])

    def set_tag(self, key: str, value: str) -> None:
        self._guard(lambda: self._client.set_tag(self.run_id, key, value))

    def finish(
        self, result: Any, config_yaml: str, result_file: Path, model_file: Path | None = None
    ) -> None:
        """Log metrics, tags and artifacts of the finished or failed run (with ``model_file``,
        its model too, when :attr:`log_models`), then end it."""
        self._guard(lambda: self._finish(result, config_yaml, result_file, model_file))

    def _finish(
        self, result: Any, config_yaml: str, result_file: Path, model_file: Path | None
    ) -> None:
        from mlflow.entities import RunTag

        metrics = final_metrics(result)
        tags = [RunTag(k, v) for k, v in result_tags(result, result_file, model_file).items()]
        # One batch per 1000 metrics (MLflow's limit), the tags with the first: each call is
        # a transaction of the store, and a sweep records hundreds of runs.
        for i in range(0, max(len(metrics), 1), 1000):
            batch_tags = tags if i == 0 else []
            self._client.log_batch(self.run_id, metrics=metrics[i : i + 1000], tags=batch_tags)
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "config.yaml").write_text(config_yaml)
            write_history_csv(result.history, Path(tmp) / "history.csv")
            self._client.log_artifact(self.run_id, str(Path(tmp) / "config.yaml"))
            self._client.log_artifact(self.run_id, str(Path(tmp) / "history.csv"))
        self._client.log_artifact(self.run_id, str(result_file))
        if model_file is not None and self.log_models:
            self._log_model(result_file, model_file, result.model["features"])
        # roundlab's statuses (FINISHED, FAILED, KILLED) are MLflow run statuses.
        self._client.set_terminated(self.run_id, result.status)

    def fail(self, reason: str) -> None:
        """End the run FAILED with ``reason`` (the tag ``roundlab.error``) when its result could
        not be written: there is no result file to log, and the run must not stay RUNNING."""
        self._guard(lambda: self._fail(reason))

    def _fail(self, reason: str) -> None:
        self._client.set_tag(self.run_id, ERROR_TAG, reason[:MAX_TAG])
        self._client.set_terminated(self.run_id, "FAILED")

    def _log_model(self, result_file: Path, model_file: Path, features: list[str]) -> None:
        """The model as ``runs:/<id>/model``; a failure costs the model, not the run's record."""
        # mlflow.pyfunc costs seconds to import; only runs that log their model need it.
        from roundlab.tracking import model as mlflow_model

        try:
            mlflow_model.log(self._client, self.run_id, result_file, model_file, features)
        except Exception as err:
            log.warning("the model was not logged to MLflow: %s: %s", type(err).__name__, err)

    def _guard(self, action: Any) -> None:
        if not self.active:
            return
        try:
            action()
        except Exception as err:  # tracking must never fail a run
            self._disable(err)

    def _disable(self, err: Exception) -> None:
        log.warning("MLflow tracking switched off for this run: %s: %s", type(err).__name__, err)
        self.run_id = None
