"""MLflow: every run, finished or failed, browsable next to its siblings.

The store and its client (:mod:`roundlab.tracking.store`), whether a remote server answers
(:mod:`~roundlab.tracking.server`), a sweep's parent runs (:mod:`~roundlab.tracking.parents`),
what a result becomes in MLflow (:mod:`~roundlab.tracking.params`), one run's tracker
(:mod:`~roundlab.tracking.tracker`), runs that killed processes left RUNNING
(:mod:`~roundlab.tracking.stale_runs`) and the logged model (:mod:`~roundlab.tracking.model`),
stored as code (:mod:`~roundlab.tracking.model_code`) and checked before it is loaded from a
store (:mod:`~roundlab.tracking.model_check`).
Scheme: one experiment per dataset (``tracking.experiment``, default ``${dataset.name}``); a
single run is a top-level run, a multirun's job a child of its sweep's parent.

May import the leaves, activations, approaches, data, engine and serving; never a job, a sweep
or the report. A tracking error never fails a run: the result file, not MLflow, is the record
the report reads.

mlflow is imported inside the functions that use it, not at the top of these modules: it costs
seconds, which the sweep's own process, the Hydra callback of an untracked multirun and a run
with ``tracking.enabled=false`` never pay.
"""
