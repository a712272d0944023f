import logging

import pytest

from roundlab import device


def _has_gpu() -> bool:
    import tensorflow as tf

    return bool(tf.config.list_physical_devices("GPU"))


@pytest.mark.skipif(_has_gpu(), reason="checks the CPU path")
def test_cpu_is_chosen_without_a_gpu_and_mixed_precision_is_ignored_there(caplog):
    import keras

    with caplog.at_level(logging.WARNING):
        dev = device.select(mixed_precision=True)
    assert (dev.kind, dev.precision, str(dev)) == ("CPU", "float32", "CPU")
    assert keras.config.dtype_policy().name == "float32"
    assert "mixed_precision=true ignored" in caplog.text


@pytest.mark.gpu
@pytest.mark.skipif(not _has_gpu(), reason="needs a GPU visible to TensorFlow")
def test_gpu_is_chosen_with_mixed_precision_when_asked():
    import keras

    try:
        dev = device.select(mixed_precision=True)
        assert dev.kind == "GPU" and str(dev) == "GPU (mixed_float16)"
        assert keras.config.dtype_policy().name == "mixed_float16"
    finally:
        keras.config.set_dtype_policy("float32")


def test_float32_policy_restores_the_global_policy():
    import keras

    keras.config.set_dtype_policy("mixed_float16")
    try:
        with device.float32_policy():
            assert keras.layers.Dense(1).dtype_policy.name == "float32"
        assert keras.config.dtype_policy().name == "mixed_float16"
    finally:
        keras.config.set_dtype_policy("float32")
