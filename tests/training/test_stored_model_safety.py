"""`python -m roundlab.predict --run` runs no code from the MLflow store: a run whose logged
model is a pickle that runs a shell command when unpickled is refused in one line, exit 2, and
the command never runs; roundlab's own models are logged as code and hold no pickle."""

import shutil
import subprocess
import sys

import mlflow.artifacts
import pytest
import yaml

from roundlab.tracking.model import CODE_FILE
from roundlab.tracking.model_check import CODE_LOADER, UnsafeModel, check_loadable
from roundlab.train import train

from .processes import environment

# A pyfunc model as anyone can log it: cloudpickle stores what __reduce__ returns, so loading
# the model calls os.system with the command.
CRAFT = """
import os, sys
import mlflow
from mlflow.pyfunc import PythonModel

class Payload(PythonModel):
    def predict(self, context, model_input, params=None):
        return model_input

    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[1],))

with mlflow.start_run() as run:
    mlflow.pyfunc.log_model(name="model", python_model=Payload(), pip_requirements=[])
print(run.info.run_id)
"""


@pytest.fixture
def crafted(tmp_path):
    """A store holding one run whose model runs ``touch <marker>`` when unpickled: (env, run
    id, marker)."""
    env = environment(tmp_path, MLFLOW_TRACKING_URI=f"sqlite:///{tmp_path / 'crafted.db'}")
    marker = tmp_path / "marker"
    done = subprocess.run(
        [sys.executable, "-c", CRAFT, str(marker)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert not marker.exists()  # logging it ran nothing
    (tmp_path / "input.csv").write_text("x0\n1.0\n")
    return env, done.stdout.split()[-1], marker


def test_predict_refuses_a_pickled_model_from_the_store_and_runs_none_of_its_code(
    crafted, tmp_path
):
    env, run_id, marker = crafted
    cmd = [sys.executable, "-m", "roundlab.predict", "--run", run_id, "--input", "input.csv"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    # TensorFlow's C++ start-up lines may precede it on stderr; roundlab says one line.
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("roundlab.predict:")]
    assert line.startswith("roundlab.predict: --run must name a run whose model loads")
    assert f"--run={run_id}, python_model='python_model.pkl'" in line
    assert "Traceback" not in done.stderr
    assert not marker.exists()


def test_mlflow_loading_the_crafted_model_unchecked_runs_its_command(crafted, tmp_path):
    """The store of the test above really is malicious: MLflow's own loader runs it."""
    env, run_id, marker = crafted
    code = f"import mlflow.pyfunc\nmlflow.pyfunc.load_model('runs:/{run_id}/model')\n"
    subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, timeout=300
    )
    assert marker.exists()


def test_a_model_logged_by_roundlab_is_stored_as_code_and_holds_no_pickle(compose, store, tmp_path):
    cfg = compose("approach=regression", "trainer.epochs=1", "tracking.log_models=true")
    result = train(cfg)
    uri = f"runs:/{result.mlflow_run_id}/model"
    local = mlflow.artifacts.download_artifacts(uri, dst_path=str(tmp_path), tracking_uri=store)
    pyfunc = yaml.safe_load((tmp_path / "model" / "MLmodel").read_text())["flavors"][
        "python_function"
    ]
    assert pyfunc["loader_module"] == CODE_LOADER and "python_model" not in pyfunc
    assert not list((tmp_path / "model").rglob("*.pkl"))
    assert (tmp_path / "model" / CODE_FILE.name).read_bytes() == CODE_FILE.read_bytes()
    check_loadable(local, CODE_FILE, result.mlflow_run_id)


def _genuine(model_dir):
    """A model directory as roundlab logs it (its MLmodel reduced to what the check reads)."""
    model_dir.mkdir()
    shutil.copy(CODE_FILE, model_dir / CODE_FILE.name)
    pyfunc = {"loader_module": CODE_LOADER, "code": None, "model_code_path": str(CODE_FILE)}
    return {"flavors": {"python_function": pyfunc}}


def _set(**values):
    """A change to the MLmodel's python_function flavour."""
    return lambda meta, d: meta["flavors"]["python_function"].update(values)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda meta, d: (d / CODE_FILE.name).write_text("import os\n"), "model_code_path="),
        (lambda meta, d: (d / CODE_FILE.name).unlink(), "model_code_path="),
        (_set(code="code"), "code='code'"),
        (_set(loader_module="mlflow.sklearn"), "loader_module='mlflow.sklearn'"),
        (_set(python_model="python_model.pkl"), "python_model='python_model.pkl'"),
        (lambda meta, d: meta.pop("flavors"), "without a python_function flavour"),
    ],
    ids=["edited-code", "no-code", "code-paths", "other-loader", "pickle", "no-pyfunc"],
)
def test_a_stored_model_loads_only_when_it_runs_roundlabs_own_code_and_nothing_else(
    tmp_path, change, named
):
    model_dir = tmp_path / "model"
    meta = _genuine(model_dir)
    (model_dir / "MLmodel").write_text(yaml.safe_dump(meta))
    check_loadable(model_dir, CODE_FILE, "r1")  # the genuine layout passes
    change(meta, model_dir)
    (model_dir / "MLmodel").write_text(yaml.safe_dump(meta))
    with pytest.raises(UnsafeModel, match=r"Received: --run=r1, ") as refused:
        check_loadable(model_dir, CODE_FILE, "r1")
    assert named in str(refused.value)
