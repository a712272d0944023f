"""The MLflow store: a client on the tracking URI, its experiments, and the tags that name the
process owning a run.

Everything goes through an explicit ``MlflowClient`` (no fluent global state shared by the jobs
of one process, and no ``mlflow.tensorflow.autolog``, which needs TensorBoard). The store is
``roundlab.paths.default_tracking_uri()`` unless ``tracking.uri`` says otherwise; for an sqlite
store the artifacts go to ``mlartifacts/`` beside the database, not into the working directory.

The default store is ``<project root>/mlflow.db``, the root as :func:`roundlab.paths.project_root`
finds it: ``$ROUNDLAB_ROOT``, else the nearest directory at or above the working directory that
holds ``dvc.yaml`` or ``pyproject.toml``, else the working directory itself. A command that is
about to create that database at a root holding neither file (outside a checkout) logs one
warning naming the file and how its root was chosen (:func:`announce_new_store`), so a store
that lands in an unexpected directory is seen when it is made, not when runs seem lost.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import socket
import sqlite3
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from roundlab import paths

# Set by the sweep stage for its multiruns: the profile the runs belong to (a tag of each run).
PROFILE_ENV = "ROUNDLAB_PROFILE"
# Why a run ended FAILED (or KILLED): its error, as the result file holds it.
ERROR_TAG = "roundlab.error"
HOST_TAG = "roundlab.host"
PID_TAG = "roundlab.pid"
ROOT_ENV = "ROUNDLAB_ROOT"
URI_ENV = "MLFLOW_TRACKING_URI"

log = logging.getLogger(__name__)


def quiet() -> None:
    """Keep MLflow's and alembic's info chatter (schema migrations, run links) out of job logs.

    After importing mlflow, which sets its own logger's level when imported."""
    import mlflow  # noqa: F401

    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # no bars in logs
    for name in ("mlflow", "alembic", "sqlalchemy"):
        logging.getLogger(name).setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", module=r"mlflow\..*")


def client(uri: str | None = None) -> Any:
    """The process's ``MlflowClient`` on ``uri`` (default: the project's store), made once per
    URI: a sweep's jobs and a group's members share it instead of each resolving the store."""
    uri = uri or paths.default_tracking_uri()
    announce_new_store(uri)
    return _client(uri)


@functools.cache
def _client(uri: str) -> Any:
    quiet()
    from mlflow.tracking import MlflowClient

    db = sqlite_file(uri)
    if db is None:
        return MlflowClient(tracking_uri=uri)
    if not on_network_file_system(db):
        _sqlite_write_ahead_log(db)
    # MLflow makes a missing schema on the store's first use; two processes making it at once
    # leave it broken (a migration step drops `runs` before it renames its copy back).
    with _schema_turn(db, shared=_has_schema(db)):
        made = MlflowClient(tracking_uri=uri)
        made.search_experiments(max_results=1)
    return made


def _sqlite_write_ahead_log(db: Path) -> None:
    """The store ``db``, on every sqlite connection this process opens to it, uses a write-ahead
    log, synced at checkpoints rather than at every commit (``journal_mode=WAL``,
    ``synchronous=NORMAL``); other sqlite databases of the process are left as they are.

    A sweep records each run in several transactions, from two or more processes that take
    turns at the database's one write lock; with sqlite's default rollback journal every commit
    waits for the disk (a few to 20 ms each on a busy one) while holding that lock. With the
    log, a commit survives a crash of the process that made it, and a power cut loses at most
    the last commits, never the database's consistency (sqlite.org/wal.html); the result
    files, not MLflow, are what the report reads. Readers (``mlflow ui``) no longer block the
    writers either. The mode stays with the file. A store on a network file system keeps its
    journal (:func:`on_network_file_system`): the log's shared memory cannot span machines.
    """
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    _WAL_STORES.add(os.path.realpath(db))
    if not event.contains(Engine, "connect", _sqlite_pragmas):
        event.listen(Engine, "connect", _sqlite_pragmas)


_WAL_STORES: set[str] = set()
# File systems whose files other machines share (a cluster's home or scratch directory).
NETWORK_FILE_SYSTEMS = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "ceph", "glusterfs"}
    | {"fuse.sshfs", "fuse.glusterfs", "fuse.ceph", "fuse.beegfs", "9p", "afs", "panfs"}
)


def on_network_file_system(path: Path, mountinfo: Path = Path("/proc/self/mountinfo")) -> bool:
    """Whether ``path`` (or the directory it would be created in) is on a network file system,
    by the mount holding it in ``mountinfo`` (Linux; False where there is none)."""
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        return False
    where = Path(os.path.realpath(path))
    best, kind = -1, ""
    for line in lines:
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not rest:
            continue
        mount = Path(parts[4].replace("\\040", " "))
        if (where == mount or mount in where.parents) and len(mount.parts) > best:
            best, kind = len(mount.parts), rest.split()[0]
    return kind in NETWORK_FILE_SYSTEMS


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    main = [row[2] for row in dbapi_connection.execute("PRAGMA database_list") if row[1] == "main"]
    if not main or not main[0] or os.path.realpath(main[0]) not in _WAL_STORES:
        return
    cursor = dbapi_connection.cursor()
    try:
        # another process holding the database now: it switches on a later connection
        with contextlib.suppress(sqlite3.OperationalError):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def sqlite_file(uri: str) -> Path | None:
    """The database file of an ``sqlite:///`` URI, None for any other store."""
    return Path(uri[len("sqlite:///") :]).absolute() if uri.startswith("sqlite:///") else None


def announce_new_store(uri: str) -> None:
    """Log where the store is when ``uri`` is the project's default store, its database does
    not exist yet (this command creates it) and the project root holds no ``dvc.yaml`` or
    ``pyproject.toml``: the runs then go to a store of their own, outside any checkout."""
    root = paths.project_root()
    db = root / "mlflow.db"
    if os.environ.get(URI_ENV) or sqlite_file(uri) != db or db.exists():
        return
    if any((root / marker).is_file() for marker in paths.ROOT_MARKERS):
        return
    log.warning("new MLflow store %s: %s", db, root_origin(root))


def root_origin(root: Path) -> str:
    """How the project root ``root`` was chosen, in words, with how to choose another."""
    if os.environ.get(ROOT_ENV):
        return f"the project root is ${ROOT_ENV}={root}"
    found = [marker for marker in paths.ROOT_MARKERS if (root / marker).is_file()]
    if found:
        return f"the project root {root} holds {found[0]}, the nearest above the working directory"
    markers = " or ".join(paths.ROOT_MARKERS)
    return (
        f"no {markers} at or above the working directory and ${ROOT_ENV} unset, so the "
        f"project root is the working directory; set {ROOT_ENV}=<checkout> (or "
        f"{URI_ENV}) to track into a project's store"
    )


def prepare_store(uri: str | None = None) -> None:
    """Create the store's schema when it has none (MLflow makes it when first asked). For an
    sqlite store, processes take turns at this under a lock on the database's directory: a
    sweep's workers start together, and two of them creating one schema at once make one of
    them fail; the second finds it made. A store whose schema looks made is opened under a
    shared lock: together with the other readers, after whoever is still making it."""
    client(uri).search_experiments(max_results=1)  # an sqlite store's client takes its turn


def _has_schema(db: Path) -> bool:
    """Whether the sqlite database ``db`` holds this MLflow's whole schema: every table its
    models define, stamped with its latest migration. Opening such a store only reads it, so
    processes share their turn; any other store (new, half made, or made by an older MLflow,
    which MLflow migrates on first use) is opened alone, one process after another."""
    from mlflow.store.db import utils as db_utils

    try:
        with contextlib.closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as found:
            names = {row[0] for row in found.execute("SELECT name FROM sqlite_master")}
            if "alembic_version" not in names:
                return False
            stamps = [row[0] for row in found.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.Error:  # no file yet, or not a database: made (or refused) in turn
        return False
    made = set(db_utils.Base.metadata.tables) <= names
    return made and stamps == [db_utils._get_latest_schema_revision()]


@contextlib.contextmanager
def _schema_turn(db: Path | None, shared: bool = False):
    """A ``flock`` on the directory of the sqlite database ``db`` (none for another store)
    while the block runs, exclusive unless ``shared``; released when the process ends,
    however it ends. Where the file system refuses it (NFS emulates ``flock`` with ``fcntl``
    locks, which an exclusive lock on a directory cannot take) the block runs without it, as
    MLflow alone would."""
    if db is None:
        yield
        return
    db.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(db.parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        except OSError as err:
            log.debug("no turn at the schema of %s: %s", db, err)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def experiment_id(mlflow_client: Any, name: str) -> str:
    """The id of experiment ``name``, created when missing; looked up once per store and name
    in a process (an experiment's id never changes; the lookup is a query per run otherwise)."""
    key = (mlflow_client.tracking_uri, name)
    if key not in _experiment_ids:
        _experiment_ids[key] = _experiment_id(mlflow_client, name)
    return _experiment_ids[key]


_experiment_ids: dict[tuple[str, str], str] = {}


def _experiment_id(mlflow_client: Any, name: str) -> str:
    from mlflow.exceptions import MlflowException

    found = mlflow_client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    try:
        return mlflow_client.create_experiment(
            name, artifact_location=_artifact_location(mlflow_client.tracking_uri)
        )
    except MlflowException:  # created meanwhile by a parallel job
        return mlflow_client.get_experiment_by_name(name).experiment_id


def _artifact_location(uri: str) -> str | None:
    """``<db dir>/mlartifacts`` for an sqlite store; the server's own default otherwise."""
    db = sqlite_file(uri)
    return None if db is None else (db.parent / "mlartifacts").as_uri()


def owner() -> dict[str, str]:
    """The tags naming this process, so a run it leaves RUNNING can be found dead later."""
    return {HOST_TAG: socket.gethostname(), PID_TAG: str(os.getpid())}


def _now_ms() -> int:
    return int(time.time() * 1000)


def every_run(
    mlflow_client: Any, exp_ids: list[str], found: str, page_size: int = 1000
) -> Iterator[Any]:
    """Every run of ``exp_ids`` that the filter ``found`` matches, ``page_size`` at a time: one
    call of ``search_runs`` returns at most 1000, fewer than one dataset's runs in ``full``."""
    token = None
    while exp_ids:
        page = mlflow_client.search_runs(exp_ids, found, max_results=page_size, page_token=token)
        yield from page
        token = page.token
        if not token:
            return
