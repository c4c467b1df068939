"""The study database file of ``humaneval serve``: its name, the header check and the connection.

Both the server (:mod:`humaneval.serve`) and the reader of its results
(:func:`humaneval.collect.prolific.read_prolific`) open the file, so these three live below
both subpackages. Every connection runs ``journal_mode=WAL``, ``synchronous=FULL``,
``foreign_keys=ON`` and ``busy_timeout=5000`` (docs/serve.md, "Storage and durability").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

DB_NAME = "study.sqlite"


def is_database(path: str | Path) -> bool:
    """Whether ``path`` starts with the SQLite header: checked before :func:`connect`, whose WAL
    pragma would turn an empty file into a database."""
    with open(path, "rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection with the durability pragmas of docs/serve.md (autocommit; transactions are explicit)."""
    connection = sqlite3.connect(str(path), isolation_level=None, timeout=5.0, check_same_thread=False)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("PRAGMA foreign_keys=ON")
    connection.execute("PRAGMA busy_timeout=5000")
    return connection
