"""``python -m roundlab.train``: one run, or with ``-m`` a Hydra multirun; ``--cfg job`` prints
the resolved config.

A thin Hydra entry around :func:`roundlab.run.job.train`. Every run writes its result file
(finished, failed or killed) and logs to MLflow. In a multirun a job whose result file can be
kept is reused (:mod:`roundlab.sweep.resume`), a job not on the multirun's allow-list
(``sweep.only``) returns at once without a result, and a failing job never raises out of the
Hydra task, so the sweep goes on; it returns the worst objective value instead. Exit codes are in
:mod:`roundlab.run.exits`.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import signal
import sys
import threading
from pathlib import Path

# Keras imports scikit-learn (its estimator wrappers) and matplotlib's pyplot (its image gallery)
# when they are installed: 0.8 s of a worker's 3.9 s of imports, for code a worker never calls.
# A worker imports Keras with both hidden, then makes them importable again (LightGBM's
# reference fit imports scikit-learn when it runs). pandas is not hidden: MLflow imports it.
_NOT_FOR_WORKERS = ("sklearn", "matplotlib")


@contextlib.contextmanager
def _hidden(names: tuple[str, ...]):
    """Inside the block ``import name`` fails with ModuleNotFoundError, as for a package that is
    not installed (``None`` in ``sys.modules``: the import system's own marker), unless the
    module is already imported; after it, they import as usual."""
    hidden = [name for name in names if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in hidden:
            if sys.modules.get(name, sys) is None:
                del sys.modules[name]


# A sweep's worker (``python -m roundlab.train -m ... sweep.queue=<dir>``, as
# roundlab.sweep.runner starts it) makes no full garbage collection until it takes its first
# task. Its imports and its MLflow store make about 600,000 objects that live until it exits,
# and each full collection they set off walked all of them again: about 2 s of CPU in a
# worker's start, on the sweep's critical path (bench/worker_start.py). The young generations
# are still collected, so the start's cyclic garbage stays small (about 6,000 objects, where no
# collection at all left 53,000). The sweeper then freezes what the worker holds and sets its
# own thresholds (hydra_plugins/roundlab_vectorized_launcher/sweeper.py): checked here, before
# the imports below, as that sweeper tells a worker (a multirun with a queue directory), so that
# no other run keeps the start's setting; tests/pipeline/test_worker_start.py.
_QUEUE = "sweep.queue="  # roundlab.sweep.queue.KEY, which imports what this must come before

if (
    __name__ == "__main__"
    and {"-m", "--multirun"} & set(sys.argv[1:])
    and any(a.startswith(_QUEUE) and a[len(_QUEUE) :] not in ("", "null") for a in sys.argv[1:])
):
    gc.set_threshold(*gc.get_threshold()[:2], 1_000_000_000)
    with _hidden(_NOT_FOR_WORKERS):
        import keras  # noqa: F401

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from roundlab import interruption, paths  # noqa: E402
from roundlab.results import KILLED  # noqa: E402
from roundlab.run import exits  # noqa: E402
from roundlab.run.config import register_configs  # noqa: E402
from roundlab.run.job import train  # noqa: E402
from roundlab.run.status import SKIPPED, write_status  # noqa: E402
from roundlab.sweep import queue, resume  # noqa: E402
from roundlab.sweep.callback import end_tracking  # noqa: E402

__all__ = ["main", "train"]


@hydra.main(config_path=paths.CONF_PACKAGE, config_name="config", version_base="1.3")
def hydra_task(cfg: DictConfig) -> float:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    job_dir = Path(hc.runtime.output_dir)
    if multirun and not resume.wanted(cfg):  # the vectorised launcher never starts such a job
        write_status(job_dir, SKIPPED)
        return exits.worst(exits.maximised(cfg.objective))
    # Here too, not only in main(): joblib runs this task in worker processes.
    with interruption.interruptible():
        try:
            reused = resume.reuse(cfg, job_dir) if multirun else None
            sweep_dir = Path(hc.sweep.dir).absolute() if multirun else None
            result = reused or train(cfg, sweep_dir=sweep_dir)
        except interruption.Interrupted as err:
            write_status(job_dir, KILLED, err.reason)
            raise
        except Exception as err:
            interrupted = interruption.as_interruption(err)
            if interrupted is None:
                maximise = exits.maximised(cfg.objective)
                return exits.failed_before_training(err, job_dir, multirun, maximise)
            write_status(job_dir, KILLED, interrupted.reason)
            raise interrupted from err
    if not multirun:
        exits.stop_if_failed(result)
    return exits.job_return(cfg.objective, job_dir, result)


def main() -> None:
    """The command line: an interruption ends the open sweep's MLflow parents KILLED and exits
    128 + the signal number with one line on stderr."""
    register_configs()
    # The inner block can raise as it is left (a signal deferred from an import at its very
    # end); the outer one ignores a second signal while the first is recorded.
    with interruption.interruptible():
        try:
            with interruption.interruptible():
                hydra_task()
            if any(arg.startswith(f"{queue.KEY}=") for arg in sys.argv[1:]):
                _exit_now()
        except (interruption.Interrupted, SystemExit) as err:
            # Hydra reports an interruption that its own code turned into another error (while
            # it composes the config) and exits 1: still an interruption
            interrupted = interruption.carried(err)
            if interrupted is None:
                raise
            end_tracking(KILLED)
            print(
                f"roundlab.train: {interrupted.reason}; the run under way was recorded KILLED",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(interrupted.exit_code) from None


def _exit_now() -> None:
    """End a sweep worker that ran its tasks without the interpreter's teardown, which with
    TensorFlow loaded took 1.3 s on the sweep's critical path at the end of every stage. What
    an ordinary exit does first is done first: thread pools are shut down and non-daemon
    threads waited for, the exit handlers run (the background MLflow writes, logging's flush),
    then the standard streams are flushed. SIGINT or SIGTERM meanwhile lets those steps finish
    (its tasks had ended) and makes the exit code 128 + its number, as it would be had it come
    a moment earlier."""
    received: list[int] = []
    for signum in interruption.SIGNALS:
        signal.signal(signum, lambda number, _frame: received.append(number))
    # The interpreter's own exit steps, in its order (private helpers, stable since 3.9).
    threading._shutdown()  # thread pools' exit hooks, then the non-daemon threads joined
    atexit._run_exitfuncs()
    with contextlib.suppress(Exception):  # a closed pipe must not change the exit code
        if received:
            reason = signal.Signals(received[0]).name
            print(f"roundlab.train: {reason} while exiting, after its tasks", file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(128 + received[0] if received else 0)


if __name__ == "__main__":
    # Run the importable copy of this module, so that the joblib launcher pickles the task by
    # reference to roundlab.train rather than by value from __main__.
    from roundlab.train import main as _main

    _main()
