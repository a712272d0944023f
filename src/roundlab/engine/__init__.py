"""How networks are trained as a group: stacked members, each with its own seed, initial
weights and knob, early stopping per member (roundlab.engine.stacked)."""

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
