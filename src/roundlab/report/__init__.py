"""The report: reads result files only and writes reports/ (Markdown, HTML, figures, metrics).

Three layers. Computing, without matplotlib: selection (configurations over seeds, best
settings), winner, stats, headline, recommendation, ranking (across datasets), datasets,
curves, answers, gradcheck, handwritten, cost, gradients, environment, dvc_files. Figures,
matplotlib only, drawn from computed values: plotting, figures, activation_figures,
ranking_figure. Document, prose and tables from computed values: document, render, cells,
sections, recommendation_sections, ranking_section, gradient_sections, summary.

``python -m roundlab.report`` is the DVC stage; :func:`roundlab.report.pipeline.build_report`
does the work.

May import the leaves, activations and approaches (and ``roundlab`` itself, which registers the
saved models' Keras objects); never the training side (data, engine, run, sweep, tracking), so
editing how runs train reruns the sweep stage and the report only through results/.
"""
