"""Whether a model downloaded from an MLflow store may be loaded: loading it must run no code
but roundlab's own.

``mlflow.pyfunc.load_model`` runs what the model's ``MLmodel`` file names: its loader module, a
pickled Python model (unpickling calls whatever the pickle was made to call, e.g. through
``__reduce__``), directories of code put on ``sys.path``, or a models-from-code file. A store
can come from anyone, so ``python -m roundlab.predict --run`` loads a model only when its
``MLmodel`` is what :func:`roundlab.tracking.model.log` writes: the ``python_function`` flavour
with MLflow's code-model loader, no pickled Python model, no code paths, and a code file equal
byte for byte to roundlab's own (:mod:`roundlab.tracking.model_code`). The ``MLmodel`` is read
with ``yaml.safe_load``, which builds plain data only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from roundlab.serving.saved_models import InputError

CODE_LOADER = "mlflow.pyfunc.loaders.code_model"


class UnsafeModel(InputError):
    """A stored model whose loading would run code that is not roundlab's own."""


def check_loadable(model_dir: Path, code_file: Path, run_id: str) -> None:
    """Raise :class:`UnsafeModel` (one line naming the run and what its model holds) unless the
    model in ``model_dir`` loads by running ``code_file`` and nothing else."""
    problem = _problem(Path(model_dir), Path(code_file))
    if problem is not None:
        raise UnsafeModel(
            f"--run must name a run whose model loads without running code from the store "
            f"(roundlab's own model code, nothing pickled). Received: --run={run_id}, {problem}"
        )


def _problem(model_dir: Path, code_file: Path) -> str | None:
    try:
        meta = yaml.safe_load((model_dir / "MLmodel").read_text())
    except (OSError, yaml.YAMLError) as err:
        return f"an unreadable MLmodel ({type(err).__name__})"
    pyfunc = _pyfunc_flavour(meta)
    if pyfunc is None:
        return "an MLmodel without a python_function flavour"
    if "python_model" in pyfunc:
        return (
            f"python_model={pyfunc['python_model']!r} (a pickled Python model, which runs "
            f"whatever code it holds when unpickled)"
        )
    if pyfunc.get("loader_module") != CODE_LOADER:
        return f"loader_module={pyfunc.get('loader_module')!r} (expected {CODE_LOADER})"
    if pyfunc.get("code") is not None:
        return f"code={pyfunc['code']!r} (code directories put on the Python path)"
    stored = model_dir / Path(str(pyfunc.get("model_code_path", ""))).name
    if not stored.is_file() or stored.read_bytes() != code_file.read_bytes():
        return f"model_code_path={pyfunc.get('model_code_path')!r} (not roundlab's own model code)"
    return None


def _pyfunc_flavour(meta: Any) -> dict[str, Any] | None:
    flavours = meta.get("flavors") if isinstance(meta, dict) else None
    pyfunc = flavours.get("python_function") if isinstance(flavours, dict) else None
    return pyfunc if isinstance(pyfunc, dict) else None
