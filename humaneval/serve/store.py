"""The collection server's SQLite file (docs/serve.md, "Storage and durability").

Every connection runs ``journal_mode=WAL``, ``synchronous=FULL`` (a commit that returned survives
power loss), ``foreign_keys=ON`` and ``busy_timeout=5000``. Every state change is one
transaction opened with ``BEGIN IMMEDIATE``; callers answer a request only after
:func:`write` has committed. Within one server process a lock serialises writers, so threads
queue in Python instead of spinning in SQLite's busy handler.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from humaneval.io.studydb import connect, is_database

__all__ = ["Store", "backup", "connect", "create_private", "create_schema", "is_database", "upgrade_schema"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS study (
    key TEXT PRIMARY KEY,
    design_id TEXT NOT NULL,
    design_json TEXT NOT NULL,
    texts_json TEXT NOT NULL,
    config_json TEXT NOT NULL,
    admin_token_sha256 TEXT NOT NULL,
    salt TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS slot (
    id INTEGER PRIMARY KEY,
    study TEXT NOT NULL REFERENCES study(key),
    name TEXT NOT NULL,
    block INTEGER NOT NULL,
    k INTEGER NOT NULL,
    payload_json TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'free' CHECK (state IN ('free', 'reserved', 'complete')),
    participant INTEGER REFERENCES participant(id),
    reserved_at REAL,
    completed_at REAL,
    UNIQUE (study, block, k),
    UNIQUE (study, name)
);
CREATE TABLE IF NOT EXISTS participant (
    id INTEGER PRIMARY KEY,
    study TEXT NOT NULL REFERENCES study(key),
    prolific_pid TEXT NOT NULL,
    study_id_param TEXT NOT NULL,
    session_id_param TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    slot INTEGER NOT NULL REFERENCES slot(id),
    started_at REAL NOT NULL,
    last_seen REAL NOT NULL,
    completed_at REAL,
    released_at REAL,
    late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
    released_by TEXT CHECK (released_by IN ('timeout', 'admin')),
    UNIQUE (study, prolific_pid)
);
CREATE TABLE IF NOT EXISTS response (
    id INTEGER PRIMARY KEY,
    participant INTEGER NOT NULL REFERENCES participant(id),
    screen_index INTEGER NOT NULL,
    session_id_param TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    payload_sha256 TEXT NOT NULL,
    received_at REAL NOT NULL,
    shown_at REAL,
    answered_at REAL,
    seconds REAL,
    visible_seconds REAL,
    UNIQUE (participant, screen_index)
);
CREATE INDEX IF NOT EXISTS slot_by_state ON slot (study, state, block, k);
"""


PRIVATE = 0o600
SIDE_FILES = ("-wal", "-shm", "-journal")


def create_private(path: str | Path) -> None:
    """Create ``path`` empty with mode 0600 before SQLite opens it.

    The database holds raw Prolific IDs, the completion code and the pseudonym salt; SQLite gives
    its ``-wal``/``-shm`` files the mode of the database file, so they are private too.
    """
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))


def make_private(path: str | Path) -> None:
    """Remove group/other access from an existing database and its side files (older studies)."""
    for name in ("", *SIDE_FILES):
        target = Path(f"{path}{name}")
        if target.exists() and stat.S_IMODE(target.stat().st_mode) & 0o077:
            os.chmod(target, stat.S_IMODE(target.stat().st_mode) & 0o700)


class Store:
    """One SQLite file shared by the request threads of a server process.

    Each thread gets its own connection; :meth:`write` is ``BEGIN IMMEDIATE … COMMIT`` (rolled
    back on any exception) and :meth:`read` one deferred read transaction (a consistent snapshot
    that never blocks writers in WAL mode).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        make_private(self.path)
        self._local = threading.local()
        self._write_lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = connect(self.path)
        return connection

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        connection = self.connection()
        with self._write_lock:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        connection = self.connection()
        connection.execute("BEGIN")
        try:
            yield connection
        finally:
            connection.execute("COMMIT")


def create_schema(connection: sqlite3.Connection) -> None:
    connection.executescript(SCHEMA)


def upgrade_schema(connection: sqlite3.Connection) -> None:
    """Add what newer versions store to a study created by an older one (``released_by``)."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(participant)")}
    if "released_by" not in columns:
        connection.execute(
            "ALTER TABLE participant ADD COLUMN released_by TEXT CHECK (released_by IN ('timeout', 'admin'))"
        )


def backup(source: str | Path, target: str | Path) -> Path:
    """Copy a live study database with SQLite's online backup API.

    Safe while the server runs: the copy is a consistent snapshot and writers are blocked only
    for the short steps of the copy.
    """
    target = Path(target)
    if target.exists():
        raise FileExistsError(f"{target} exists; choose a new backup file")
    create_private(target)
    origin, copy = connect(source), sqlite3.connect(str(target))
    try:
        origin.backup(copy, pages=256)
    finally:
        copy.close()
        origin.close()
    return target
