"""An sqlite store is written through a write-ahead log, synced at checkpoints rather than at
every commit (roundlab.tracking.store), and what a sweep's processes wrote is all there for a
reader that knows nothing of that."""

import sqlite3
import subprocess
import sys

import sqlalchemy

from roundlab.tracking import store


def test_a_prepared_store_keeps_a_write_ahead_log_and_commits_without_a_sync(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    store.prepare_store(uri)
    with sqlite3.connect(tmp_path / "mlflow.db") as plain:  # a reader without roundlab's settings
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    engine = sqlalchemy.create_engine(uri)  # any engine of this process: MLflow makes its own
    with engine.connect() as connection:
        # 1 is NORMAL: sqlite's default, 2 (FULL), syncs the disk at every commit
        assert connection.exec_driver_sql("PRAGMA synchronous").fetchone() == (1,)
    engine.dispose()


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
