"""The registry's contract: names, specs, defaults, and the errors for everything wrong."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from roundlab import activations

from .support import GRID

CONTRACT = {  # name: (parameter, numpy_backed), as the shared contracts list them
    "identity": (None, False),
    "hard_round": (None, False),
    "ste_round": (None, False),
    "sigmoid_round": ("steepness", False),
    "sine_round": ("width", False),
    "soft_round": ("alpha", False),
    "comb_round": ("sigma", False),
    "spiky": (None, False),
    "spiky_np": (None, True),
    "sigmoid_round_np": ("steepness", True),
    "sine_round_np": ("width", True),
}


def test_names_are_the_contracts_names_in_order():
    assert activations.names() == list(CONTRACT)


@pytest.mark.parametrize("name", list(CONTRACT))
def test_spec_states_parameter_default_and_backend(name):
    param, numpy_backed = CONTRACT[name]
    spec = activations.spec(name)
    assert (spec.name, spec.param, spec.numpy_backed) == (name, param, numpy_backed)
    assert (spec.default is None) == (param is None)
    if param:
        assert spec.validate() == {param: spec.default}  # the default is itself valid
        with pytest.raises(ValueError) as error:
            spec.validate(**{param: -1.0})
        assert spec.constraint in str(error.value)


@pytest.mark.parametrize("name", list(CONTRACT))
def test_get_binds_name_params_and_jit_support(name):
    activation = activations.get(name)
    spec = activations.spec(name)
    assert activation.name == name
    assert activation.params == ({spec.param: spec.default} if spec.param else {})
    assert activation.supports_jit is not spec.numpy_backed
    assert activation(GRID).shape == GRID.shape


def test_get_stores_parameters_as_floats():
    activation = activations.get("sigmoid_round", steepness=np.int64(20))
    assert activation.params == {"steepness": 20.0}
    assert type(activation.params["steepness"]) is float
    assert repr(activation) == "Activation('sigmoid_round', steepness=20.0)"


def test_unknown_name_lists_the_known_names():
    with pytest.raises(ValueError, match=r"Received: name='round'") as error:
        activations.get("round")
    assert all(name in str(error.value) for name in CONTRACT)
    with pytest.raises(ValueError, match=r"Received: name='round'"):
        activations.spec("round")


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("identity", {"width": 0.2}, "identity takes no parameters. Received: width=0.2"),
        ("sine_round", {"steepness": 3}, "sine_round takes only 'width'. Received: steepness=3"),
        (
            "soft_round",
            {"alpha": 1.0, "sigma": 1},
            "soft_round takes only 'alpha'. Received: sigma=1",
        ),
    ],
)
def test_unknown_parameter_is_named(name, params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        activations.get(name, **params)


BAD_VALUES = {
    "steepness": [0, -1.0, math.nan, math.inf, True, "10"],
    "width": [0, -0.1, 1.5, 1.0000001, math.nan, math.inf, None],
    "alpha": [-1e-9, -1.0, math.inf, -math.inf, math.nan, "5"],
    "sigma": [0, -0.1, math.nan, math.inf, [0.1]],
}


BAD_CASES = [
    pytest.param(name, param, value, id=f"{name}-{param}={value!r}")
    for name, (param, _) in CONTRACT.items()
    for value in BAD_VALUES.get(param, [])
]


@pytest.mark.parametrize(("name", "param", "value"), BAD_CASES)
def test_bad_parameter_raises_documented_value_error_at_get_time(name, param, value):
    spec = activations.spec(name)
    # numbers are shown as they print, anything else by repr
    shown = (
        value if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)
    )
    expected = f"{param} must be {spec.constraint}. Received: {param}={shown}"
    with pytest.raises(ValueError, match=re.escape(expected)):
        activations.get(name, **{param: value})
    # the plain function checks the same way
    with pytest.raises(ValueError, match=re.escape(expected)):
        spec.function(GRID, **{param: value})


def test_contract_example_message():
    with pytest.raises(ValueError) as error:
        activations.get("sine_round", width=1.5)
    assert str(error.value) == "width must be in (0, 1]. Received: width=1.5"


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("sine_round", {"width": 1}),
        ("soft_round", {"alpha": 0}),
        ("sigmoid_round", {"steepness": 1e4}),
    ],
)
def test_boundary_values_inside_the_range_are_accepted(name, params):
    assert activations.get(name, **params).params == {k: float(v) for k, v in params.items()}
