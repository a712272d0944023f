"""What every run leaves behind, whichever engine trained it: its result file, its MLflow run
and one log line. Failures and interruptions once training starts are captured here, in one
place. A result file or model that cannot be written (a full disk, no permission) leaves neither
behind, ends the MLflow run FAILED and raises :class:`roundlab.errors.WriteFailed`."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from roundlab import results
from roundlab.data import Dataset
from roundlab.engine.evaluation import Standardization
from roundlab.engine.outcome import TrainingFailed
from roundlab.errors import WriteFailed
from roundlab.interruption import Interrupted, as_interruption, checkpoint
from roundlab.results import FAILED, FINISHED, KILLED, RunResult
from roundlab.run.config import to_yaml
from roundlab.runs import RunKey
from roundlab.serving import saved_models
from roundlab.tracking import server
from roundlab.tracking.params import run_params
from roundlab.tracking.tracker import RunTracker
from roundlab.versions import package_versions

log = logging.getLogger(__name__)


class Recording:
    """One run's record from its start: ``result`` is filled by training and written, with its
    MLflow run ended, by :meth:`close`. ``sweep_dir`` makes the MLflow run a child of that
    sweep's parent run; ``dataset``, the run's data, is its MLflow dataset input and gives the
    result its ``labels`` (every run that loaded data records them); ``track=False``
    leaves opening the MLflow run to :meth:`start_tracking`."""

    def __init__(
        self,
        cfg: DictConfig,
        key: RunKey,
        device: str | None,
        sweep_dir: Path | None = None,
        dataset: Dataset | None = None,
        track: bool = True,
    ) -> None:
        self.cfg = cfg
        self.key = key
        self.path = key.result_path(cfg.results_dir)
        self.started = time.perf_counter()
        self.result = RunResult(
            status=FINISHED,
            dataset=key.dataset,
            approach=key.approach,
            seed=key.seed,
            activation=key.activation,
            activation_params=key.activation_params,
            config=OmegaConf.to_container(cfg),
            labels=dataset.labels() if dataset is not None else {},
            versions=package_versions(),
            device=device,
        )
        self.dataset = dataset
        self.sweep_dir = sweep_dir
        self.model: Any = None  # the trained keras.Model, once training has finished
        self.tracker: RunTracker | None = None
        self.closed = False  # the result file written and the MLflow run ended
        self._written = False
        self._model_file: Path | None = None
        if track:
            self.start_tracking()

    def start_tracking(self, deferred: bool = False) -> None:
        """Open the run's MLflow run, unless it is open or tracking is off (or its server does
        not answer). A stacked group's member opens it once the group holds the recording, so
        that a signal landing meanwhile still finds the run to close, and ``deferred``: all but
        the run's creation is written with its end, in the background
        (:class:`~roundlab.tracking.tracker.RunTracker`)."""
        if self.tracker is not None or not server.usable(self.cfg.tracking):
            return
        key = self.key
        self.tracker = RunTracker(
            self.cfg.tracking.uri,
            self.cfg.tracking.experiment,
            run_name=key.run_name,
            sweep_dir=self.sweep_dir,
            tags={"roundlab.approach": key.approach, "roundlab.variant": key.variant},
            log_models=_log_models(self.cfg.tracking.log_models, self.sweep_dir),
            deferred=deferred,
        )
        if not deferred:  # a deferred run's id is collected when the result is written
            self.result.mlflow_run_id = self.tracker.run_id
        self.tracker.log_params(run_params(self.result.config))
        if self.dataset is not None:
            self.tracker.log_dataset(self.dataset)

    @contextlib.contextmanager
    def capture(self) -> Iterator[RunResult]:
        """Turn a failure inside the block into a FAILED result: a crash in one job must not end
        the sweep. An :class:`Interrupted` block, or one whose error carries an interruption
        (:func:`roundlab.interruption.as_interruption`), is recorded KILLED (result file and
        MLflow run closed here) and the interruption goes on up, to stop the process."""
        try:
            yield self.result
        except Interrupted as err:
            self._killed(err.reason)
            raise
        except TrainingFailed as err:
            self.fail(str(err))
        except Exception as err:
            interrupted = as_interruption(err)
            if interrupted is None:
                log.exception("training crashed")
                self.fail(f"{type(err).__name__}: {err}")
                return
            self._killed(interrupted.reason)
            raise interrupted from err

    def _killed(self, reason: str) -> None:
        self.result.status, self.result.error = KILLED, reason
        try:
            self.close()
        except WriteFailed as failed:  # the interruption, not the write, ends the process
            log.error("%s", failed)

    def keep(self, model: Any) -> None:
        """The trained network: :meth:`close` saves the model of a finished run beside its
        result file (:mod:`roundlab.serving.saved_models`), with what predicting needs from the
        run's
        ``dataset``."""
        self.model = model

    def fail(self, reason: str) -> None:
        self.result.status, self.result.error = FAILED, reason

    def close(self) -> RunResult:
        """Save a finished run's model, write the result file, end the MLflow run, log one
        line. A signal landing meanwhile does not cut the record off halfway: the steps not yet
        done are done (a second signal is ignored while the first is recorded), then the
        interruption goes on up. Raises WriteFailed (the MLflow run ended FAILED) when either
        file cannot be written."""
        try:
            self._close()
        except Interrupted:
            self._close()
            raise
        except Exception as err:
            interrupted = as_interruption(err)
            if interrupted is None:
                raise
            self._close()
            raise interrupted from err
        return self.result

    def _close(self) -> None:
        result = self.result
        if self.closed:
            return
        if not self._written:
            _warn_if_replacing_another_setup(self.path, result)
            try:
                with self._saved_model() as model_file:
                    if self.tracker is not None:  # a deferred run was created meanwhile
                        result.mlflow_run_id = self.tracker.run_id
                    result.duration_s = time.perf_counter() - self.started
                    results.write(result, self.path)
            except WriteFailed as err:
                result.status, result.error = FAILED, f"write error: {err}"
                if self.tracker is not None:
                    self.tracker.fail(result.error)
                self.closed = True
                raise
            self._model_file = model_file
            self._written = True
        checkpoint("closing")
        if self.tracker is not None:
            self.tracker.finish(result, to_yaml(self.cfg), self.path, self._model_file)
        self.closed = True
        if result.ok:
            log.info(
                "%s FINISHED in %.1fs: val %s", self.path, result.duration_s, result.metrics["val"]
            )
        else:
            log.warning("%s %s: %s", self.path, result.status, result.error)

    @contextlib.contextmanager
    def _saved_model(self) -> Iterator[Path | None]:
        """A finished run's model file, saved under its own name once the block (which writes
        the result file) succeeds, its card in the result; a model an earlier run left at this
        path is removed when this run saves none (failed, killed)."""
        if self.model is None or self.dataset is None or not self.result.ok:
            saved_models.model_path(self.path).unlink(missing_ok=True)
            yield None
            return
        with saved_models.saving(self.model, self.path) as path:
            scale = Standardization.of(self.dataset.train.x, self.cfg.trainer.standardize_features)
            self.result.model = saved_models.ModelCard.of(path.name, self.dataset, scale).to_dict()
            yield path


def _log_models(setting: str, sweep_dir: Path | None) -> bool:
    """``tracking.log_models``: auto logs the models of single runs, not of a sweep's jobs."""
    setting = str(setting).lower()  # true and false on the command line arrive as booleans
    return sweep_dir is None if setting == "auto" else setting == "true"


def _warn_if_replacing_another_setup(path: Path, result: RunResult) -> None:
    """A rerun replaces its own result file; a run of another setup at the same path (a sweep
    over trainer.loss, say) would silently take its place, so say which keys differ."""
    if not path.exists():
        return
    try:
        changed = results.setup_differences(results.read(path).config, result.config)
    except ValueError:  # an unreadable old file: nothing worth keeping
        return
    if changed:
        log.warning(
            "%s held a run of another configuration (%s differ) and is replaced; give runs "
            "that differ there their own results_dir=...",
            path,
            ", ".join(changed),
        )
