"""An sqlite store is written through a write-ahead log, synced at checkpoints rather than at
every commit (roundlab.tracking.store), unless it is on a network file system; other sqlite
databases of the process are left alone; and what a sweep's processes wrote is all there for a
reader that knows nothing of that."""

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import sqlalchemy

from roundlab.tracking import store


def test_a_prepared_store_keeps_a_write_ahead_log_and_commits_without_a_sync(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    store.prepare_store(uri)
    with sqlite3.connect(tmp_path / "mlflow.db") as plain:  # a reader without roundlab's settings
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    engine = sqlalchemy.create_engine(uri)  # another engine on the store: MLflow makes its own
    with engine.connect() as connection:
        # 1 is NORMAL: sqlite's default, 2 (FULL), syncs the disk at every commit
        assert connection.exec_driver_sql("PRAGMA synchronous").fetchone() == (1,)
    engine.dispose()


def test_another_sqlite_database_of_the_process_keeps_its_journal(tmp_path):
    store.prepare_store(f"sqlite:///{tmp_path / 'mlflow.db'}")
    other = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'other.db'}")
    with other.connect() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x)")
        assert connection.exec_driver_sql("PRAGMA journal_mode").fetchone() == ("delete",)
        assert connection.exec_driver_sql("PRAGMA synchronous").fetchone() == (2,)
    other.dispose()
    assert not (tmp_path / "other.db-wal").exists()


MOUNTS = """\
22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
40 22 0:50 / /home rw,relatime shared:20 - nfs4 server:/home rw,vers=4.2
41 40 253:2 / /home/me/local\\040disk rw,relatime shared:21 - xfs /dev/vdb1 rw
"""


def test_a_store_on_a_network_file_system_is_told_by_the_mount_holding_it(tmp_path):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(MOUNTS)
    assert store.on_network_file_system(Path("/home/me/p/mlflow.db"), mountinfo)
    assert not store.on_network_file_system(Path("/home/me/local disk/mlflow.db"), mountinfo)
    assert not store.on_network_file_system(Path("/work/p/mlflow.db"), mountinfo)
    assert not store.on_network_file_system(Path("/work/p/mlflow.db"), tmp_path / "absent")


def test_a_store_on_a_network_file_system_keeps_its_journal(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "on_network_file_system", lambda db: True)
    store.prepare_store(f"sqlite:///{tmp_path / 'mlflow.db'}")
    with sqlite3.connect(tmp_path / "mlflow.db") as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def test_runs_written_by_processes_that_exit_are_all_read_back(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    store.prepare_store(uri)
    write = (
        "import sys; from roundlab.tracking import store; "
        "c = store.client(sys.argv[1]); e = store.experiment_id(c, 'wal'); "
        "[c.set_terminated(c.create_run(e, run_name=f'{sys.argv[2]}-{i}').info.run_id) "
        "for i in range(5)]"
    )
    writers = [subprocess.Popen([sys.executable, "-c", write, uri, str(p)]) for p in range(3)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    with sqlite3.connect(tmp_path / "mlflow.db") as plain:
        names = {row[0] for row in plain.execute("SELECT name FROM runs WHERE status='FINISHED'")}
    assert names == {f"{p}-{i}" for p in range(3) for i in range(5)}


# A child preparing the store that says when it asks for its turn and when it gets it.
TRACED = (
    "import fcntl\n"
    "from roundlab.tracking import store\n"
    "asked = fcntl.flock\n"
    "def flock(fd, op):\n"
    "    print('asking', op == fcntl.LOCK_SH, flush=True)\n"
    "    asked(fd, op)\n"
    "    print('got', flush=True)\n"
    "fcntl.flock = flock\n"
    "store.prepare_store({uri!r})\n"
)


def _waits_for_its_turn(uri: str) -> tuple[bool, subprocess.Popen]:
    """Start a child preparing ``uri`` while this process holds the turn: (whether it asked
    for a shared turn, the child, still blocked two seconds after asking)."""
    child = subprocess.Popen(
        [sys.executable, "-c", TRACED.format(uri=uri)], stdout=subprocess.PIPE, text=True
    )
    asking = child.stdout.readline().split()
    assert asking[:1] == ["asking"], asking
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=2)
    assert child.returncode is None, "went on while another process held the turn"
    return asking[1] == "True", child


def _got_it(child: subprocess.Popen) -> None:
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0 and out.split() == ["got"]


def test_processes_take_turns_at_making_a_new_stores_schema(tmp_path):
    """A process preparing the store waits while another holds its turn, then finds the
    schema made; three starting together on one new store all write their run into it."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with store._schema_turn(tmp_path / "mlflow.db"):
        shared, child = _waits_for_its_turn(uri)
    assert not shared  # a new store: made by one process alone
    _got_it(child)
    again = tmp_path / "again"
    uri = f"sqlite:///{again / 'mlflow.db'}"
    # Any first use of the store takes the turn, not only prepare_store: a worker's client.
    code = f"from roundlab.tracking import store; store.client({uri!r}).create_run('0')"
    together = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
    assert [p.wait(timeout=180) for p in together] == [0, 0, 0]
    with sqlite3.connect(again / "mlflow.db") as plain:
        assert plain.execute("SELECT count(*) FROM experiments").fetchone() == (1,)
        assert plain.execute("SELECT count(*) FROM runs").fetchone() == (3,)


def test_a_made_store_is_opened_beside_other_readers_but_after_whoever_makes_it(tmp_path):
    """A store whose schema is made is opened under a shared turn: beside another reader at
    once, and after a process still making the schema (its tables appear one by one)."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    store.prepare_store(uri)
    code = f"from roundlab.tracking import store; store.prepare_store({uri!r})"
    with store._schema_turn(tmp_path / "mlflow.db", shared=True):
        assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
    with store._schema_turn(tmp_path / "mlflow.db"):  # as a process making the schema holds it
        shared, child = _waits_for_its_turn(uri)
    assert shared
    _got_it(child)


def test_a_store_older_or_half_made_is_opened_alone(tmp_path):
    """Only this MLflow's whole schema, at its latest migration, counts as made: a store that
    misses a table or carries an older stamp is one MLflow will migrate on first use."""
    made = tmp_path / "mlflow.db"
    store.prepare_store(f"sqlite:///{made}")
    assert store._has_schema(made)
    for name, change in (
        ("older.db", "UPDATE alembic_version SET version_num = '0a8213491aaa'"),
        ("half.db", "DROP TABLE latest_metrics"),
    ):
        copy = tmp_path / name
        copy.write_bytes(made.read_bytes())
        with contextlib.closing(sqlite3.connect(copy)) as plain, plain:
            plain.execute(change)
        assert not store._has_schema(copy), name
    assert not store._has_schema(tmp_path / "none.db")


def test_a_file_system_without_flock_still_gets_its_store(tmp_path, monkeypatch):
    """Where ``flock`` is refused (NFS's emulation for a directory) the store is made
    without a turn, as MLflow alone makes it, rather than tracking being switched off."""

    def refused(fd, op):
        raise OSError(9, "Bad file descriptor")

    monkeypatch.setattr(store.fcntl, "flock", refused)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    store.prepare_store(uri)
    assert store._has_schema(tmp_path / "mlflow.db")
