"""How networks are trained: one run with Keras ``fit`` (:mod:`roundlab.engine.single`), or a
group of runs of one shape stacked into one program (:mod:`roundlab.engine.stacked`, driven by
:mod:`roundlab.engine.vectorized`), each member with its own seed, initial weights, knob and
early stopping."""

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
