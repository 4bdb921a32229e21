"""The controller's state in SQLite (WAL): hosts, jobs, attempts, members and checkpoints.

WAL with ``synchronous=NORMAL`` keeps every committed transaction across a kill -9 of the
controller (the operating system still holds the pages); only a power loss may drop the last ones.
One connection behind a lock: the controller's writes are small and serialising them keeps every
state change atomic without a second layer of locking.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["JOB_DONE", "MEMBER_DONE", "Store"]

# Terminal states: nothing more happens to a job or member in them.
JOB_DONE = ("succeeded", "failed", "cancelled")
MEMBER_DONE = ("exited", "lost", "stopped", "failed")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS hosts (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL, os TEXT, arch TEXT,
  cpus INTEGER, memory INTEGER, accelerators TEXT NOT NULL DEFAULT '[]', gpus TEXT NOT NULL DEFAULT '[]',
  max_spaces INTEGER NOT NULL, load REAL NOT NULL DEFAULT 0, state TEXT NOT NULL,
  joined REAL NOT NULL, last_seen REAL NOT NULL, gang_runtimes TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY, file TEXT NOT NULL, fn TEXT NOT NULL, args TEXT NOT NULL, env TEXT NOT NULL,
  nodes_min INTEGER NOT NULL, nodes_max INTEGER NOT NULL, accelerator TEXT NOT NULL, gpu_count INTEGER NOT NULL,
  retries INTEGER NOT NULL, limits TEXT NOT NULL DEFAULT '{}', runtime TEXT NOT NULL DEFAULT 'process',
  state TEXT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '',
  submitted REAL NOT NULL, started REAL, ended REAL, result BLOB, result_format TEXT,
  max_restarts INTEGER NOT NULL DEFAULT 0, restarts INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS attempts (
  job TEXT NOT NULL, n INTEGER NOT NULL, state TEXT NOT NULL, world_size INTEGER NOT NULL,
  master_addr TEXT NOT NULL, master_port INTEGER NOT NULL, started REAL NOT NULL, ended REAL,
  reason TEXT NOT NULL DEFAULT '', PRIMARY KEY (job, n)
);
CREATE TABLE IF NOT EXISTS members (
  id TEXT PRIMARY KEY, job TEXT NOT NULL, attempt INTEGER NOT NULL, rank INTEGER NOT NULL,
  host TEXT NOT NULL, state TEXT NOT NULL, gpus TEXT NOT NULL DEFAULT '[]', stop INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER, log_base INTEGER NOT NULL DEFAULT 0, started REAL NOT NULL, ended REAL,
  reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS members_by_host ON members (host, state);
CREATE INDEX IF NOT EXISTS members_by_job ON members (job, attempt);
CREATE TABLE IF NOT EXISTS spaces (
  member TEXT PRIMARY KEY, host TEXT NOT NULL, path TEXT NOT NULL, runtime TEXT NOT NULL,
  handle TEXT NOT NULL DEFAULT '{}', state TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
  job TEXT NOT NULL, step INTEGER NOT NULL, size INTEGER NOT NULL, created REAL NOT NULL,
  PRIMARY KEY (job, step)
);
"""

# Columns added after the first release, with what fills them in a pool.db written before them
# (SQLite's ADD COLUMN takes a constant default; ``then`` runs once, right after the column is added).
# Jobs submitted before ``max_restarts`` existed keep the policy they were submitted under: no
# separate budget for lost computers (they get as many restarts for one as their --retries, which
# used to cover both), and the attempts they have had so far count as failures already retried.
_ADDED_COLUMNS: tuple[tuple[str, str, str, str | None], ...] = (
    ("jobs", "max_restarts", "INTEGER NOT NULL DEFAULT 0", "UPDATE jobs SET max_restarts = retries"),
    ("jobs", "restarts", "INTEGER NOT NULL DEFAULT 0", None),
    ("jobs", "failures", "INTEGER NOT NULL DEFAULT 0", "UPDATE jobs SET failures = MAX(attempt - 1, 0)"),
    ("hosts", "gang_runtimes", "TEXT NOT NULL DEFAULT '[]'", None),
)

_JSON_COLUMNS = {"accelerators", "gpus", "args", "env", "limits", "handle", "gang_runtimes"}


def _row(row: sqlite3.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    out = dict(row)
    for key in _JSON_COLUMNS & out.keys():
        out[key] = json.loads(out[key])
    return out


def _value(key: str, value: Any) -> Any:
    return json.dumps(value) if key in _JSON_COLUMNS else value


class Store:
    """Rows in, dicts out. Callers hold :meth:`transaction` to make several changes atomic."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._migrate()
        self.lock = threading.RLock()
        self._depth = 0

    def _migrate(self) -> None:
        """Bring a pool.db written by an older version up to this schema, keeping its rows."""

        def columns(table: str) -> set[str]:
            return {r["name"] for r in self._db.execute(f"PRAGMA table_info({table})")}

        if all(column in columns(table) for table, column, _, _ in _ADDED_COLUMNS):
            return
        # Checked again under the write lock: another process may be opening the same file.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for table, column, decl, then in _ADDED_COLUMNS:
                if column not in columns(table):
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
                    if then:
                        self._db.execute(then)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        with self.lock:
            outer = self._depth == 0
            if outer:
                self._db.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth -= 1
                if outer:
                    self._db.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outer:
                self._db.execute("COMMIT")

    # -- generic ------------------------------------------------------------------------------

    def insert(self, table: str, row: dict[str, Any]) -> None:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self.transaction():
            self._db.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", [_value(k, v) for k, v in row.items()])

    def upsert(self, table: str, row: dict[str, Any]) -> None:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self.transaction():
            self._db.execute(
                f"INSERT OR REPLACE INTO {table} ({cols}) VALUES ({marks})", [_value(k, v) for k, v in row.items()]
            )

    def update(self, table: str, where: dict[str, Any], **values: Any) -> int:
        sets = ", ".join(f"{k} = ?" for k in values)
        cond = " AND ".join(f"{k} = ?" for k in where)
        with self.transaction():
            cur = self._db.execute(
                f"UPDATE {table} SET {sets} WHERE {cond}",
                [*(_value(k, v) for k, v in values.items()), *where.values()],
            )
            return cur.rowcount

    def one(self, sql: str, *params: Any) -> dict[str, Any] | None:
        with self.lock:
            return _row(self._db.execute(sql, params).fetchone())

    def all(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        with self.lock:
            rows = self._db.execute(sql, params).fetchall()
        return [r for r in map(_row, rows) if r is not None]

    # -- named queries ------------------------------------------------------------------------

    def host(self, host_id: str) -> dict[str, Any] | None:
        return self.one("SELECT * FROM hosts WHERE id = ?", host_id)

    def hosts(self) -> list[dict[str, Any]]:
        return self.all("SELECT * FROM hosts WHERE state != 'removed' ORDER BY joined")

    def job(self, job_id: str) -> dict[str, Any] | None:
        return self.one("SELECT * FROM jobs WHERE id = ?", job_id)

    def jobs(self, limit: int = 100) -> list[dict[str, Any]]:
        return self.all(
            "SELECT id, file, fn, nodes_min, nodes_max, accelerator, state, attempt, reason, submitted, started,"
            " ended FROM jobs ORDER BY submitted DESC LIMIT ?",
            limit,
        )

    def members(self, job_id: str, attempt: int | None = None) -> list[dict[str, Any]]:
        if attempt is None:
            return self.all("SELECT * FROM members WHERE job = ? ORDER BY attempt, rank", job_id)
        return self.all("SELECT * FROM members WHERE job = ? AND attempt = ? ORDER BY rank", job_id, attempt)

    def member(self, member_id: str) -> dict[str, Any] | None:
        return self.one("SELECT * FROM members WHERE id = ?", member_id)

    def live_members_on(self, host_id: str) -> list[dict[str, Any]]:
        marks = ", ".join("?" for _ in MEMBER_DONE)
        return self.all(f"SELECT * FROM members WHERE host = ? AND state NOT IN ({marks})", host_id, *MEMBER_DONE)

    def spaces(self, job_id: str) -> list[dict[str, Any]]:
        return self.all(
            "SELECT s.* FROM spaces s JOIN members m ON m.id = s.member WHERE m.job = ? ORDER BY s.created", job_id
        )

    def attempts(self, job_id: str) -> list[dict[str, Any]]:
        return self.all("SELECT * FROM attempts WHERE job = ? ORDER BY n", job_id)

    def active_jobs(self) -> list[dict[str, Any]]:
        marks = ", ".join("?" for _ in JOB_DONE)
        return self.all(f"SELECT * FROM jobs WHERE state NOT IN ({marks}) ORDER BY submitted", *JOB_DONE)


def now() -> float:
    return time.time()
