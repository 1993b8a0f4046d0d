"""SQLite plumbing for the memory cache: connections, migrations, corruption quarantine, write retries.

One database file per workspace holds the memory tables and the tables of any package that registers
its migrations here (the sync outbox does), so an entry and its outbox row commit in one transaction.
The memory store owns the file: it opens the connection and runs every registered migration; the other
packages work on their tables through the store's unit of work, never through a connection of their own.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TypeVar

from edge_agent.errors import MemoryStoreError
from edge_agent.memory.captures import utc_now
from edge_agent.memory.errors import MemoryBusyError, MemoryFullError
from edge_agent.paths import private_file

log = logging.getLogger(__name__)
T = TypeVar("T")

BUSY_TIMEOUT_MS = 5_000
# Total time a writer keeps retrying a locked database before giving up with MemoryBusyError.
WRITE_DEADLINE_S = 60.0
# Bound the WAL file after checkpoints: a field device's SD card is small, so no file the store writes may
# grow without limit.
JOURNAL_SIZE_LIMIT = 16 * 1024 * 1024
# Checkpoint when the WAL holds this many pages (4 KiB each: the same 16 MiB). SQLite's default of 1000
# checkpointed every few capture batches; with fewer, larger checkpoints a page that several commits
# changed (index leaves, the full-text segments, the outbox tail) is copied into the database once.
WAL_AUTOCHECKPOINT_PAGES = 4000
_MIGRATION_NAME = re.compile(r"^\d{4}_[A-Za-z0-9_]+\.sql$")
CLEAN_MARKER_SUFFIX = ".clean"

SQLITE_BUSY, SQLITE_LOCKED, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_NOTADB = 5, 6, 11, 13, 26


def is_busy(exc: sqlite3.Error) -> bool:
    """True for 'database is locked' / busy errors that a retry can clear."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def is_full(exc: sqlite3.Error) -> bool:
    """True when SQLite reports the disk or max_page_count full."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF == SQLITE_FULL:
        return True
    return "disk is full" in str(exc) or "database or disk is full" in str(exc)


def is_corrupt(exc: sqlite3.Error) -> bool:
    """True when the file is not a database or its pages are damaged."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return True
    text = str(exc)
    return "not a database" in text or "malformed" in text


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """Open a connection with the store's pragmas (WAL, foreign keys, busy timeout, FULL sync)."""
    if read_only:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_MS / 1000)
    else:
        private_file(path)  # 0600 before SQLite creates it; the WAL and shm files copy its mode
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_MS / 1000)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not read_only:
        _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone(), path)
        # FULL: a commit is on storage before reflect/record_capture acknowledge it (the outbox
        # relies on that); the WAL keeps it to one fsync per transaction.
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
    return conn


def _retry_busy(fn: Callable[[], T], path: Path) -> T:
    """Run ``fn``, retrying while another connection holds the lock, up to WRITE_DEADLINE_S."""
    deadline = time.monotonic() + WRITE_DEADLINE_S
    delay = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            if time.monotonic() > deadline:
                raise MemoryBusyError(str(path), WRITE_DEADLINE_S) from None
            time.sleep(delay)  # back off; busy_timeout already waited inside SQLite
            delay = min(delay * 2, 0.25)


def quarantine(path: Path, reason: str) -> Path:
    """Move a corrupt database (and its -wal/-shm) aside with a UTC timestamp; never delete it."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            src.rename(Path(f"{target}{suffix}"))
    log.error(
        "MEMORY DATABASE CORRUPT: %s (%s). It was moved aside to %s and a fresh, empty database was "
        "started; the old file is kept for recovery (sqlite3 %s '.recover').",
        path, reason, target, target,
    )
    return target


def check_integrity(conn: sqlite3.Connection, *, full: bool) -> str | None:
    """Return None if the database reads fine, else a short reason (raises nothing)."""
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if full:
            row = conn.execute("PRAGMA quick_check(1)").fetchone()
            if row is None or row[0] != "ok":
                return f"quick_check: {row[0] if row else 'no result'}"
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):
            return None
        return str(exc)
    return None


# prefix -> folder of NNNN_name.sql files, in the order the packages registered (memory first).
_MIGRATIONS: dict[str, Traversable] = {}


def register_migrations(prefix: str, folder: Traversable) -> None:
    """Add a package's tables to the state database: the ``NNNN_name.sql`` files in ``folder``.

    Each package that keeps tables in the memory database registers its folder once, at import; the
    store applies them after the ones registered before (each recorded as ``<prefix>/<file name>``).
    A package imported after a store was opened calls :meth:`MemoryStore.apply_migrations`.
    """
    known = _MIGRATIONS.get(prefix)
    if known is not None and str(known) != str(folder):
        raise ValueError(f"migration prefix {prefix!r} is already registered for {known}")
    _MIGRATIONS[prefix] = folder


def migration_files(prefix: str | None = None) -> list[tuple[str, str]]:
    """(name, sql) of every registered migration (or of one prefix's), in the order they apply."""
    out: list[tuple[str, str]] = []
    for pre, folder in _MIGRATIONS.items():
        if prefix is not None and pre != prefix:
            continue
        names = sorted(p.name for p in folder.iterdir() if _MIGRATION_NAME.match(p.name))
        out.extend((f"{pre}/{name}", (folder / name).read_text(encoding="utf-8")) for name in names)
    return out


def split_statements(sql: str) -> list[str]:
    """Split a script into complete statements (trigger bodies keep their inner semicolons)."""
    statements: list[str] = []
    buf = ""
    for piece in sql.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if _has_code(buf):
                statements.append(buf.strip())
            buf = ""
    if _has_code(buf):
        statements.append(buf.strip())
    return statements


def _has_code(text: str) -> bool:
    """True if the text holds more than SQL comments, blank lines and semicolons."""
    lines = (line.split("--", 1)[0] for line in text.splitlines())
    return any(line.strip(" \t;") for line in lines)


def migrate(conn: sqlite3.Connection, path: Path) -> list[str]:
    """Apply pending migrations, each in its own IMMEDIATE transaction; return the names applied."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    applied: list[str] = []
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    for name, sql in migration_files():
        if name in done:
            continue  # the common case at every open: no write transaction for it
        with write_transaction(conn, path, "migrate " + name):
            # Re-checked under the write lock: two processes may open a fresh file at once.
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                continue
            for stmt in split_statements(sql):
                conn.execute(stmt)
            conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", (name, utc_now()))
            applied.append(name)
    if applied:
        log.info("memory database %s: applied migrations %s", path, ", ".join(applied))
    return applied


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection, path: Path, operation: str,
                      lock: threading.RLock | None = None) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE (retrying a locked database), yield, COMMIT; roll back on any error.

    IMMEDIATE takes the write lock up front, so two processes queue on busy_timeout instead of one
    failing on a read-to-write lock upgrade. Disk-full becomes MemoryFullError; lock waits beyond
    WRITE_DEADLINE_S become MemoryBusyError; "database is locked" itself never escapes.
    """
    with lock if lock is not None else contextlib.nullcontext():
        _retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"), path)
        try:
            yield conn
            _retry_busy(lambda: conn.execute("COMMIT"), path)
        except BaseException as exc:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                if is_full(exc):
                    raise MemoryFullError(str(path), operation) from exc
                if is_corrupt(exc):
                    raise MemoryStoreError(
                        f"{path}: the memory database is damaged ({exc}); restart edge-agent so it is moved "
                        "aside and a fresh one started"
                    ) from exc
            raise


register_migrations("memory", resources.files("edge_agent.memory") / "migrations")
