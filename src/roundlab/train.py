"""Train one network on integer labels and evaluate it: ``train(cfg) -> RunResult``.

``python -m roundlab.train [overrides]`` runs one job, ``python -m roundlab.train -m ...`` a
sweep, ``python -m roundlab.train --cfg job`` prints the resolved config. Every run writes its
result file (finished or failed) and logs to MLflow. In a multirun a failing job never raises
out of the Hydra task, so the sweep goes on; it returns the worst objective value instead.
"""

from __future__ import annotations

import logging
import math
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import hydra  # noqa: E402  (TensorFlow reads TF_CPP_MIN_LOG_LEVEL when first imported)
import numpy as np  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from roundlab import callbacks, config, device, paths, results  # noqa: E402
from roundlab.results import FAILED, FINISHED, RunResult  # noqa: E402
from roundlab.versions import package_versions  # noqa: E402

log = logging.getLogger(__name__)


class TrainingFailed(Exception):
    """A run that cannot train (no gradient, NaN loss): recorded as FAILED with this reason."""


def train(cfg: DictConfig, sweep_dir: Path | None = None) -> RunResult:
    """Train and evaluate the run ``cfg`` describes, write its result file, log it to MLflow.

    Raises :class:`roundlab.config.ConfigError` for a config that cannot run, and lets data
    errors propagate (nothing is written then); any failure once training starts (no gradient,
    NaN loss, a crash) is returned as a FAILED result instead. ``sweep_dir`` makes the MLflow
    run a child of that sweep's parent run.
    """
    cfg = _resolved(cfg)
    config.validate(cfg)
    started = time.perf_counter()

    import keras
    import tensorflow as tf
    from tensorflow.python.framework.config import disable_op_determinism

    from roundlab import approaches, data, tracking

    keras.backend.clear_session()  # free the previous job's graphs when jobs share a process
    keras.utils.set_random_seed(cfg.seed)
    # Set either way: a job of a sweep inherits the process state of the previous one.
    if cfg.trainer.deterministic:
        tf.config.experimental.enable_op_determinism()
    else:
        disable_op_determinism()
    dev = device.select(cfg.trainer.mixed_precision)

    dataset = data.materialize(cfg.dataset)
    split, _, _ = config.objective(cfg)
    if split not in dataset.splits:
        raise config.ConfigError(
            f"objective needs a split the dataset {dataset.name} does not have. "
            f"Received: objective={cfg.objective!r}"
        )
    approach = approaches.build(cfg, dataset.train.y)
    activation = approach.activation
    result = RunResult(
        status=FINISHED,
        dataset=dataset.name,
        approach=cfg.approach.name,
        seed=cfg.seed,
        activation=activation.name if activation else None,
        activation_params=dict(activation.params) if activation else {},
        config=OmegaConf.to_container(cfg),
        versions=package_versions(),
        device=str(dev),
    )
    path = results.result_path(
        Path(cfg.results_dir),
        result.dataset,
        result.approach,
        result.activation,
        result.activation_params,
        cfg.seed,
    )
    tracker = None
    if cfg.tracking.enabled:
        tracker = tracking.RunTracker(
            cfg.tracking.uri,
            cfg.tracking.experiment,
            run_name=f"{result.approach}/{result.variant}/seed={cfg.seed}",
            sweep_dir=sweep_dir,
            tags={"roundlab.approach": result.approach, "roundlab.variant": result.variant},
        )
        tracker.log_params(result.config)
        result.mlflow_run_id = tracker.run_id

    try:
        jit = _fit_and_evaluate(cfg, dataset, approach, result)
        if tracker is not None:
            tracker.set_tag("roundlab.jit_compile", str(jit).lower())
    except TrainingFailed as err:
        result.status, result.error = FAILED, str(err)
    except Exception as err:  # a crash in one job must not end the sweep: record it
        log.exception("training crashed")
        result.status, result.error = FAILED, f"{type(err).__name__}: {err}"
    result.duration_s = time.perf_counter() - started
    _warn_if_replacing_another_setup(path, result)
    results.write(result, path)
    if tracker is not None:
        tracker.finish(result, OmegaConf.to_yaml(cfg), path)
    if result.ok:
        log.info("%s FINISHED in %.1fs: val %s", path, result.duration_s, result.metrics["val"])
    else:
        log.warning("%s FAILED: %s", path, result.error)
    return result


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


def _fit_and_evaluate(cfg: DictConfig, dataset: Any, approach: Any, result: RunResult) -> bool:
    """Fill ``result`` with history and metrics; returns whether the model ran under XLA."""
    import keras

    from roundlab import metrics, models

    x = _features(cfg, dataset)
    y_train = dataset.train.y.astype(np.float32)
    network = models.build_mlp(dataset.n_features, cfg.model, approach)
    jit = config.jit_setting(cfg)
    if jit is None:
        jit = network.supports_jit and not cfg.trainer.deterministic
    log.info("XLA compilation %s", "on" if jit else "off")
    _check_gradients(network.model, approach, x["train"], y_train, cfg)
    network.model.compile(
        optimizer=keras.optimizers.get(
            {
                "class_name": cfg.trainer.optimizer,
                "config": {"learning_rate": cfg.trainer.learning_rate},
            }
        ),
        loss=approach.loss,
        metrics=approach.metrics(),
        jit_compile=jit,
    )
    history = network.model.fit(
        x["train"],
        y_train,
        validation_data=(x["val"], dataset.val.y.astype(np.float32)),
        batch_size=cfg.trainer.batch_size,
        epochs=cfg.trainer.epochs,
        shuffle=True,
        callbacks=[keras.callbacks.TerminateOnNaN()],
        verbose=cfg.trainer.verbose,
    ).history
    result.history = {k: [float(v) for v in values] for k, values in history.items()}
    losses = result.history.get("loss", [])
    if any(not math.isfinite(v) for v in losses):
        epoch = next(i for i, v in enumerate(losses) if not math.isfinite(v))
        raise TrainingFailed(
            f"loss became NaN at epoch {epoch} (trainer.learning_rate="
            f"{cfg.trainer.learning_rate}); training stopped"
        )
    for name, split in dataset.splits.items():
        if name == "train":
            continue
        predicted = approach.decode(_predict(network.model, x[name]))
        result.metrics[name] = metrics.integer_metrics(split.y, predicted)
        result.baseline[name] = metrics.baseline_metrics(dataset.train.y, split.y)
    result.zero_grad_fraction = zero_grad_fraction(network, approach, x["train"], y_train)
    return jit


def _features(cfg: DictConfig, dataset: Any) -> dict[str, np.ndarray]:
    """Each split's features, standardised with the training split's mean and std if asked."""
    xs = {name: split.x.astype(np.float32) for name, split in dataset.splits.items()}
    if not cfg.trainer.standardize_features:
        return xs
    mean = xs["train"].mean(axis=0)
    std = xs["train"].std(axis=0)
    std[std == 0] = 1.0  # a constant feature stays constant instead of turning into NaN
    return {name: (x - mean) / std for name, x in xs.items()}


def _check_gradients(
    model: Any, approach: Any, x: np.ndarray, y: np.ndarray, cfg: DictConfig
) -> None:
    """Fail before fitting when the loss has no gradient for some weights (hard_round)."""
    import tensorflow as tf

    n = min(len(x), cfg.trainer.batch_size)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(approach.loss(y[:n], model(x[:n], training=True)))
    grads = tape.gradient(loss, model.trainable_variables)
    missing = [v.path for v, g in zip(model.trainable_variables, grads, strict=True) if g is None]
    if missing:
        used = [cfg.model.hidden_activation]
        if approach.activation is not None:
            used.append(cfg.activation.name)
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise TrainingFailed(
            f"no gradient: the loss has no gradient with respect to {len(missing)} of "
            f"{len(grads)} weight tensors ({shown}); an activation on their path has none "
            f"(activations: {', '.join(used)})"
        )


def zero_grad_fraction(
    network: Any, approach: Any, x: np.ndarray, y: np.ndarray, batch: int = 4096
) -> float:
    """Fraction of training examples whose loss gradient w.r.t. the output unit before the head
    (the pre-activation output; all logits for classification) is exactly zero, in inference
    mode. Those examples no longer teach the network anything."""
    import tensorflow as tf

    zero = 0
    for start in range(0, len(x), batch):
        z = tf.convert_to_tensor(_predict(network.pre_activation, x[start : start + batch]))
        with tf.GradientTape() as tape:
            tape.watch(z)
            out = z
            for layer in network.head:
                out = layer(out)
            loss = tf.reduce_sum(approach.loss(y[start : start + batch], out))
        grad = tape.gradient(loss, z)
        if grad is None:
            zero += len(z)
        else:
            zero += int(tf.reduce_sum(tf.cast(tf.reduce_all(grad == 0, axis=-1), tf.int32)))
    return zero / len(x)


def _predict(model: Any, x: np.ndarray, batch: int = 8192) -> np.ndarray:
    """Eager forward pass in inference mode (no per-shape XLA recompilation, unlike predict)."""
    return np.concatenate(
        [np.asarray(model(x[i : i + batch], training=False)) for i in range(0, len(x), batch)]
    )


def _resolved(cfg: DictConfig) -> DictConfig:
    """A resolved copy (what the result file and MLflow record), results_dir made absolute."""
    cfg = cfg.copy()
    OmegaConf.resolve(cfg)
    cfg.results_dir = str(Path(cfg.results_dir).absolute())
    return cfg


def worst(maximise: bool) -> float:
    """What a failed job returns to a sweeper: the worst possible value of the objective."""
    return -math.inf if maximise else math.inf


@hydra.main(config_path=str(paths.CONF_DIR), config_name="config", version_base="1.3")
def hydra_task(cfg: DictConfig) -> float:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    sweep_dir = Path(hc.sweep.dir).absolute() if multirun else None
    job_dir = Path(hc.runtime.output_dir)
    maximise = str(cfg.objective).partition("/")[2] in config.MAXIMISED
    try:
        result = train(cfg, sweep_dir=sweep_dir)
    except Exception as err:
        # Before training started (a bad value, a missing data file): no result file. A single
        # run stops here; a sweep counts the job as failed and goes on.
        reason = str(err) if isinstance(err, config.ConfigError) else f"{type(err).__name__}: {err}"
        if not multirun:
            if isinstance(err, config.ConfigError):  # the message says it all: no traceback
                raise SystemExit(f"config error: {reason}") from err
            raise
        log.error("job failed before training: %s", reason)
        callbacks.write_status(job_dir, FAILED, reason)
        return worst(maximise)
    path = results.result_path(
        Path(result.config["results_dir"]),
        result.dataset,
        result.approach,
        result.activation,
        result.activation_params,
        result.seed,
    )
    callbacks.write_status(job_dir, result.status, result.error, path)
    if not result.ok:
        return worst(maximise)
    split, metric, _ = config.objective(cfg)
    return float(result.metrics[split][metric])


def main() -> None:
    config.register_configs()
    hydra_task()


if __name__ == "__main__":
    # Run the importable copy of this module, so that the joblib launcher pickles the task by
    # reference to roundlab.train rather than by value from __main__.
    from roundlab.train import main as _main

    _main()
