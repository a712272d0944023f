"""``roundlab study DATA.csv --label COL``: the pipeline's whole protocol for one user's data,
in a study directory of its own (:mod:`roundlab.study.cli`). The top layer: it runs the data,
sweep and report entry points and reads the report's recommendation objects."""
