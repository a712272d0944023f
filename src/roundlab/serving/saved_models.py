"""A finished run's trained model, saved beside its result file, and what it takes to predict.

Every finished run saves ``<result stem>.keras`` (``seed=0.keras`` beside ``seed=0.json``): the
whole network, its rounding layers included, loadable by ``keras.saving.load_model(path)`` once
``roundlab`` is imported (:mod:`roundlab.serving.keras_objects` registers the layers). Numpy-backed
activations (``*_np``) load too: the file holds the layer's config (name and parameter), and the
numpy function is looked up again in roundlab's registry; only a TensorFlow SavedModel export
(``model.export``) cannot hold them.

The result file's ``model`` entry (:class:`ModelCard`) holds what turns raw features into the
network's input and its output into integers: the feature names, the data's own standardisation
(``data.standardize=true``, applied when the data were made), the training standardisation
(``trainer.standardize_features``) and the training label range, from which the approach's
readout is rebuilt (argmax + lowest label, or round half to even). :class:`Predictor` applies
them, exactly as the evaluation did, so a model's predictions on a split reproduce the result
file's metrics.
"""

from __future__ import annotations

import contextlib
import shlex
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import keras
import numpy as np
from omegaconf import OmegaConf

from roundlab import approaches, paths, results
from roundlab.data import Dataset
from roundlab.engine.evaluation import Standardization, traced
from roundlab.serving import keras_objects, weights_plan
from roundlab.serving.archive import model_problem


class InputError(ValueError):
    """Features that cannot be fed to a model: a missing column, a non-numeric or NaN value."""


@dataclass(frozen=True)
class ModelCard:
    """``file``: the ``.keras`` file's name, beside the result file; ``mean``/``std``: the
    training standardisation (None when off); ``data_standardization``: ``{"mean", "std"}`` the
    stored features were made with (None for raw features); ``label_range``: the training
    labels' [min, max]."""

    file: str
    features: list[str]
    mean: list[float] | None
    std: list[float] | None
    data_standardization: dict[str, list[float]] | None
    label_range: list[int]

    @classmethod
    def of(cls, file: str, dataset: Dataset, scale: Standardization) -> ModelCard:
        names = dataset.meta.get("feature_names") or [f"x{i}" for i in range(dataset.n_features)]
        return cls(
            file=file,
            features=[str(n) for n in names],
            mean=None if scale.mean is None else [float(v) for v in scale.mean],
            std=None if scale.std is None else [float(v) for v in scale.std],
            data_standardization=dataset.meta.get("standardization"),
            label_range=list(dataset.label_range("train")),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelCard:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def network_input(self, raw: np.ndarray) -> np.ndarray:
        """Raw features (columns in :attr:`features` order) -> the network's float32 input."""
        x = np.asarray(raw, dtype=np.float32)
        if self.data_standardization is not None:  # as roundlab.data.sampling.standardize
            stats = self.data_standardization
            x = ((x.astype(np.float64) - stats["mean"]) / np.asarray(stats["std"])).astype(
                np.float32
            )
        scale = Standardization(
            None if self.mean is None else np.asarray(self.mean, dtype=np.float32),
            None if self.std is None else np.asarray(self.std, dtype=np.float32),
        )
        return scale.apply(x)


def model_path(result_path: Path) -> Path:
    """``.../seed=0.json`` -> ``.../seed=0.keras``."""
    return Path(result_path).with_suffix(".keras")


@contextlib.contextmanager
def saving(model: Any, result_path: Path) -> Iterator[Path]:
    """Save ``model`` beside the result file, without its training setup (the losses and
    metrics are closures over the approach: the saved network needs no compile to predict).

    Keras writes a temporary ``.keras`` name (:func:`roundlab.paths.atomic_path`); the block,
    which writes the result file, runs before it takes its own name, and when the block raises
    the model is dropped: a result file and its model are written together or not at all, and
    a full disk never leaves a truncated model behind. Yields the model's final path."""
    path = model_path(result_path)
    with paths.atomic_path(path) as tmp:
        _save(model, tmp)
        paths.flush(tmp)  # a full disk fails here, before the result file is written
        yield path


# network -> (its uncompiled copy, the copy's weights plan): a stacked group saves one network
# once per member, with the member's weights and parameter loaded into it.
_plans: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _save(model: Any, path: Path) -> None:
    """``model`` as a ``.keras`` file at ``path``, written from its weights plan
    (:mod:`roundlab.serving.weights_plan`): the walk that makes the plan is the one Keras's
    save would make, so the first save costs what Keras's does and each later one about half;
    by Keras when the network has no plan, and again planned when the plan no longer holds."""
    held = _plans.get(model)
    if held is not None and weights_plan.write(*held, path):
        return
    uncompiled = keras.Model(model.input, model.output, name=model.name)
    planned = weights_plan.plan(uncompiled)
    if planned is None:
        uncompiled.save(path)
        return
    _plans[model] = (uncompiled, planned)
    weights_plan.write(uncompiled, planned, path)  # planned just now: its variables hold


def feature_matrix(
    table: Mapping[str, Sequence[Any]], features: Sequence[str], source: str, first_line: int = 2
) -> np.ndarray:
    """The ``features`` columns of ``table`` (column -> values) as a float64 matrix; row ``i``
    is line ``first_line + i`` of ``source`` (a CSV's first data line is 2). Raises
    :class:`InputError` naming the column, and the line of the first bad value."""
    missing = [name for name in features if name not in table]
    if missing:
        raise InputError(
            f"{source} must have every training feature column {list(features)}. "
            f"Received: missing={missing}"
        )
    columns = [_numbers(table[name], name, source, first_line) for name in features]
    return np.stack(columns, axis=1) if columns else np.empty((0, 0))


def _numbers(values: Sequence[Any], column: str, source: str, first_line: int) -> np.ndarray:
    bad = [i for i, v in enumerate(values) if not _is_number(v)]
    if bad:
        raise InputError(
            f"{source} line {first_line + bad[0]}: column {column!r} must hold a finite number. "
            f"Received: {column}={values[bad[0]]!r}"
        )
    return np.asarray([float(v) for v in values], dtype=np.float64)


def _is_number(value: Any) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except (TypeError, ValueError):
        return False


class Predictor:
    """A saved run's model with its :class:`ModelCard`: raw features in, integers out."""

    def __init__(self, card: ModelCard, model: Any, config: Mapping[str, Any]) -> None:
        self.card, self.model = card, model
        self._forward = traced(model, {})  # the graph its run was scored through
        labels = np.asarray(card.label_range, dtype=np.int64)
        self.decode = approaches.build(OmegaConf.create(dict(config)), labels).decode

    @classmethod
    def load(cls, result_path: Path, model_file: Path | None = None) -> Predictor:
        """From a result file (its model beside it, or at ``model_file``)."""
        keras_objects.register()
        result = results.read(result_path)
        if result.approach in approaches.references():
            raise reference_refused(str(result_path), result.config)
        if not result.model:
            raise InputError(
                f"{result_path} must be a finished run that saved its model. "
                f"Received: status={result.status}, model={result.model!r}"
            )
        card = ModelCard.from_dict(result.model)
        path = model_file or Path(result_path).parent / card.file
        return cls(card, _load(path), result.config)

    def predict(self, raw: np.ndarray) -> np.ndarray:
        """Integer predictions (int64) for raw features, columns in ``card.features`` order."""
        if len(raw) == 0:
            return np.empty(0, dtype=np.int64)
        return self.decode(self._forward(self.card.network_input(raw)))

    def predict_table(self, table: Mapping[str, Sequence[Any]], source: str) -> np.ndarray:
        return self.predict(feature_matrix(table, self.card.features, source))


# The keys that make a dataset a CSV file's (and name its file and columns), in a refit command.
CSV_KEYS = ("path", "split_column", "train_path", "val_path", "test_path", "extrapolate_path")
CSV_COLUMNS = ("label", "features")


def reference_refused(source: str, config: Mapping[str, Any]) -> InputError:
    """The one-line refusal to predict from a reference fit (``source``: a result file or
    ``--run=<id>``; ``config``: its resolved config): statsmodels and LightGBM fits are scored
    when they are made and kept as metrics, with no network (nor a fitted model) to load, so the
    message gives the command that fits the same reference again."""
    approach = config["approach"]["name"]
    return InputError(
        f"{source} is a reference fit: references save no network to predict with (the fit "
        f"keeps its metrics, not a model); refit it with `{refit_command(config)}`, or predict "
        f"with a network approach's run. Received: approach={approach}"
    )


def refit_command(config: Mapping[str, Any]) -> str:
    """``python -m roundlab.train ...`` fitting the run of ``config`` again: its dataset (by its
    config's name, or a CSV dataset by its files and columns), approach, method, resample and
    seed; other keys take their defaults."""
    dataset, approach = config["dataset"], config["approach"]
    given = {k: dataset.get(k) for k in (*CSV_KEYS, *CSV_COLUMNS)}
    given = {k: v for k, v in given.items() if v not in (None, "None")}
    if any(k in given for k in CSV_KEYS):
        words = ["dataset=csv", f"dataset.name={dataset['name']}"]
        words += [f"dataset.{k}={v}" for k, v in given.items()]
    else:
        words = [f"dataset={dataset['name']}"]
    words.append(f"approach={approach['name']}")
    if approach.get("method") not in (None, "None"):
        words.append(f"approach.method={approach['method']}")
    if dataset.get("resample") not in (None, "None"):
        words.append(f"dataset.resample={dataset['resample']}")
    words.append(f"seed={config.get('seed', 0)}")
    return shlex.join(["python", "-m", "roundlab.train", *words])


def _load(path: Path) -> Any:
    """The Keras model at ``path``; :class:`InputError` in one line when it cannot load. Keras
    refuses to run a Lambda layer's Python code by default (``safe_mode``), and so does
    roundlab: it saves no such layer, so a file that holds one was not written by it."""
    problem = model_problem(path)
    if problem is not None:
        raise InputError(f"the saved model must be a whole .keras file. Received: {problem}")
    try:
        return keras.saving.load_model(path)
    except Exception as err:
        message = " ".join(str(err).split())
        if "safe_mode" in message:
            raise InputError(
                f"{path} holds Python code (a Lambda layer), which roundlab.predict does not "
                f"run; roundlab saves no such layer. Received: {message.split('. ')[0]}"
            ) from err
        raise InputError(f"{path} could not be loaded: {type(err).__name__}: {message}") from err
