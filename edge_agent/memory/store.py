"""MemoryStore: the device's local memory cache (one SQLite database per workspace).

Agents *engage* memory before answering (a compact, relevant context within a token budget) and
*reflect* after (captures stored at once and, through a CaptureSink, queued for Kumiho in the same
transaction). The store owns the database (open, recovery, close, the units of work it lends to the
packages with tables in the file) and the entries (store, get, list, forget...). The other jobs have
owners of their own on the same :class:`~edge_agent.memory.core.StoreCore`, reached as attributes:

* ``store.search``: recall and engage (:class:`~edge_agent.memory.recall.Recall`);
* ``store.captures``: captures, reflect, provenance (:class:`~edge_agent.memory.capture_writer.CaptureWriter`);
* ``store.maintenance``: hygiene, snapshots, stats, audit log (:class:`~edge_agent.memory.maintenance.Maintenance`);
* ``store.transfer``: JSON Lines export and import (:class:`~edge_agent.memory.transfer.Transfer`);
* ``store.response_cache``: the model-response cache, a database of its own
  (:class:`~edge_agent.memory.response_cache.ResponseCache`).

Sync records the krefs of uploaded captures through ``store.unit_of_work`` only (one commit with its outbox).
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from edge_agent.config import Settings
from edge_agent.errors import MemoryStoreError
from edge_agent.jsontypes import JsonObject
from edge_agent.memory import db as dbmod
from edge_agent.memory.capture_writer import CaptureWriter
from edge_agent.memory.captures import CaptureSink, utc_now
from edge_agent.memory.core import StoreCore, check_workspace, effective_workspace, memory_dir, not_in
from edge_agent.memory.entries import EntryRepository, EntryRow, filters
from edge_agent.memory.maintenance import SNAPSHOTS_KEPT, Maintenance
from edge_agent.memory.model import Entry, check_key, check_namespace, entry_from_row
from edge_agent.memory.recall import COMPACT_BUDGET_DIVISOR, Recall, render_entry
from edge_agent.memory.response_cache import ResponseCache
from edge_agent.memory.screening import screen_entry
from edge_agent.memory.search import TermStats
from edge_agent.memory.transfer import EXPORT_FIELDS, Transfer
from edge_agent.memory.unit_of_work import UnitOfWork
from edge_agent.paths import private_dir, write_private

log = logging.getLogger(__name__)

_STORE_MANY_CHUNK = 256  # store_many validates and writes its (possibly endless) input this many at a time

__all__ = ["COMPACT_BUDGET_DIVISOR", "EXPORT_FIELDS", "SNAPSHOTS_KEPT", "MemoryStore", "check_workspace",
           "effective_workspace", "memory_dir", "render_entry", "should_auto_save"]


class MemoryStore:
    """The local memory cache of one workspace. Thread-safe; several processes may share the file."""

    #: Recall and engage: the entries relevant to a query, and the prompt-ready context of them.
    search: Recall
    #: Captures (stored and queued for sync in one transaction), reflect, working memory, provenance.
    captures: CaptureWriter
    #: JSON Lines export and import.
    transfer: Transfer
    #: Hygiene (archive, purge, retention), snapshots, stats, the audit log and the health check.
    maintenance: Maintenance

    def __init__(self, conn: sqlite3.Connection, db_path: Path, settings: Settings, state_dir: Path,
                 workspace: str, capture_sink: CaptureSink | None, recovered_from: Path | None) -> None:
        self._core = StoreCore(conn, db_path, settings, state_dir, workspace, capture_sink, recovered_from)
        self._rows = EntryRepository(self._core)
        self.search = Recall(self._core)
        self.captures = CaptureWriter(self._core, self._rows)
        self.transfer = Transfer(self._core, self._rows)
        self.maintenance = Maintenance(self._core, self.transfer)
        self._response_cache: ResponseCache | None = None

    # --- lifecycle --------------------------------------------------------------------------------

    @classmethod
    def open(cls, state_dir: str | os.PathLike[str], settings: Settings | None = None,
             capture_sink: CaptureSink | None = None, *, workspace: str | None = None) -> MemoryStore:
        """Open (creating and migrating) the workspace's memory database.

        A database that cannot be read is moved aside as ``memory.db.corrupt-<UTC time>`` (with its
        WAL), logged at ERROR, and a fresh one is started; nothing is deleted.
        """
        settings = settings or Settings()
        name = effective_workspace(settings, workspace)
        folder = memory_dir(Path(state_dir), name)
        private_dir(folder)
        db_path = folder / "memory.db"
        marker = Path(f"{db_path}{dbmod.CLEAN_MARKER_SUFFIX}")
        existed = db_path.exists() and db_path.stat().st_size > 0
        # A full page check only after an unclean shutdown (no marker): it reads the whole file.
        full_check = existed and not marker.exists()
        recovered: Path | None = None
        conn: sqlite3.Connection | None = None
        try:
            conn = dbmod.connect(db_path)
            reason = dbmod.check_integrity(conn, full=full_check) if existed else None
            if reason is None:
                dbmod.migrate(conn, db_path)
        except MemoryStoreError:
            if conn is not None:
                conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            if not dbmod.is_corrupt(exc):
                if conn is not None:
                    conn.close()
                raise MemoryStoreError(f"{db_path}: cannot open the memory database: {exc}") from exc
            reason = str(exc)
        if reason is not None:
            if conn is not None:
                conn.close()
            recovered = dbmod.quarantine(db_path, reason)
            conn = dbmod.connect(db_path)
            dbmod.migrate(conn, db_path)
        assert conn is not None
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()
        return cls(conn, db_path, settings, Path(state_dir), name, capture_sink, recovered)

    def close(self) -> None:
        """Flush pending access counts, checkpoint, mark a clean shutdown and close. Idempotent."""
        core = self._core
        with core.lock:
            if core.closed:
                return
            if self._response_cache is not None:
                self._response_cache.close()
            try:
                if core.pending_access:
                    try:
                        with core.write("record access"):
                            pass
                    except MemoryStoreError as exc:  # access counts are not worth failing a shutdown for
                        log.warning("memory access counts not saved at close: %s", exc)
                with contextlib.suppress(sqlite3.Error):
                    core.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                core.conn.close()
                core.closed = True
            if not core.degraded:
                with contextlib.suppress(OSError):
                    write_private(f"{core.db_path}{dbmod.CLEAN_MARKER_SUFFIX}", utc_now() + "\n")

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_connection(self, *, read_only: bool = False) -> sqlite3.Connection:
        """A separate connection to the same database with the store's pragmas (for inspection and tools
        run beside the store; the packages with tables in the file use :meth:`unit_of_work`)."""
        return dbmod.connect(self.db_path, read_only=read_only)

    # --- the state database, lent to the packages with tables in it -------------------------------

    @contextlib.contextmanager
    def unit_of_work(self, operation: str) -> Iterator[UnitOfWork]:
        """A write transaction on the store's connection, committed on exit and rolled back on error.

        For a package that keeps its tables in this file (the sync outbox): it writes them through
        ``uow.conn`` and memory's own tables through the unit's methods (``uow.record_krefs``), all in
        one commit. ``operation`` names the work in errors (disk full, database busy).
        """
        with self._core.write(operation) as conn:
            yield UnitOfWork(conn, self._rows)

    @contextlib.contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The store's connection for reads, under its lock (no write may start until the block ends)."""
        with self._core.read() as conn:
            yield conn

    def apply_migrations(self) -> builtins.list[str]:
        """Apply the migrations registered since the store was opened (a package imported later that keeps
        tables here); returns the names applied."""
        with self._core.lock:
            self._core.check_open()
            return dbmod.migrate(self._core.conn, self.db_path)

    @property
    def response_cache(self) -> ResponseCache | None:
        """The workspace's response cache, or None unless ``[memory] response_cache_enabled``."""
        if not self.settings.memory.response_cache_enabled:
            return None
        with self._core.lock:
            self._core.check_open()
            if self._response_cache is None:
                self._response_cache = ResponseCache.open(self.db_path.parent, self.settings)
            return self._response_cache

    # --- shared state -----------------------------------------------------------------------------

    @property
    def db_path(self) -> Path:
        return self._core.db_path

    @property
    def settings(self) -> Settings:
        return self._core.settings

    @property
    def state_dir(self) -> Path:
        return self._core.state_dir

    @property
    def workspace(self) -> str:
        return self._core.workspace

    @property
    def recovered_from(self) -> Path | None:
        return self._core.recovered_from

    @property
    def capture_sink(self) -> CaptureSink | None:
        """Where captures go besides this store (the sync outbox), or None."""
        return self._core.capture_sink

    @capture_sink.setter
    def capture_sink(self, sink: CaptureSink | None) -> None:
        if sink is not None:
            self.apply_migrations()  # the sink's tables, if its package was imported after the store opened
        self._core.capture_sink = sink

    @property
    def degraded(self) -> bool:
        """True once page damage was seen: the next open checks every page and moves a bad file aside."""
        return self._core.degraded

    @property
    def default_namespace(self) -> str:
        return self._core.default_namespace

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._core.conn

    @property
    def _term_stats(self) -> TermStats:
        return self._core.term_stats

    # --- entries: writes, reads, deletes ---------------------------------------------------------

    def store(self, key: str, content: str, category: str = "core", namespace: str | None = None,
              session_id: str | None = None, importance: float = 0.5, *, timestamp: str | datetime | None = None,
              title: str = "", metadata: JsonObject | None = None, score: float | None = None) -> Entry:
        """Store (or update) an entry under ``key``; identical content in the namespace is not stored twice.

        Credentials in the title, content and metadata are redacted (or the write refused) before the
        content hash is taken."""
        clean_title, clean_content, clean_meta, kinds = screen_entry(self._core.screen, key, title, content, metadata)
        row = self._rows.row(key, clean_content, category, namespace, session_id, importance, timestamp,
                             clean_meta, clean_title, score)
        with self._core.write(f"storing {row['key']!r}") as conn:
            entry, dedup = self._rows.insert(conn, row)
            if not dedup:
                self._core.count_redactions(conn, [kinds])
                self._rows.enforce_policy(conn, [entry.namespace], [entry.category], keep=[entry.id])
        return entry

    def store_many(self, items: Iterable[JsonObject]) -> int:
        """Store many entries in ONE transaction (all or nothing); returns how many were new."""
        added = 0
        namespaces: set[str] = set()
        categories: set[str] = set()
        chunk: builtins.list[EntryRow] = []
        redacted: dict[str, dict[str, int]] = {}  # entry id -> credentials redacted in it, by kind
        with self._core.write("storing a batch") as conn:

            def flush() -> None:
                nonlocal added
                done = self._rows.insert_rows_batched(conn, chunk)
                if done is None:
                    done = [self._rows.insert(conn, row) for row in chunk]
                added += sum(not dedup for _, dedup in done)
                self._core.count_redactions(conn, [redacted.pop(e.id, {}) for e, dedup in done if not dedup])
                redacted.clear()
                chunk.clear()

            for i in items:
                title, content, metadata, kinds = screen_entry(self._core.screen, i.get("key"), i.get("title", ""),
                                                               i.get("content"), i.get("metadata"))
                row = self._rows.row(i.get("key"), content, i.get("category", "core"), i.get("namespace"),
                                     i.get("session_id"), i.get("importance", 0.5), i.get("timestamp"),
                                     metadata, title, i.get("score"))
                if kinds:
                    redacted[row["id"]] = kinds
                chunk.append(row)
                namespaces.add(row["namespace"])
                categories.add(row["category"])
                if len(chunk) >= _STORE_MANY_CHUNK:
                    flush()
            flush()
            self._rows.enforce_policy(conn, namespaces, categories)
        return added

    def auto_save(self, key: str, content: str, session_id: str | None = None) -> Entry | None:
        """Persist a user input as a ``conversation`` entry if ``[memory] auto_save`` allows it."""
        if not self.settings.memory.auto_save or self.settings.memory.backend == "none":
            return None
        if not should_auto_save(key, content):
            return None
        return self.store(key, content, "conversation", session_id=session_id, importance=0.3)

    def kref_of(self, entry_id: str) -> str | None:
        """The kref recorded on an entry (None when not synced or gone)."""
        with self._core.read() as conn:
            row = conn.execute("SELECT kref FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return row["kref"] if row is not None else None

    # --- reads ------------------------------------------------------------------------------------

    def get(self, key: str, namespace: str | None = None) -> Entry | None:
        """The live (not superseded) entry with ``key`` in the namespace, or None."""
        ns = self._core.namespace(namespace)
        with self._core.read() as conn:
            row = conn.execute(
                "SELECT * FROM entries WHERE namespace = ? AND key = ? AND superseded_by IS NULL",
                (ns, check_key(key)),
            ).fetchone()
        if row is None:
            return None
        self._core.note_access([row["id"]])
        return entry_from_row(row, self._core.workspace)

    def get_by_id(self, entry_id: str) -> Entry | None:
        """Any entry (live or superseded) by id."""
        with self._core.read() as conn:
            row = conn.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return None if row is None else entry_from_row(row, self._core.workspace)

    def list(self, *, category: str | None = None, namespace: str | None = None,
                     session_id: str | None = None, limit: int = 100, offset: int = 0,
                     include_superseded: bool = False, include_archived: bool = True) -> builtins.list[Entry]:
        """Entries newest first, filtered."""
        where, params = filters(category=category, namespace=namespace, session_id=session_id,
                                include_superseded=include_superseded, include_archived=include_archived)
        with self._core.read() as conn:
            rows = conn.execute(
                f"SELECT * FROM entries WHERE {where} ORDER BY timestamp DESC, seq DESC LIMIT ? OFFSET ?",
                (*params, max(0, int(limit)), max(0, int(offset))),
            ).fetchall()
        return [entry_from_row(r, self._core.workspace) for r in rows]

    def count(self, *, namespace: str | None = None, category: str | None = None,
              include_superseded: bool = False) -> int:
        """How many live entries match."""
        where, params = filters(category=category, namespace=namespace, include_superseded=include_superseded)
        with self._core.read() as conn:
            (n,) = conn.execute(f"SELECT count(*) FROM entries WHERE {where}", params).fetchone()
        return int(n)

    # --- deletes ----------------------------------------------------------------------------------

    def _delete_where(self, where: str, params: tuple[Any, ...], operation: str) -> int:
        core = self._core
        with core.write(operation) as conn:
            rows = conn.execute(f"SELECT id, key, namespace FROM entries WHERE {where}", params).fetchall()
            for r in rows:
                core.check_writable(r["namespace"], operation)
            for r in rows:
                core.audit(conn, operation, r["id"], r["key"], r["namespace"])
            conn.execute(f"DELETE FROM entries WHERE {where}", params)
            core.term_stats.clear()
        return len(rows)

    def forget(self, key: str, namespace: str | None = None) -> int:
        """Delete every version of ``key`` in the namespace; returns how many rows went."""
        ns = self._core.namespace(namespace)
        self._core.check_writable(ns, f"forgetting {key!r}")
        key = check_key(key)
        # Live and superseded versions each have their own (partial) index; one OR term per index.
        return self._delete_where("(namespace = ? AND key = ? AND superseded_by IS NULL) OR "
                                  "(namespace = ? AND key = ? AND superseded_by IS NOT NULL)", (ns, key, ns, key),
                                  "forget")

    def forget_id(self, entry_id: str) -> bool:
        """Delete one entry by id."""
        return self._delete_where("id = ?", (entry_id,), "forget") > 0

    def purge_namespace(self, namespace: str) -> int:
        """Delete every entry of a namespace."""
        ns = check_namespace(namespace)
        self._core.check_writable(ns, f"purging namespace {ns!r}")
        return self._delete_where("namespace = ?", (ns,), "purge_namespace")

    def purge_session(self, session_id: str) -> int:
        """Delete every entry of a session (read-only namespaces are left alone)."""
        ro = self._core.settings.memory.policy.read_only_namespaces
        return self._delete_where(f"session_id = ? AND {not_in('namespace', ro)}", (session_id, *ro),
                                  "purge_session")


_AUTO_SAVE_PREFIXES = ("[cron:", "[heartbeat task", "[distilled_")


def should_auto_save(key: str, content: str) -> bool:
    """The auto_save filter: user inputs only; never scheduler, heartbeat or distillation text, empty
    content, or assistant responses (keys ``assistant_resp`` / ``assistant_resp_*``)."""
    if not isinstance(content, str) or not content.strip():
        return False
    if key == "assistant_resp" or key.startswith("assistant_resp_"):
        return False
    head = content.lstrip().lower()
    if head.startswith(_AUTO_SAVE_PREFIXES):
        return False
    return "distilled_index_sig:" not in content
