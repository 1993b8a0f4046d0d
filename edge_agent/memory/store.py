"""MemoryStore: the device's local memory cache (one SQLite database per workspace).

Agents *engage* memory before answering (a compact, relevant context within a token budget) and
*reflect* after (captures stored at once and, through a CaptureSink, queued for Kumiho in the same
transaction). The store is a facade over parts that each do one job on one shared
:class:`~edge_agent.memory.core.StoreCore`: the entries repository (:mod:`.entries`), the capture
writer (:mod:`.capture_writer`), recall and engage (:mod:`.recall`), hygiene, snapshots and stats
(:mod:`.maintenance`) and JSON Lines export/import (:mod:`.transfer`).
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO

from edge_agent.config import Settings
from edge_agent.errors import MemoryStoreError
from edge_agent.jsontypes import JsonObject
from edge_agent.memory import db as dbmod
from edge_agent.memory.capture_writer import CaptureWriter
from edge_agent.memory.captures import Capture, CaptureSink, utc_now
from edge_agent.memory.core import StoreCore, check_workspace, effective_workspace, memory_dir
from edge_agent.memory.entries import EntryRepository
from edge_agent.memory.maintenance import SNAPSHOTS_KEPT, Maintenance
from edge_agent.memory.model import Entry
from edge_agent.memory.recall import COMPACT_BUDGET_DIVISOR, Recall, render_entry
from edge_agent.memory.response_cache import ResponseCache
from edge_agent.memory.search import TermStats
from edge_agent.memory.transfer import EXPORT_FIELDS, Transfer
from edge_agent.memory.unit_of_work import UnitOfWork
from edge_agent.paths import private_dir, write_private

log = logging.getLogger(__name__)

__all__ = ["COMPACT_BUDGET_DIVISOR", "EXPORT_FIELDS", "SNAPSHOTS_KEPT", "MemoryStore", "check_workspace",
           "effective_workspace", "memory_dir", "render_entry", "should_auto_save"]


class MemoryStore:
    """The local memory cache of one workspace. Thread-safe; several processes may share the file."""

    def __init__(self, conn: sqlite3.Connection, db_path: Path, settings: Settings, state_dir: Path,
                 workspace: str, capture_sink: CaptureSink | None, recovered_from: Path | None) -> None:
        self._core = StoreCore(conn, db_path, settings, state_dir, workspace, capture_sink, recovered_from)
        self._entries = EntryRepository(self._core)
        self._captures = CaptureWriter(self._core, self._entries)
        self._recall = Recall(self._core)
        self._transfer = Transfer(self._core, self._entries)
        self._maintenance = Maintenance(self._core, self._transfer.export_jsonl)
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
            yield UnitOfWork(conn, self._entries)

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

    def prune_cache(self) -> int:
        """Drop expired response-cache entries (0 when the cache is off)."""
        cache = self.response_cache
        return cache.prune() if cache is not None else 0

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

    # --- entries ----------------------------------------------------------------------------------

    def store(self, key: str, content: str, category: str = "core", namespace: str | None = None,
              session_id: str | None = None, importance: float = 0.5, *, timestamp: str | datetime | None = None,
              title: str = "", metadata: JsonObject | None = None, score: float | None = None) -> Entry:
        """Store (or update) an entry under ``key``; identical content in the namespace is not stored twice.

        Updating a key keeps the old version, marked ``superseded_by`` the new one (excluded from recall).
        """
        return self._entries.store(key, content, category, namespace, session_id, importance, timestamp=timestamp,
                                   title=title, metadata=metadata, score=score)

    def store_with_metadata(self, key: str, content: str, metadata: JsonObject, category: str = "core",
                            namespace: str | None = None, session_id: str | None = None, importance: float = 0.5,
                            *, timestamp: str | datetime | None = None, title: str = "",
                            score: float | None = None) -> Entry:
        """Store with a JSON metadata object attached."""
        return self.store(key, content, category, namespace, session_id, importance, metadata=metadata,
                          timestamp=timestamp, title=title, score=score)

    def store_many(self, items: Iterable[JsonObject]) -> int:
        """Store many entries in ONE transaction (all or nothing: an invalid item rolls the batch back);
        returns how many were new. Items are validated as they are read and written 256 at a time (new
        entries by multi-row inserts, as for captures), so a large iterator is never held in memory."""
        return self._entries.store_many(items)

    def auto_save(self, key: str, content: str, session_id: str | None = None) -> Entry | None:
        """Persist a user input as a ``conversation`` entry if ``[memory] auto_save`` allows it."""
        if not self.settings.memory.auto_save or self.settings.memory.backend == "none":
            return None
        if not should_auto_save(key, content):
            return None
        return self.store(key, content, "conversation", session_id=session_id, importance=0.3)

    def set_kref(self, entry_id: str, kref: str) -> bool:
        """Record the Kumiho kref of an entry after upstream success; False if the entry is gone."""
        return self._entries.record_krefs([(entry_id, kref)]) > 0

    def record_krefs(self, krefs: Iterable[tuple[str, str]]) -> int:
        """Record the Kumiho krefs of ``(entry_id, kref)`` pairs in a transaction of their own; returns how
        many entries were updated (inside a unit of work, use ``uow.record_krefs``)."""
        return self._entries.record_krefs(krefs)

    def kref_of(self, entry_id: str) -> str | None:
        """The kref recorded on an entry (None when not synced yet, or gone)."""
        return self._entries.kref_of(entry_id)

    def get(self, key: str, namespace: str | None = None) -> Entry | None:
        """The live (not superseded) entry with ``key`` in the namespace, or None."""
        return self._entries.get(key, namespace)

    def get_by_id(self, entry_id: str) -> Entry | None:
        """Any entry (live or superseded) by id."""
        return self._entries.get_by_id(entry_id)

    def list(self, *, category: str | None = None, namespace: str | None = None, session_id: str | None = None,
             limit: int = 100, offset: int = 0, include_superseded: bool = False,
             include_archived: bool = True) -> list[Entry]:
        """Entries newest first, filtered."""
        return self._entries.list_entries(category=category, namespace=namespace, session_id=session_id,
                                          limit=limit, offset=offset, include_superseded=include_superseded,
                                          include_archived=include_archived)

    def count(self, *, namespace: str | None = None, category: str | None = None,
              include_superseded: bool = False) -> int:
        """How many live entries match."""
        return self._entries.count(namespace=namespace, category=category, include_superseded=include_superseded)

    def forget(self, key: str, namespace: str | None = None) -> int:
        """Delete every version of ``key`` in the namespace; returns how many rows went."""
        return self._entries.forget(key, namespace)

    def forget_id(self, entry_id: str) -> bool:
        """Delete one entry by id."""
        return self._entries.forget_id(entry_id)

    def purge_namespace(self, namespace: str) -> int:
        """Delete every entry of a namespace."""
        return self._entries.purge_namespace(namespace)

    def purge_session(self, session_id: str) -> int:
        """Delete every entry of a session (read-only namespaces are left alone)."""
        return self._entries.purge_session(session_id)

    # --- captures ---------------------------------------------------------------------------------

    def record_capture(self, capture: Capture) -> Capture:
        """Store a capture (knowledge or event type) and queue it through the sink in one transaction."""
        return self._captures.record_capture(capture)

    def record_captures(self, captures: Iterable[Capture]) -> builtins.list[Capture]:
        """Store many captures (knowledge or event types) in ONE transaction and return them once it committed.

        All or nothing: an invalid capture, a read-only namespace or a refusal by the sink (outbox full,
        credentials rejected) raises and stores none of them. Each capture is acknowledged exactly as
        :meth:`record_capture` would acknowledge it (identical content returns the capture already stored),
        but the batch pays one commit and one fsync. Nothing returned is at risk: the return *is* the
        commit; captures the caller still holds in its own buffer are not stored until it calls this.
        """
        return self._captures.record_captures(captures)

    def reflect(self, session_id: str, response: str, captures: Sequence[Capture | JsonObject] = (),
                source_refs: Sequence[str] = ()) -> JsonObject:
        """Store each capture (recallable at once) with provenance from ``source_refs``; keep the response
        in this process's working memory (assistant responses are never persisted)."""
        return self._captures.reflect(session_id, response, captures, source_refs)

    def working_memory(self, session_id: str) -> str | None:
        """The last response reflect buffered for a session (in-process only)."""
        return self._captures.working_memory(session_id)

    def capture_for(self, entry_id: str) -> Capture | None:
        """The capture an entry was written from, if any."""
        return self._captures.capture_for(entry_id)

    def provenance(self, entry_id: str) -> JsonObject:
        """Where an entry came from (its source refs, resolved to local entries where known) and what
        was derived from it."""
        return self._captures.provenance(entry_id)

    # --- recall and engage ------------------------------------------------------------------------

    def recall(self, query: str, limit: int = 5, *, namespace: str | None = None,
               namespaces: Sequence[str] | None = None, categories: Sequence[str] | None = None,
               session_id: str | None = None, min_score: float | None = None, include_archived: bool = False,
               workspaces: Sequence[str] | None = None, now: datetime | None = None) -> builtins.list[Entry]:
        """Entries relevant to ``query``, best first, each with its final decayed ``score``.

        Relevance is the IDF-weighted share of the query's terms the entry contains (see
        :mod:`edge_agent.memory.search`), weighted by importance (x0.7..x1.0), then decayed by age;
        superseded and archived entries are excluded and scores under ``min_score`` (default
        ``[memory] min_relevance_score``) dropped. ``workspaces`` searches other workspaces too, only if
        cross_workspace_search is on.
        """
        return self._recall.recall(query, limit, namespace=namespace, namespaces=namespaces, categories=categories,
                                   session_id=session_id, min_score=min_score, include_archived=include_archived,
                                   workspaces=workspaces, now=now)

    def recall_namespaced(self, namespace: str, query: str, limit: int = 5, *,
                          categories: Sequence[str] | None = None, session_id: str | None = None,
                          min_score: float | None = None, include_archived: bool = False,
                          workspaces: Sequence[str] | None = None, now: datetime | None = None) -> builtins.list[Entry]:
        """Recall restricted to one namespace."""
        return self.recall(query, limit, namespace=namespace, categories=categories, session_id=session_id,
                           min_score=min_score, include_archived=include_archived, workspaces=workspaces, now=now)

    def context_budget(self) -> int:
        """Token budget of engage's context (a third of it in ``[agent] compact_context`` mode)."""
        return self._recall.context_budget()

    def engage(self, query: str, limit: int = 5, categories: Sequence[str] | None = None,
               namespaces: Sequence[str] | None = None, min_score: float = 0, *,
               budget_tokens: int | None = None, now: datetime | None = None,
               exclude_ids: Sequence[str] = ()) -> JsonObject:
        """A prompt-ready context of the most relevant entries within the token budget (see :meth:`Recall.engage`)."""
        return self._recall.engage(query, limit, categories, namespaces, min_score, budget_tokens=budget_tokens,
                                   now=now, exclude_ids=exclude_ids)

    # --- hygiene, snapshots, stats ----------------------------------------------------------------

    def hygiene(self, now: datetime | None = None, *, force: bool = False) -> JsonObject:
        """Archive old ``daily`` entries, purge old archives, superseded versions, expired conversations and
        categories past their retention, and old audit rows; snapshot first if configured."""
        return self._maintenance.hygiene(now, force=force)

    def snapshot(self, now: datetime | None = None) -> Path:
        """Write a full JSON Lines export to ``<memory>/snapshots/`` (keeps the newest few)."""
        return self._maintenance.snapshot(now)

    def audit_log(self, limit: int = 100) -> builtins.list[JsonObject]:
        """Newest audit rows first."""
        return self._maintenance.audit_log(limit)

    def stats(self) -> JsonObject:
        """Counts by category and namespace, evictions, captures, file sizes."""
        return self._maintenance.stats()

    def health_check(self) -> JsonObject:
        """Quick integrity check, schema state and file sizes; ``ok`` is False when degraded."""
        return self._maintenance.health_check()

    # --- export / import --------------------------------------------------------------------------

    def export(self, *, namespace: str | None = None, session_id: str | None = None, category: str | None = None,
               since: str | None = None, until: str | None = None,
               include_superseded: bool = True) -> Iterator[JsonObject]:
        """Entries as dicts in ascending creation time (``since``/``until`` inclusive); no embeddings."""
        return self._transfer.export(namespace=namespace, session_id=session_id, category=category, since=since,
                                     until=until, include_superseded=include_superseded)

    def export_jsonl(self, fp: IO[str], *, namespace: str | None = None, session_id: str | None = None,
                     category: str | None = None, since: str | None = None, until: str | None = None,
                     include_superseded: bool = True) -> int:
        """Write :meth:`export` as JSON Lines; returns the number of lines."""
        return self._transfer.export_jsonl(fp, namespace=namespace, session_id=session_id, category=category,
                                           since=since, until=until, include_superseded=include_superseded)

    def import_jsonl(self, lines: Iterable[str]) -> dict[str, int]:
        """Restore an export: all lines validated first, then one transaction. Existing ids and live
        duplicates are skipped, so importing the same file twice changes nothing."""
        return self._transfer.import_jsonl(lines)


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
