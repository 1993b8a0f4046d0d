"""The shared state of one open memory database: connection, lock, transactions, audit and counters.

Every part of the store (entries, capture writer, recall, maintenance, export/import) works through one
:class:`StoreCore`, so there is one connection, one lock and one place where a write transaction starts
(and flushes the access counts recall batched up).
"""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from edge_agent.config import Settings
from edge_agent.credentials import Screen
from edge_agent.errors import MemoryStoreError
from edge_agent.jsontypes import JsonValue
from edge_agent.memory import db as dbmod
from edge_agent.memory.captures import CaptureSink, utc_now
from edge_agent.memory.errors import InvalidEntryError, MemoryBusyError, ReadOnlyNamespaceError
from edge_agent.memory.model import check_namespace, to_json
from edge_agent.memory.search import TermStats

log = logging.getLogger(__name__)

_WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ACCESS_FLUSH_AT = 256


def check_workspace(name: object) -> str:
    """Workspace names are directory names: letters, digits, '_', '.', '-' (no path separators)."""
    if not isinstance(name, str) or not _WORKSPACE_NAME.match(name) or name in (".", ".."):
        raise InvalidEntryError(
            f"workspace name {name!r} is invalid: use letters, digits, _ . - (up to 64 characters)", field="workspace"
        )
    return name


def effective_workspace(settings: Settings, workspace: str | None = None) -> str:
    """The workspace whose memory a request uses ('default' when workspaces are off or not isolated)."""
    ws = settings.workspace
    if workspace is not None:
        name = check_workspace(workspace)
    else:
        name = check_workspace(ws.name) if ws.enabled else "default"
    if ws.enabled and not ws.isolate_memory:
        return "default"
    return name


def memory_dir(state_dir: Path, workspace: str) -> Path:
    """``<state>/workspaces/<name>/memory``."""
    return Path(state_dir) / "workspaces" / check_workspace(workspace) / "memory"


def not_in(column: str, values: Sequence[Any]) -> str:
    """``column NOT IN (?, ...)``, or an always-true clause for no values (NOT IN (NULL) is never true)."""
    return f"{column} NOT IN ({','.join('?' * len(values))})" if values else "1"


class StoreCore:
    """One workspace's open memory database and what every part of the store shares. Thread-safe."""

    def __init__(self, conn: sqlite3.Connection, db_path: Path, settings: Settings, state_dir: Path,
                 workspace: str, capture_sink: CaptureSink | None, recovered_from: Path | None) -> None:
        self.conn = conn
        self.db_path = db_path
        self.settings = settings
        self.state_dir = Path(state_dir)
        self.workspace = workspace
        self.capture_sink = capture_sink
        self.recovered_from = recovered_from
        self.lock = threading.RLock()
        self.pending_access: dict[str, tuple[int, str]] = {}
        self.term_stats = TermStats()
        # Every write is screened for credentials before its dedup hash is taken (``[kumiho] secret_policy``,
        # whether or not sync is on); text kept only in process memory is always redacted.
        self.screen = Screen(self.state_dir, settings.kumiho.secret_policy)
        self.redactor = Screen(self.state_dir, "redact")
        self.degraded = False
        self.closed = False

    # --- transactions -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self, operation: str) -> Iterator[sqlite3.Connection]:
        """A write transaction (committed on exit); pending access counts are written in it too."""
        self.check_open()
        with self.lock:
            try:
                with dbmod.write_transaction(self.conn, self.db_path, operation) as conn:
                    self._flush_access(conn)
                    yield conn
            except BaseException as exc:
                self.term_stats.clear()  # counts noted for rolled-back inserts are wrong now
                self.note_damage(exc)
                raise

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection for reads, under the lock; busy and damaged databases become clear errors."""
        self.check_open()
        with self.lock:
            try:
                yield self.conn
            except sqlite3.DatabaseError as exc:
                if dbmod.is_busy(exc):
                    raise MemoryBusyError(str(self.db_path), dbmod.BUSY_TIMEOUT_MS / 1000) from None
                self.note_damage(exc)
                hint = "; restart edge-agent so it is moved aside and a fresh one started" if self.degraded else ""
                raise MemoryStoreError(f"{self.db_path}: reading memory failed: {exc}{hint}") from exc

    def note_damage(self, exc: BaseException) -> None:
        """Page damage seen at run time: drop the clean-shutdown marker so the next open checks every page."""
        cause = exc if isinstance(exc, sqlite3.DatabaseError) else exc.__cause__
        if isinstance(cause, sqlite3.DatabaseError) and dbmod.is_corrupt(cause):
            if not self.degraded:
                log.error("MEMORY DATABASE DAMAGED: %s (%s); it will be checked and moved aside at the next start",
                          self.db_path, cause)
            self.degraded = True
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.db_path}{dbmod.CLEAN_MARKER_SUFFIX}").unlink()

    def check_open(self) -> None:
        if self.closed:
            raise MemoryStoreError("the memory store is closed; open it again with MemoryStore.open()")

    # --- settings helpers -------------------------------------------------------------------------

    @property
    def default_namespace(self) -> str:
        return self.settings.memory.default_namespace

    def namespace(self, namespace: object) -> str:
        """The namespace a call means (the default when None), validated."""
        return check_namespace(namespace if namespace is not None else self.default_namespace)

    def check_writable(self, namespace: str, operation: str) -> None:
        if namespace in self.settings.memory.policy.read_only_namespaces:
            raise ReadOnlyNamespaceError(namespace, operation)

    def audit(self, conn: sqlite3.Connection, operation: str, entry_id: str | None, key: str | None,
              namespace: str | None, **detail: JsonValue) -> None:
        """One audit row (when ``[memory] audit_enabled``), inside the caller's transaction."""
        if self.settings.memory.audit_enabled:
            conn.execute(
                "INSERT INTO audit (at, operation, entry_id, key, namespace, detail) VALUES (?, ?, ?, ?, ?, ?)",
                (utc_now(), operation, entry_id, key, namespace, to_json(detail)),
            )

    def count_redactions(self, conn: sqlite3.Connection, kinds: Iterable[dict[str, int]]) -> None:
        """Count writes stored redacted (``secrets_redacted``, and per kind), inside the caller's transaction."""
        for per_kind in kinds:
            if per_kind:
                self.bump(conn, "secrets_redacted")
                for kind, n in per_kind.items():
                    self.bump(conn, f"secrets_redacted.{kind}", n)

    @staticmethod
    def bump(conn: sqlite3.Connection, name: str, by: int = 1) -> None:
        conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + ?",
            (name, by, by),
        )

    # --- access counts ----------------------------------------------------------------------------

    def note_access(self, ids: Iterable[str]) -> None:
        """Count reads of entries; written with the next write (or once many are pending)."""
        now = utc_now()
        with self.lock:
            for i in ids:
                n, _ = self.pending_access.get(i, (0, now))
                self.pending_access[i] = (n + 1, now)
            flush = len(self.pending_access) >= _ACCESS_FLUSH_AT
        if flush:
            with contextlib.suppress(MemoryStoreError), self.write("record access"):
                pass

    def _flush_access(self, conn: sqlite3.Connection) -> None:
        # Access counts are batched into the next write: a recall should not cost an fsync.
        if not self.pending_access:
            return
        pending, self.pending_access = self.pending_access, {}
        conn.executemany(
            "UPDATE entries SET access_count = access_count + ?, last_access = ? WHERE id = ?",
            [(n, at, i) for i, (n, at) in pending.items()],
        )
