"""Many jobs: a profile (:mod:`roundlab.sweep.profile`, its values typed strictly by
:mod:`~roundlab.sweep.profile_fields`) becomes a plan of multiruns (:mod:`~roundlab.sweep.plan`)
that the DVC stage runs (:mod:`~roundlab.sweep.runner`, ``python -m roundlab.sweep``:
:mod:`~roundlab.sweep.cli`), after deciding once whether its jobs are tracked
(:mod:`~roundlab.sweep.tracking_check`), one sweep per results directory
(:mod:`~roundlab.sweep.lock`), its multiruns ending with it (:mod:`~roundlab.sweep.children`),
then trains the rates beyond an edge its configurations chose (:mod:`~roundlab.sweep.extend`,
by the rule of :mod:`~roundlab.sweep.rates` that the report uses too).
Inside each multirun the vectorised launcher (:mod:`~roundlab.sweep.launcher`) decides, for
every job, whether its result is reused (:mod:`~roundlab.sweep.resume`), which jobs train
together (:mod:`~roundlab.sweep.grouping`, :mod:`~roundlab.sweep.jobs`) and trains each group
as one stacked program (:mod:`~roundlab.sweep.vectorized`); a Hydra callback
(:mod:`~roundlab.sweep.callback`) keeps the sweep's count and its MLflow parents.

May import everything below it (the leaves, activations, approaches, data, engine, serving,
tracking, run); never the report. The planning side (profile, plan, rates, extend, runner,
housekeeping, progress) imports no TensorFlow, so ``python -m roundlab.sweep`` starts in a
fraction of a second.
"""
