"""How networks train, and nothing above it: one run with Keras ``fit``
(:mod:`roundlab.engine.single`), or a group of runs of one shape stacked into one program
(:mod:`~roundlab.engine.stacked`), each member with its own seed, initial weights, knob and
early stopping; the network (:mod:`~roundlab.engine.models`), its evaluation
(:mod:`~roundlab.engine.evaluation`), the statsmodels references scored the same way
(:mod:`~roundlab.engine.references`), the memory estimate (:mod:`~roundlab.engine.memory`) and
the XLA rule (:mod:`~roundlab.engine.xla`).

May import the leaves, activations, approaches and data; takes values, never a whole config.
"""

from roundlab.engine.early_stopping import EarlyStopping
from roundlab.engine.members import HISTORY_KEYS, Member, MemberOutcome
from roundlab.engine.stacked import member_bytes, train_members

__all__ = [
    "HISTORY_KEYS",
    "EarlyStopping",
    "Member",
    "MemberOutcome",
    "member_bytes",
    "train_members",
]
