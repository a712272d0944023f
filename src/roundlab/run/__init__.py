"""One job: ``train(cfg) -> RunResult`` as named steps (:mod:`roundlab.run.job`), the config
schemas it is composed against (:mod:`~roundlab.run.config`) and the checks beyond their types
(:mod:`~roundlab.run.validate`), what every run leaves behind (:mod:`~roundlab.run.recording`:
result file, MLflow run, saved model), its fingerprint (:mod:`~roundlab.run.fingerprint`, over
the code :mod:`~roundlab.run.code_scope` finds the run depends on), its status file
(:mod:`~roundlab.run.status`) and how it ends for its process
(:mod:`~roundlab.run.exits`).

May import the leaves, activations, approaches, data, engine, serving and tracking; never the
sweep or the report.
"""
