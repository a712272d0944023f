"""Saved models: a finished run's ``.keras`` file and what turns raw features into its integers
(:mod:`roundlab.serving.saved_models`), roundlab's Keras objects registered for loading
(:mod:`~roundlab.serving.keras_objects`), and predictions on a CSV
(:mod:`~roundlab.serving.predict`; the command line is ``python -m roundlab.predict``).

May import the leaves, activations, approaches, data and engine. This ``__init__`` stays empty:
``import roundlab`` imports :mod:`~roundlab.serving.keras_objects` through it and must not pay
for TensorFlow.
"""
