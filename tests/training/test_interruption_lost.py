"""An interruption is never lost on its way up (:mod:`roundlab.interruption`): not inside an
import, not in a ``__del__``, not when library code turns it into another error; and the
checks that find a lost one never cut off an interruption being recorded."""

from __future__ import annotations

import gc
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from roundlab.interruption import WATCH_S, Interrupted, carried, interruptible


def test_a_signal_inside_an_import_lets_the_import_finish_and_interrupts_just_after(
    tmp_path, monkeypatch
):
    """TensorFlow imports modules lazily, mid-gradient: an interruption raised in the import
    machinery would leave the module half-initialised and come out as SystemError."""
    (tmp_path / "lazily_imported.py").write_text(
        "import signal\nsignal.raise_signal(signal.SIGTERM)\nREST_OF_THE_MODULE = True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazily_imported", raising=False)
    with pytest.raises(Interrupted) as caught, interruptible():
        import lazily_imported

        assert lazily_imported.REST_OF_THE_MODULE
        time.sleep(5)  # the signal is sent again once the import is over
    assert caught.value.reason == "interrupted by SIGTERM"
    assert sys.modules["lazily_imported"].REST_OF_THE_MODULE


def test_a_signal_at_the_end_of_an_import_at_the_end_of_the_block_interrupts_on_leaving(
    tmp_path, monkeypatch
):
    (tmp_path / "imported_last.py").write_text(
        "import signal\nsignal.raise_signal(signal.SIGINT)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "imported_last", raising=False)
    with pytest.raises(Interrupted) as caught, interruptible():
        import imported_last  # noqa: F401
    assert caught.value.exit_code == 130


class _SignalledWhileCollected:
    def __del__(self):
        signal.raise_signal(signal.SIGTERM)


def test_an_interruption_swallowed_by_a_del_is_raised_again_without_a_printed_error(capfd):
    started = time.monotonic()
    with pytest.raises(Interrupted), interruptible():
        _SignalledWhileCollected()  # collected at once: its __del__ takes the interruption
        gc.collect()
        time.sleep(10)
    assert time.monotonic() - started < 3 * WATCH_S
    assert "Exception ignored" not in capfd.readouterr().err


def test_an_interruption_a_library_turns_into_another_error_is_raised_again():
    """Hydra's config source does this: its ``finally`` closes a file whose ``open`` was
    interrupted, and an UnboundLocalError replaces the interruption."""

    def read_config():
        try:
            signal.raise_signal(signal.SIGTERM)
            opened = True
        finally:
            del opened  # noqa: F821  (unbound: the interruption came first)

    started = time.monotonic()
    with pytest.raises(Interrupted), interruptible():
        try:
            read_config()
        except Exception as err:  # what a run does with an error: record it and go on
            assert isinstance(err, UnboundLocalError)
        time.sleep(10)
    assert time.monotonic() - started < 3 * WATCH_S


def test_an_interruption_being_recorded_is_not_raised_again_however_long_it_takes(caplog):
    with caplog.at_level(logging.WARNING), pytest.raises(Interrupted) as caught, interruptible():
        try:
            signal.raise_signal(signal.SIGTERM)
        except Interrupted as err:
            first = err
            time.sleep(3 * WATCH_S)  # recording it: the watch's signals land here
            raise
    assert caught.value is first
    assert caplog.records == []  # the watch's own signals are not reported as ignored


def _interrupted_command(tmp_path, script: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``script`` (which calls ``roundlab.train``'s main) and check that it ended as an
    interruption by SIGTERM: exit 143 and roundlab's one line."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 143, done.stderr
    assert "roundlab.train: interrupted by SIGTERM" in done.stderr
    return done


# Hydra composes the config twice before a run: once to find its mode, inside an ``except
# Exception`` that swallows whatever goes wrong, then for the run, where its config source's
# ``finally`` (closing a file whose ``open`` was interrupted) turns the interruption into an
# UnboundLocalError that Hydra reports before it exits 1. The signal lands in the third file
# that composition opens.
_SIGNAL_WHILE_HYDRA_COMPOSES = """
import pathlib, signal, sys
from hydra._internal.core_plugins import importlib_resources_config_source as source
which, opened, calls = sys.argv.pop(1), pathlib.Path.open, []
def composing(which):
    frame, names = sys._getframe(2), set()
    while frame is not None:
        names.add(frame.f_code.co_name)
        frame = frame.f_back
    return ("get_mode" in names) == (which == "mode")
def open_interrupted(self, *args, **kwargs):
    if sys._getframe(1).f_code.co_filename == source.__file__ and composing(which):
        calls.append(self)
        if len(calls) == 3:
            pathlib.Path.open = opened
            signal.raise_signal(signal.SIGTERM)
    return opened(self, *args, **kwargs)
pathlib.Path.open = open_interrupted
from roundlab.train import main
sys.argv = ["roundlab.train", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("which", ["mode", "run"])
def test_a_signal_while_hydra_composes_the_config_exits_as_an_interruption(tmp_path, which):
    done = _interrupted_command(
        tmp_path, _SIGNAL_WHILE_HYDRA_COMPOSES, which, f"results_dir={tmp_path}"
    )
    if which == "run":  # Hydra's own report of the error it made of it; no run had begun
        assert "UnboundLocalError" in done.stderr
        assert not list(tmp_path.rglob("*.json"))


def test_a_signal_at_any_moment_of_entering_or_leaving_the_block_never_leaves_it_installed():
    """Signals sent while blocks are entered and left, as many as land inside a long one: each
    block's handler, its watch and its unraisable hook are gone once it is left, whatever it
    raised. A handler left installed would keep raising the interruption every WATCH_S, in
    whatever the process does next."""
    outside = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    previous, hook = signal.getsignal(signal.SIGTERM), sys.unraisablehook
    sending = threading.Event()

    def send():
        while not sending.wait(0.001):
            os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=send)
    sender.start()
    left = []
    try:
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not left:
            try:
                with interruptible():
                    pass
            except Interrupted:
                pass
            if signal.getsignal(signal.SIGTERM) is not previous or sys.unraisablehook is not hook:
                left.append(signal.getsignal(signal.SIGTERM))
    finally:
        sending.set()
        sender.join()
        for handler in left:  # stop its watch: its next signal would end the test session
            handler.__self__.close()
        signal.signal(signal.SIGTERM, outside)
        sys.unraisablehook = hook
    assert left == []
    time.sleep(2 * WATCH_S)  # a watch left running would raise here


# A run that ends in a lazy import as SIGTERM arrives: the import defers it, the block ends.
_SIGNAL_IN_THE_LAST_IMPORT = """
import pathlib, sys
last = "import signal\\nsignal.raise_signal(signal.SIGTERM)\\n"
pathlib.Path("imported_last.py").write_text(last)
sys.path.insert(0, ".")
from roundlab import train
def hydra_task():
    import imported_last  # noqa: F401
train.hydra_task = hydra_task
train.main()
"""


def test_a_signal_deferred_to_the_end_of_the_command_exits_as_an_interruption(tmp_path):
    done = _interrupted_command(tmp_path, _SIGNAL_IN_THE_LAST_IMPORT)
    assert "Traceback" not in done.stderr


def test_an_interruption_lost_just_before_the_block_ends_is_raised_on_leaving():
    """The watch raises a lost interruption again only a WATCH_S later: a block that ends
    sooner (a run's last second, hydra_task's block inside train.main's) must not drop it."""
    with pytest.raises(Interrupted) as caught, interruptible():
        _SignalledWhileCollected()  # its __del__ takes the interruption; the block ends at once
    assert caught.value.exit_code == 143


def test_an_interruption_replaced_by_an_error_raised_from_another_is_still_carried():
    """``raise X from Y`` inside a handler: the interruption is X's context, Y its cause."""
    try:
        try:
            raise Interrupted(signal.SIGTERM)
        except Interrupted:
            raise RuntimeError("a library's own error") from ValueError("unrelated")
    except RuntimeError as err:
        assert carried(err).reason == "interrupted by SIGTERM"
    assert carried(ValueError("no interruption")) is None
