"""What recording a stacked group's members costs, per run: the MLflow run and the model file.

A realistic group: 40 members of the default MLP (64-64) on the count dataset (soft_round at
alpha 1, 2, 4, 8 x seeds 0-9), trained together for 35 epochs (about where the default profile's
median run stops; early stopping off, so every history has 35 entries), then recorded member by
member with :func:`roundlab.sweep.vectorized.record_member` as a sweep's jobs are: children of a
sweep's parent run in an sqlite store under a tmp directory, the model saved beside each result
file. Training is not timed.

Printed per run, in ms: the whole record (Recording, evaluation, result file, MLflow, model),
the evaluation inside it (the member's weights loaded into the ordinary model, every split
predicted and scored: not recording), and what is left, the recording proper, split into the
MLflow part (opening the run with its params and dataset input, closing it with metrics, tags
and artifacts, plus whatever was deferred, flushed before the store is read back) and the model
save. ``record_member CPU`` is the process's CPU time over the same loop, every thread's:
what the background writes cost a machine whose cores are all busy. The store is then read
back: every member's run FINISHED with its params, its 35-step
history and its artifacts.

    python bench/recording.py [--members 40] [--epochs 35] [--json PATH]

Run against another checkout's code (``PYTHONPATH=<checkout>/src``) to compare: only the names
timed below (``Recording.start_tracking``, ``RunTracker.finish``,
``saved_models.saving``, ``evaluation.fill_result``) are assumed, and the background writes
(:func:`roundlab.tracking.writer.flush`) are waited for and timed when the code has them.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

ALPHAS = (1.0, 2.0, 4.0, 8.0)


class Clock:
    """Seconds spent inside each named function, summed over calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def wrap(self, owner: object, attribute: str, name: str) -> None:
        original = getattr(owner, attribute)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - started)

        setattr(owner, attribute, timed)

    def wrap_property(self, owner: type, attribute: str, name: str) -> None:
        getter = getattr(owner, attribute).fget
        original = getter

        def timed(instance):
            started = time.perf_counter()
            try:
                return original(instance)
            finally:
                self.add(name, time.perf_counter() - started)

        setattr(owner, attribute, property(timed))

    def wrap_context(self, owner: object, attribute: str, name: str) -> None:
        """A context manager's entry (the model saved, before the block writes the result)."""
        original = getattr(owner, attribute)

        @contextlib.contextmanager
        def timed(*args, **kwargs):
            started = time.perf_counter()
            with original(*args, **kwargs) as value:
                self.add(name, time.perf_counter() - started)
                yield value

        setattr(owner, attribute, timed)


def configs(root: Path, members: int, epochs: int) -> list:
    from roundlab.run import config
    from roundlab.run.job import resolve

    common = [
        "dataset=count",
        "approach=rounding",
        "activation=soft_round",
        f"trainer.epochs={epochs}",
        "trainer.early_stopping.enabled=false",
        "trainer.selection=holdout",
        "trainer.max_epochs_factor=1",
        f"results_dir={root / 'results'}",
    ]
    grid = [(alpha, seed) for alpha in ALPHAS for seed in range(10)][:members]
    return [
        resolve(config.compose([*common, f"activation.alpha={a}", f"seed={s}"])) for a, s in grid
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=35)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="roundlab-bench-recording-"))
    uri = f"sqlite:///{root / 'mlflow.db'}"
    os.environ["MLFLOW_TRACKING_URI"] = uri

    from roundlab.engine import evaluation
    from roundlab.run.recording import Recording
    from roundlab.serving import saved_models
    from roundlab.sweep import vectorized
    from roundlab.tracking import parents, store, tracker

    cfgs = configs(root, args.members, args.epochs)
    store.prepare_store(uri)
    sweep_dir = root / "sweep"
    parents.begin_sweep(sweep_dir)
    trained = vectorized.train_group(cfgs)

    clock = Clock()
    clock.wrap(evaluation, "fill_result", "evaluation")
    clock.wrap(Recording, "start_tracking", "mlflow open")
    clock.wrap(tracker.RunTracker, "finish", "mlflow end")
    clock.wrap_context(saved_models, "saving", "model save")
    if isinstance(getattr(tracker.RunTracker, "run_id", None), property):  # a deferred creation
        clock.wrap_property(tracker.RunTracker, "run_id", "mlflow open")
    started, cpu_started = time.perf_counter(), time.process_time()
    recorded = [vectorized.record_member(trained, i, sweep_dir) for i in range(len(cfgs))]
    flush_started = time.perf_counter()
    try:
        from roundlab.tracking.writer import flush
    except ImportError:  # code that writes everything at once
        pass
    else:
        flush()
    clock.add("mlflow flush", time.perf_counter() - flush_started)
    total = time.perf_counter() - started
    n = len(cfgs)
    ms = {name: 1000 * s / n for name, s in clock.seconds.items()}
    # CPU time of every thread, evaluation included: what the background writes do not hide
    # from a machine whose cores are all busy.
    ms["record_member CPU"] = 1000 * (time.process_time() - cpu_started) / n
    ms["mlflow"] = ms["mlflow open"] + ms["mlflow end"] + ms["mlflow flush"]
    ms["record_member"] = 1000 * total / n
    ms["recording"] = ms["record_member"] - ms["evaluation"]
    ms["mlflow + model save"] = ms["mlflow"] + ms["model save"]

    client = store.client(uri)
    runs = [client.get_run(r.mlflow_run_id) for r in recorded]
    history = [len(client.get_metric_history(r.info.run_id, "train/loss")) for r in runs]
    artifacts = [sorted(a.path for a in client.list_artifacts(r.info.run_id)) for r in runs]
    checks = {
        "finished": sum(r.info.status == "FINISHED" for r in runs),
        "params": min(len(r.data.params) for r in runs),
        "history_steps": sorted(set(history)),
        "artifacts": artifacts[0],
    }
    print(f"{n} members, {args.epochs} epochs, store {uri}")
    print("| part | ms per run |\n|---|---:|")
    parts = ("mlflow open", "mlflow end", "mlflow flush", "mlflow", "model save")
    for name in ("record_member", "record_member CPU", "evaluation", "recording", *parts):
        print(f"| {name} | {ms[name]:.1f} |")
    print(f"| **mlflow + model save** | **{ms['mlflow + model save']:.1f}** |")
    print(f"store read back: {checks}")
    if args.json is not None:
        args.json.write_text(json.dumps({"ms_per_run": ms, "checks": checks}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
