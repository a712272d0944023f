"""Whether a network trains under XLA: ``trainer.jit_compile`` (auto, true, false) decided once.

``auto`` differs by engine, for reasons of their own:

- one network trained by Keras ``fit`` (:mod:`roundlab.engine.single`): XLA when every layer
  can be compiled (numpy-backed activations cannot) and op determinism is off, because Keras
  compiles nothing with XLA under op determinism;
- a stacked group (:mod:`roundlab.engine.stacked`): XLA on a GPU only. On a CPU the compiled
  stacked program is slower than the plain graph (bench/README.md), on a GPU faster.
"""

from __future__ import annotations

from roundlab.errors import ConfigError

JIT_CHOICES = ("auto", "true", "false")


def jit_setting(value: object) -> bool | None:
    """``trainer.jit_compile`` as True/False, or None for auto. Booleans are accepted because
    ``true`` on the command line arrives as one."""
    text = str(value).lower()
    if text not in JIT_CHOICES:
        raise ConfigError(
            f"trainer.jit_compile must be one of {JIT_CHOICES}. "
            f"Received: trainer.jit_compile={value!r}"
        )
    return None if text == "auto" else text == "true"


def use_xla(
    value: object,
    *,
    stacked: bool,
    supports_jit: bool = True,
    deterministic: bool = False,
    device_kind: str = "CPU",
) -> bool:
    """Whether to compile with XLA: the explicit setting, else the engine's rule above."""
    setting = jit_setting(value)
    if setting is not None:
        return setting
    if stacked:
        return device_kind == "GPU"
    return supports_jit and not deterministic
