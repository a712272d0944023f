"""roundlab: train networks whose targets are integers, and measure which approach works.

The subpackages mirror the Hydra config groups under ``conf/``: ``activations`` (rounding
surrogates and the numpy bridge), ``data`` (dataset generators and the on-disk format), and the
training, tracking and report modules that use them.
"""

__version__ = "0.1.0"

from roundlab import keras_objects  # noqa: E402

# Saved models load with plain keras.saving.load_model once roundlab is imported.
keras_objects.install()
