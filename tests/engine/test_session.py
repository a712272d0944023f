"""A run's set-up frees what earlier runs left: cycles included, whatever held them."""

import weakref

from roundlab.engine import session


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_cycle_alive_before_a_run_is_collected_once_dropped():
    held = _Cycle()
    gone = weakref.ref(held)
    session.start(0, deterministic=True, mixed_precision=False)
    del held
    session.start(1, deterministic=True, mixed_precision=False)
    assert gone() is None
