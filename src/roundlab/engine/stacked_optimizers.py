"""Keras's Adam, SGD and RMSprop steps on stacked weights, each member at its own rate.

A stacked group's members differ in learning rate; each member's step is the one Keras's
optimizer takes at that member's rate, op for op (``update_step`` of keras 3's ``Adam``,
``SGD`` and ``RMSprop``, with the rate a per-member column (M, 1) where Keras has a scalar), so
a member trains as it would alone at its own rate, to the bit. The optimizer's settings are
those ``keras.optimizers.get(name)`` gives; any other optimizer, or settings these steps do not
follow (weight decay, clipping, EMA, AMSGrad, a centred RMSprop), cannot be stacked.

State lives in variables of any number of rows (:class:`roundlab.engine.epoch_program.EpochProgram`
drops the rows of members that stopped), so a step is traced once per group.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import keras
import tensorflow as tf

from roundlab.engine import models

# Settings of Keras's base optimizer these steps do not apply, at the values that make them
# no-ops.
_UNUSED = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": False,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}

Step = Callable[[tf.Variable, list[tf.Variable], tf.Tensor, tf.Tensor, tf.Tensor], None]


@dataclass(frozen=True)
class StackedOptimizer:
    """``slots`` state tensors of the weights' shape; ``step(theta, slots, gradient, rates,
    iteration)`` moves ``theta`` (M, width) by ``gradient``, ``rates`` (M, 1) float32 and
    ``iteration`` the 1-based step count as a float32 scalar."""

    name: str
    slots: int
    step: Step


@functools.cache
def stacked_optimizer(name: str) -> StackedOptimizer:
    """The stacked step of Keras optimizer ``name``; ValueError naming it when it has none.
    Read once per name: a Keras optimizer's construction makes variables."""
    opt = models.optimizer(name, 1.0)
    config = opt.get_config()
    kind = type(opt)
    unused = {k: config.get(k) for k in _UNUSED if config.get(k) != _UNUSED[k]}
    if kind is keras.optimizers.Adam and not config["amsgrad"] and not unused:
        return StackedOptimizer(name, 2, _adam(config["beta_1"], config["beta_2"], config))
    if kind is keras.optimizers.SGD and not unused:
        return StackedOptimizer(name, int(config["momentum"] != 0), _sgd(config))
    if kind is keras.optimizers.RMSprop and not config["centered"] and not unused:
        return StackedOptimizer(name, 1 + int(config["momentum"] > 0), _rmsprop(config))
    raise ValueError(
        "a stacked group trains with Keras's adam, sgd or rmsprop at their default settings; "
        f"run the job on its own. Received: optimizer={name!r}"
    )


def _adam(beta_1: float, beta_2: float, config: dict[str, Any]) -> Step:
    epsilon = config["epsilon"]

    def step(theta, slots, gradient, rates, iteration):
        m, v = slots
        beta_1_power = tf.pow(tf.cast(beta_1, tf.float32), iteration)
        beta_2_power = tf.pow(tf.cast(beta_2, tf.float32), iteration)
        alpha = rates * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add(tf.multiply(tf.subtract(gradient, m), 1 - beta_1))
        v.assign_add(tf.multiply(tf.subtract(tf.square(gradient), v), 1 - beta_2))
        theta.assign_sub(tf.divide(tf.multiply(m, alpha), tf.add(tf.sqrt(v), epsilon)))

    return step


def _sgd(config: dict[str, Any]) -> Step:
    momentum, nesterov = config["momentum"], config["nesterov"]

    def step(theta, slots, gradient, rates, iteration):
        if not slots:
            theta.assign_sub(tf.multiply(gradient, rates))
            return
        (m,) = slots
        beta = tf.cast(momentum, tf.float32)
        m.assign(tf.subtract(tf.multiply(m, beta), tf.multiply(gradient, rates)))
        if nesterov:
            theta.assign_add(tf.subtract(tf.multiply(m, beta), tf.multiply(gradient, rates)))
        else:
            theta.assign_add(m)

    return step


def _rmsprop(config: dict[str, Any]) -> Step:
    rho, momentum, epsilon = config["rho"], config["momentum"], config["epsilon"]

    def step(theta, slots, gradient, rates, iteration):
        velocity = slots[0]
        velocity.assign(
            tf.add(tf.multiply(rho, velocity), tf.multiply(1 - rho, tf.square(gradient)))
        )
        increment = tf.divide(tf.multiply(rates, gradient), tf.sqrt(tf.add(velocity, epsilon)))
        if momentum > 0:
            slots[1].assign(tf.add(tf.multiply(momentum, slots[1]), increment))
            theta.assign_sub(slots[1])
        else:
            theta.assign_sub(increment)

    return step
