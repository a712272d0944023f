"""One training run in MLflow, from its creation to its end.

A single run is a top-level run; a sweep's job is a child of its sweep's parent
(:mod:`roundlab.tracking.parents`). Every run carries the host and process id that own it
(``roundlab.host``, ``roundlab.pid``), so a run left RUNNING by a killed process can be told
from a live one (:mod:`roundlab.tracking.stale_runs`). Artifacts are the resolved config
(``config.yaml``), the history (``history.csv``), the result file and, with
``tracking.log_models``, the model (:mod:`roundlab.tracking.model`). A failed run ends with
status FAILED (KILLED when interrupted).

A run opened ``deferred`` (a stacked group's member, whose run opens and ends within
milliseconds) keeps all but its name for its end, written by the process's background writer
(:mod:`roundlab.tracking.writer`), complete before the process exits: in the default store (an
sqlite file, local artifacts) it is created and ended in one transaction, its id chosen at once
for the result file (:mod:`roundlab.tracking.records`) and its artifacts written at its end
straight into the run's artifact directory; elsewhere, or when it logs its model,
the client creates it at once and its end brings its dataset input, its artifacts in one
``log_artifacts`` of a directory, then its params, tags, whole metric history and final metrics
(:func:`roundlab.tracking.records.end_run`).
"""

from __future__ import annotations

import functools
import logging
import shutil
import tempfile
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from roundlab import paths
from roundlab.tracking import records, writer
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
    run instead of failing it: the result file, not MLflow, is the record the report reads.
    ``deferred``: everything after the run's creation goes with its end, written in the
    background (see the module doc)."""

    def __init__(
        self,
        uri: str | None,
        experiment: str,
        run_name: str,
        sweep_dir: Path | None = None,
        tags: dict[str, str] | None = None,
        log_models: bool = True,
        deferred: bool = False,
    ) -> None:
        self.log_models = log_models
        self.deferred = deferred
        self._client = None
        self._run_id: str | Future | None = None  # a future while a deferred run is created
        self._params: list[Any] = []  # a deferred run's params and dataset, sent with its end
        self._inputs: list[Any] = []
        self._new: records.NewRun | None = None  # a run created with its end, in one go
        try:
            self._client = client(uri)
            exp_id = experiment_id(self._client, experiment)
            tags = {**(tags or {}), **owner(), **origin_tags()}
            if sweep_dir is not None:
                tags["mlflow.parentRunId"] = parent_run(self._client, experiment, sweep_dir)
                tags[SWEEP_TAG] = str(Path(sweep_dir).absolute())
                tags[SWEEP_ID_TAG] = sweep_identity(sweep_dir)[SWEEP_ID_TAG]
            if deferred and not log_models:
                self._new = records.make(self._client, exp_id, run_name, tags)
            if self._new is not None:
                self._run_id = self._new.run_id
            else:
                make = functools.partial(_create, self._client, exp_id, run_name, tags)
                self._run_id = writer.create(make) if deferred else make()
        except Exception as err:  # tracking must never fail a run
            self._disable(err)

    @property
    def run_id(self) -> str | None:
        """The MLflow run's id (waiting for a deferred run's creation), None when tracking is
        off for this run."""
        if isinstance(self._run_id, Future):
            try:
                self._run_id = self._run_id.result()
            except Exception as err:  # tracking must never fail a run
                self._disable(err)
        return self._run_id

    @property
    def active(self) -> bool:
        return self.run_id is not None

    def log_params(self, flat: dict[str, Any]) -> None:
        """Log ``flat`` (name -> value, e.g. :func:`run_params`) as the run's params."""
        from mlflow.entities import Param

        params = [Param(k, str(v)[:MAX_PARAM]) for k, v in flat.items()]
        if self.deferred:
            self._params = params
            return
        self._guard(lambda: self._log_batches(self.run_id, params, [], []))

    def log_dataset(self, dataset: Any) -> None:
        """The training split as the run's dataset input (context ``train``)."""
        if self.deferred and self._run_id is not None:  # kept: no need to wait for the run
            try:
                self._log_dataset(dataset)
            except Exception as err:  # tracking must never fail a run
                self._disable(err)
            return
        self._guard(lambda: self._log_dataset(dataset))

    def _log_dataset(self, dataset: Any) -> None:
        import mlflow.data
        from mlflow.entities import DatasetInput, InputTag
        from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

        source, digest = str(paths.data_dir() / dataset.name), data_digest(dataset.meta)
        key = (dataset.name, digest, source)
        if key not in _datasets:  # its schema and profile are read off the arrays: once
            logged = mlflow.data.from_numpy(
                dataset.train.x,
                source=source,
                targets=dataset.train.y,
                name=dataset.name,
                digest=digest,
            )
            _datasets[key] = logged._to_mlflow_entity()
        context = InputTag(MLFLOW_DATASET_CONTEXT, "train")
        entry = DatasetInput(_datasets[key], tags=[context])
        if self.deferred:
            self._inputs = [entry]
        else:
            self._client.log_inputs(self.run_id, datasets=[entry])

    def set_tag(self, key: str, value: str) -> None:
        self._guard(lambda: self._client.set_tag(self.run_id, key, value))

    def finish(
        self, result: Any, config_yaml: str, result_file: Path, model_file: Path | None = None
    ) -> None:
        """Log metrics, tags and artifacts of the finished or failed run (with ``model_file``,
        its model too, when :attr:`log_models`), then end it; a deferred run's params and
        dataset go with them, in the background."""
        self._guard(lambda: self._finish(result, config_yaml, result_file, model_file))

    def _finish(
        self, result: Any, config_yaml: str, result_file: Path, model_file: Path | None
    ) -> None:
        from mlflow.entities import RunTag

        metrics = final_metrics(result)
        tags = [RunTag(k, v) for k, v in result_tags(result, result_file, model_file).items()]
        if self._new is not None:
            # Written where the run keeps them, now: its row, written later, names that place.
            # One that cannot be written leaves the run recorded without it.
            try:
                _write_artifacts(records.artifact_dir(self._new), config_yaml, result, result_file)
            except Exception as err:  # tracking must never cost the run its row
                log.warning("MLflow run %s: artifacts not written: %s", self._new.run_id, err)
            record, inputs = self._take(tags, metrics)
            end = functools.partial(
                records.record, self._client, self._new, record, inputs, result.status
            )
        else:
            # The artifacts as they are now: the writer logs them after the caller moved on.
            folder = Path(tempfile.mkdtemp(prefix="roundlab-artifacts-"))
            _write_artifacts(folder, config_yaml, result, result_file)
            record, inputs = self._take(tags, metrics)
            model = None
            if model_file is not None and self.log_models:
                model = (result_file, model_file, result.model["features"])
            end = functools.partial(
                self._end, self._client, self.run_id, record, inputs, folder, model, result.status
            )
        if self.deferred:
            writer.submit(end)
        else:
            end()

    def _take(
        self, tags: list[Any], metrics: list[Any]
    ) -> tuple[tuple[list[Any], list[Any], list[Any]], list[Any]]:
        """``((params, tags, metrics), inputs)`` for the run's end, the params and dataset
        handed over once: taken after the artifacts, because a signal while they are written
        ends the record a second time, and that end must still find them."""
        record, inputs = (self._params, tags, metrics), self._inputs
        self._params, self._inputs = [], []
        return record, inputs

    @staticmethod
    def _end(
        mlflow_client: Any,
        run_id: str,
        record: tuple[list[Any], list[Any], list[Any]],
        inputs: list[Any],
        folder: Path,
        model: tuple[Path, Path, list[str]] | None,
        status: str,
    ) -> None:
        """Write a run's dataset input, artifacts and model, then its ``record`` (params, tags,
        metrics) and its end with ``status``: written even when an artifact could not be."""
        try:
            try:
                if inputs:
                    mlflow_client.log_inputs(run_id, datasets=inputs)
                mlflow_client.log_artifacts(run_id, str(folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            if model is not None:
                _log_model(mlflow_client, run_id, *model)
        finally:
            records.end_run(mlflow_client, run_id, *record, status)

    def fail(self, reason: str) -> None:
        """End the run FAILED with ``reason`` (the tag ``roundlab.error``) when its result could
        not be written: there is no result file to log, and the run must not stay RUNNING."""
        self._guard(lambda: self._fail(reason))

    def _fail(self, reason: str) -> None:
        from mlflow.entities import RunTag

        record = (self._params, [RunTag(ERROR_TAG, reason[:MAX_TAG])], [])
        inputs, self._params, self._inputs = self._inputs, [], []
        end = functools.partial(self._fail_end, self._client, self.run_id, record, inputs)
        if self._new is not None:
            end = functools.partial(
                records.record, self._client, self._new, record, inputs, "FAILED"
            )
        if self.deferred:
            writer.submit(end)
        else:
            end()

    @staticmethod
    def _fail_end(mlflow_client: Any, run_id: str, record: tuple, inputs: list) -> None:
        try:
            if inputs:
                mlflow_client.log_inputs(run_id, datasets=inputs)
        finally:
            records.end_run(mlflow_client, run_id, *record, "FAILED")

    def _log_batches(self, run_id: str, params: list, tags: list, metrics: list) -> None:
        for batch in records.batches(params, tags, metrics):
            self._client.log_batch(run_id, **batch)

    def _guard(self, action: Any) -> None:
        if not self.active:
            return
        try:
            action()
        except Exception as err:  # tracking must never fail a run
            self._disable(err)

    def _disable(self, err: Exception) -> None:
        log.warning("MLflow tracking switched off for this run: %s: %s", type(err).__name__, err)
        self._run_id = None


def _create(mlflow_client: Any, exp_id: str, run_name: str, tags: dict[str, str]) -> str:
    return mlflow_client.create_run(exp_id, run_name=run_name, tags=tags).info.run_id


# (name, digest, source) of a dataset -> its MLflow entity, made once per process.
_datasets: dict[tuple[str, str, str], Any] = {}


def _log_model(
    mlflow_client: Any, run_id: str, result_file: Path, model_file: Path, features: list[str]
) -> None:
    """The model as ``runs:/<id>/model``; a failure costs the model, not the run's record."""
    # mlflow.pyfunc costs seconds to import; only runs that log their model need it.
    from roundlab.tracking import model as mlflow_model

    try:
        mlflow_model.log(mlflow_client, run_id, result_file, model_file, features)
    except Exception as err:
        log.warning("the model was not logged to MLflow: %s: %s", type(err).__name__, err)


def _write_artifacts(folder: Path, config_yaml: str, result: Any, result_file: Path) -> None:
    """A run's artifacts in ``folder``: its resolved config, its history and its result file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(config_yaml)
    write_history_csv(result.history, folder / "history.csv")
    shutil.copyfile(result_file, folder / Path(result_file).name)
