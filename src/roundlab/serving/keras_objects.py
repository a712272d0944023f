"""roundlab's Keras objects (:class:`roundlab.activations.RoundingActivation` and CORAL's
:class:`roundlab.approaches.layers.OffsetLogits`, registered as ``roundlab>RoundingActivation``
and ``roundlab>OffsetLogits``) known to Keras as soon as both are imported, so that
``import roundlab`` then ``keras.saving.load_model("seed=0.keras")`` works, in either order.

Importing Keras imports TensorFlow (seconds), which ``import roundlab`` must not cost the
sweep planner and the report; so :func:`install` registers the layers right away when Keras is
already imported, and otherwise once Keras finishes importing, through an import hook that only
watches for the module ``keras``.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from typing import Any


def register() -> None:
    """Register the layers now (imports Keras and TensorFlow)."""
    import roundlab.activations.layer  # noqa: F401  (registers on import)
    import roundlab.approaches.layers  # noqa: F401


class ImportHook(importlib.abc.MetaPathFinder):
    """Finds the module ``name`` through the other finders and runs it as ``run(exec_module,
    module)`` says; it leaves ``sys.meta_path`` once the module runs (a finder may look a module
    up without importing it, as TensorFlow does ``keras``: only running the module counts)."""

    def __init__(self, name: str, run: Callable[[Callable[[Any], None], Any], None]) -> None:
        self.name, self.run, self.searching = name, run, False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name or self.searching:
            return None
        self.searching = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self.searching = False
        if spec is None or spec.loader is None:
            return spec
        run_module = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            self.run(run_module, module)

        spec.loader.exec_module = exec_module
        return spec


def _then_register(run_module: Callable[[Any], None], module: Any) -> None:
    run_module(module)
    register()


def install() -> None:
    if "keras" in sys.modules:
        register()
    elif not any(isinstance(f, ImportHook) and f.name == "keras" for f in sys.meta_path):
        sys.meta_path.insert(0, ImportHook("keras", _then_register))
