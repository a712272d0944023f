"""The report: reads result files only and writes reports/ (Markdown, HTML, figures, metrics).

``python -m roundlab.report`` is the DVC stage; :func:`roundlab.report.build.build` does the work.
"""
