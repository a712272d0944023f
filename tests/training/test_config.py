"""The config composes from conf/, and a bad value fails early naming the key and the value."""

import subprocess
import sys

import pytest
from hydra.errors import ConfigCompositionException, MissingConfigException

from roundlab import activations, paths
from roundlab.errors import ConfigError
from roundlab.run import config, validate


def _validated(compose, *overrides):
    cfg = compose(*overrides)
    validate.validate(cfg)
    return cfg


def test_every_activation_has_a_config_file_and_every_file_an_activation():
    files = {p.stem for p in (paths.CONF_DIR / "activation").glob("*.yaml")}
    assert files == set(activations.names())


@pytest.mark.parametrize("name", activations.names())
def test_each_activation_config_composes_and_validates(compose, name):
    cfg = _validated(compose, "approach=rounding", f"activation={name}")
    assert cfg.activation.name == name
    param = activations.spec(name).param
    assert set(cfg.activation) == {"name"} | ({param} if param else set())


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        (["trainer.epochs=abc"], "trainer.epochs"),
        (["model.dropout=[1]"], "model.dropout"),
        (["model.widht=3"], "model.widht"),
        (["activation=sigmoid_round", "activation.width=0.5"], "activation.width"),
    ],
    ids=["wrong-type-int", "wrong-type-float", "unknown-key", "parameter-of-another-activation"],
)
def test_wrong_types_and_unknown_keys_fail_at_compose_time(compose, overrides, needle):
    with pytest.raises(ConfigCompositionException) as err:
        compose(*overrides)
    text = f"{err.value} {err.value.__cause__}"
    assert needle in text
    assert overrides[-1].split("=")[1] in text


def test_unknown_option_fails_at_compose_time_listing_the_options(compose):
    with pytest.raises(MissingConfigException, match="approach/softmax") as err:
        compose("approach=softmax")
    assert "classification" in str(err.value)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["activation=sine_round", "activation.width=1.5"], r"activation\.width=1\.5.*width"),
        (
            ["activation=sigmoid_round", "activation.steepness=-1"],
            r"activation\.steepness=-1\.0.*steepness",
        ),
        (["activation=soft_round", "activation.alpha=-0.5"], r"activation\.alpha=-0\.5.*alpha"),
        (["model.dropout=1.0"], r"dropout must be in \[0, 1\)\. Received: model\.dropout=1\.0"),
        (["trainer.learning_rate=0"], r"Received: trainer\.learning_rate=0\.0"),
        (["trainer.loss=mae"], r"Received: trainer\.loss='mae'"),
        (["trainer.optimizer=adamm"], r"Received: trainer\.optimizer='adamm'"),
        (["trainer.jit_compile=sometimes"], r"Received: trainer\.jit_compile='sometimes'"),
        (["model.hidden_activation=relu6x"], r"Received: model\.hidden_activation='relu6x'"),
        (
            ["model.hidden_activation=sine_round", "+model.hidden_activation_params.width=2"],
            r"model\.hidden_activation=sine_round.*width",
        ),
        (["objective=val/accuracy"], r"Received: objective='val/accuracy'"),
    ],
)
def test_domain_errors_fail_before_training_naming_key_and_value(compose, overrides, expected):
    cfg = compose(*overrides)
    with pytest.raises(ConfigError, match=expected):
        validate.validate(cfg)


def test_forcing_xla_is_refused_under_determinism_and_with_numpy_activations(compose):
    with pytest.raises(ConfigError, match="trainer.deterministic=false"):
        _validated(compose, "trainer.jit_compile=true")
    with pytest.raises(ConfigError, match=r"numpy-backed activations \['spiky_np'\]"):
        _validated(
            compose,
            "trainer.jit_compile=true",
            "trainer.deterministic=false",
            "approach=rounding",
            "activation=spiky_np",
        )
    _validated(compose, "trainer.jit_compile=true", "trainer.deterministic=false")


def test_numpy_activations_are_accepted_as_hidden_activations(compose):
    cfg = _validated(
        compose,
        "model.hidden_activation=sigmoid_round_np",
        "+model.hidden_activation_params.steepness=5",
    )
    assert cfg.model.hidden_activation_params == {"steepness": 5.0}


def test_experiment_is_named_after_the_dataset_by_default(compose):
    cfg = compose()
    assert cfg.tracking.experiment == cfg.dataset.name


EXPERIMENTS = sorted(p.stem for p in (paths.CONF_DIR / "experiment").glob("*.yaml"))


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_ready_made_sweeps_compose(name):
    cfg = config.compose([f"+experiment={name}"], return_hydra_config=True)
    assert cfg.hydra.sweeper.params, f"experiment {name} sweeps nothing"
    validate.validate(cfg)


def test_slurm_launcher_config_composes():
    cfg = config.compose(["hydra/launcher=slurm"], return_hydra_config=True)
    assert cfg.hydra.launcher._target_.endswith("SlurmLauncher")
    assert cfg.hydra.launcher.timeout_min > 0


def test_cfg_job_prints_the_resolved_config(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundlab.train",
            "--cfg",
            "job",
            "--resolve",
            "approach=rounding",
            "activation=sine_round",
            "activation.width=0.25",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "name: sine_round\n  width: 0.25" in out
    assert "experiment: count" in out  # ${dataset.name} resolved


def test_cli_reports_a_domain_error_in_one_line_and_exits_nonzero(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundlab.train",
            "activation=sine_round",
            "activation.width=1.5",
            f"results_dir={tmp_path}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert "config error: activation=sine_round (activation.width=1.5)" in run.stderr
    assert "Traceback" not in run.stderr
    assert not list(tmp_path.rglob("*.json"))
