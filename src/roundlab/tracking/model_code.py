"""The code MLflow stores with every model roundlab logs ("models from code"), and runs when the
model is loaded: it builds :class:`roundlab.tracking.model.IntegerModel` from the installed
roundlab, so loading unpickles no Python object. ``python -m roundlab.predict --run`` loads a
stored copy only when it equals this file byte for byte (:mod:`roundlab.tracking.model_check`).

Not imported by roundlab: MLflow executes it, when logging and when loading.
"""

from mlflow.models import set_model

from roundlab.tracking.model import IntegerModel

set_model(IntegerModel())
