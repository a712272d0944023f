"""Keep TensorFlow's C++ logs quiet in the activation tests."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
