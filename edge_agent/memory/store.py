"""MemoryStore: the device's local memory cache (one SQLite database per workspace).

Agents *engage* memory before answering (a compact, relevant context within a token budget) and
*reflect* after (captures stored at once and, through a CaptureSink, queued for Kumiho in the same
transaction). Recall is FTS5 bm25 relevance, blended with query-term coverage, weighted by
importance and decayed by age (``score x 2^(-age_days / half_life_days)``; ``core`` never decays).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import json
import logging
import os
import re
import sqlite3
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from edge_agent.config import Settings
from edge_agent.errors import MemoryStoreError
from edge_agent.memory import db as dbmod
from edge_agent.memory.captures import KNOWLEDGE_TYPES, Capture, CaptureSink, format_time, new_id, utc_now
from edge_agent.memory.errors import (
    ImportFormatError,
    InvalidEntryError,
    ReadOnlyNamespaceError,
    WorkspaceAccessError,
)
from edge_agent.memory.model import (
    Entry,
    check_category,
    check_content,
    check_importance,
    check_key,
    check_namespace,
    check_ref,
    check_session,
    content_sha256,
    entry_from_row,
    estimate_tokens,
    normalize_time,
    query_terms,
    slug,
    to_json,
)
from edge_agent.memory.response_cache import ResponseCache
from edge_agent.memory.search import TermStats, search

log = logging.getLogger(__name__)

_WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_EVENT_TYPE = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")
_ACCESS_FLUSH_AT = 256
_WORKING_SESSIONS = 64
SNAPSHOTS_KEPT = 5
COMPACT_BUDGET_DIVISOR = 3
# Captures may carry these Kumiho reflect fields; they are kept as metadata strings.
_CAPTURE_EXTRA_FIELDS = ("revises", "event_date", "origin", "decision_state")
_CAPTURE_FIELDS = ("type", "title", "content", "tags", "space_hint", "importance", "metadata", "source_refs",
                   "source_krefs", "category", "namespace", *_CAPTURE_EXTRA_FIELDS)
# Columns a new entry row is inserted with, and the multi-row statement sizes a batch is cut into: each
# size is one prepared statement, compiled once (compiling costs ~17 us per row of VALUES); sizes over
# the SQLite build's bound-parameter limit are skipped.
_ENTRY_COLUMNS = ("id", "key", "title", "content", "category", "timestamp", "session_id", "namespace", "importance",
                  "score", "content_sha256", "metadata", "memory_type")
_BULK_ROWS = (256, 128, 64, 32, 16, 8, 4, 2, 1)
# IN lists are padded with NULLs (which match nothing) to one of these lengths, so a lookup of any
# batch size reuses one of four prepared statements.
_IN_SIZES = (8, 32, 128, 500)
# Below this many captures a batch is written one capture at a time: each IN-list lookup of the batched
# path builds a temporary index of its values (~70 us), more than a few single-row lookups cost.
_BATCH_MIN = 8
_STORE_MANY_CHUNK = 256  # store_many validates and writes its (possibly endless) input this many at a time
_INSERT_CAPTURE = ("INSERT INTO captures (id, entry_id, type, title, tags, space_hint, source_refs, session_id, "
                   "importance, created_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_PROVENANCE = "INSERT OR IGNORE INTO provenance (entry_id, source_ref, source_entry_id) VALUES (?, ?, ?)"
EXPORT_FIELDS = ("id", "key", "title", "content", "category", "timestamp", "session_id", "namespace", "importance",
                 "score", "superseded_by", "content_sha256", "access_count", "last_access", "metadata", "kref",
                 "archived")


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


class MemoryStore:
    """The local memory cache of one workspace. Thread-safe; several processes may share the file."""

    def __init__(self, conn: sqlite3.Connection, db_path: Path, settings: Settings, state_dir: Path,
                 workspace: str, capture_sink: CaptureSink | None, recovered_from: Path | None) -> None:
        self._conn = conn
        self.db_path = db_path
        self.settings = settings
        self.state_dir = Path(state_dir)
        self.workspace = workspace
        self.capture_sink = capture_sink
        self.recovered_from = recovered_from
        self._lock = threading.RLock()
        self._pending_access: dict[str, tuple[int, str]] = {}
        self._working: OrderedDict[str, str] = OrderedDict()
        self._response_cache: ResponseCache | None = None
        self._term_stats = TermStats()
        self._bulk_rows: tuple[int, ...] | None = None  # multi-row insert sizes this SQLite allows
        self.degraded = False
        self._closed = False

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
        folder.mkdir(parents=True, exist_ok=True)
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
        with self._lock:
            if self._closed:
                return
            if self._response_cache is not None:
                self._response_cache.close()
            try:
                if self._pending_access:
                    try:
                        with self._write("record access"):
                            pass
                    except MemoryStoreError as exc:  # access counts are not worth failing a shutdown for
                        log.warning("memory access counts not saved at close: %s", exc)
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._conn.close()
                self._closed = True
            if not self.degraded:
                with contextlib.suppress(OSError):
                    Path(f"{self.db_path}{dbmod.CLEAN_MARKER_SUFFIX}").write_text(utc_now() + "\n")

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_connection(self, *, read_only: bool = False) -> sqlite3.Connection:
        """A separate connection to the same database with the store's pragmas (for sync workers)."""
        return dbmod.connect(self.db_path, read_only=read_only)

    @property
    def response_cache(self) -> ResponseCache | None:
        """The workspace's response cache, or None unless ``[memory] response_cache_enabled``."""
        if not self.settings.memory.response_cache_enabled:
            return None
        with self._lock:
            self._check_open()
            if self._response_cache is None:
                self._response_cache = ResponseCache.open(self.db_path.parent, self.settings)
            return self._response_cache

    def prune_cache(self) -> int:
        """Drop expired response-cache entries (0 when the cache is off)."""
        cache = self.response_cache
        return cache.prune() if cache is not None else 0

    @contextlib.contextmanager
    def _write(self, operation: str) -> Iterator[sqlite3.Connection]:
        self._check_open()
        with self._lock:
            try:
                with dbmod.write_transaction(self._conn, self.db_path, operation) as conn:
                    self._flush_access(conn)
                    yield conn
            except BaseException as exc:
                self._term_stats.clear()  # counts noted for rolled-back inserts are wrong now
                self._note_damage(exc)
                raise

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        self._check_open()
        with self._lock:
            try:
                yield self._conn
            except sqlite3.DatabaseError as exc:
                if dbmod.is_busy(exc):
                    raise dbmod.MemoryBusyError(str(self.db_path), dbmod.BUSY_TIMEOUT_MS / 1000) from None
                self._note_damage(exc)
                hint = "; restart edge-agent so it is moved aside and a fresh one started" if self.degraded else ""
                raise MemoryStoreError(f"{self.db_path}: reading memory failed: {exc}{hint}") from exc

    def _note_damage(self, exc: BaseException) -> None:
        """Page damage seen at run time: drop the clean-shutdown marker so the next open checks every page."""
        cause = exc if isinstance(exc, sqlite3.DatabaseError) else exc.__cause__
        if isinstance(cause, sqlite3.DatabaseError) and dbmod.is_corrupt(cause):
            if not self.degraded:
                log.error("MEMORY DATABASE DAMAGED: %s (%s); it will be checked and moved aside at the next start",
                          self.db_path, cause)
            self.degraded = True
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.db_path}{dbmod.CLEAN_MARKER_SUFFIX}").unlink()

    def _check_open(self) -> None:
        if self._closed:
            raise MemoryStoreError("the memory store is closed; open it again with MemoryStore.open()")

    # --- settings helpers -------------------------------------------------------------------------

    @property
    def default_namespace(self) -> str:
        return self.settings.memory.default_namespace

    def _namespace(self, namespace: str | None) -> str:
        return check_namespace(namespace if namespace is not None else self.default_namespace)

    def _check_writable(self, namespace: str, operation: str) -> None:
        if namespace in self.settings.memory.policy.read_only_namespaces:
            raise ReadOnlyNamespaceError(namespace, operation)

    def _audit(self, conn: sqlite3.Connection, operation: str, entry_id: str | None, key: str | None,
               namespace: str | None, **detail: Any) -> None:
        if self.settings.memory.audit_enabled:
            conn.execute(
                "INSERT INTO audit (at, operation, entry_id, key, namespace, detail) VALUES (?, ?, ?, ?, ?, ?)",
                (utc_now(), operation, entry_id, key, namespace, to_json(detail)),
            )

    @staticmethod
    def _bump(conn: sqlite3.Connection, name: str, by: int = 1) -> None:
        conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + ?",
            (name, by, by),
        )

    # --- writes -----------------------------------------------------------------------------------

    def _row(self, key: object, content: object, category: object, namespace: str | None, session_id: object,
             importance: object, timestamp: object, metadata: object, title: object, score: object,
             entry_id: str | None = None) -> dict[str, Any]:
        limit = self.settings.memory.max_content_bytes
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict):
            raise InvalidEntryError("metadata must be a JSON object (a dict)", field="metadata")
        try:
            meta_json = to_json(metadata)
        except (TypeError, ValueError):
            raise InvalidEntryError("metadata must be JSON-serializable", field="metadata") from None
        if len(meta_json.encode("utf-8")) > limit:
            raise InvalidEntryError(f"metadata is over {limit} bytes ([memory] max_content_bytes)", field="metadata")
        if title is None:
            title = ""
        if not isinstance(title, str) or len(title) > 512:
            raise InvalidEntryError("title must be text of at most 512 characters", field="title")
        if score is not None:
            score = check_importance(score, field="score")
        text = check_content(content, limit)
        return {
            "id": new_id() if entry_id is None else entry_id,
            "key": check_key(key),
            "title": title.strip(),
            "content": text,
            "category": check_category(category),
            "timestamp": utc_now() if timestamp is None else normalize_time(timestamp),
            "session_id": check_session(session_id),
            "namespace": self._namespace(namespace),
            "importance": check_importance(importance),
            "score": score,
            "content_sha256": content_sha256(text),
            "metadata": meta_json,
            "memory_type": None,
        }

    def _insert(self, conn: sqlite3.Connection, row: dict[str, Any]) -> tuple[Entry, bool]:
        """Insert one validated row (superseding the key's live version); return (entry, deduplicated)."""
        self._check_writable(row["namespace"], f"storing {row['key']!r}")
        dup = conn.execute(
            "SELECT * FROM entries WHERE namespace = ? AND content_sha256 = ? AND superseded_by IS NULL",
            (row["namespace"], row["content_sha256"]),
        ).fetchone()
        if dup is not None:
            return entry_from_row(dup, self.workspace), True
        current = conn.execute(
            "SELECT id FROM entries WHERE namespace = ? AND key = ? AND superseded_by IS NULL",
            (row["namespace"], row["key"]),
        ).fetchone()
        if current is not None:
            # superseded_by is a deferred foreign key: it may point at the row inserted just below.
            conn.execute("UPDATE entries SET superseded_by = ? WHERE id = ?", (row["id"], current["id"]))
            self._audit(conn, "supersede", current["id"], row["key"], row["namespace"], superseded_by=row["id"])
        conn.execute(
            "INSERT INTO entries (id, key, title, content, category, timestamp, session_id, namespace, importance, "
            "score, content_sha256, metadata, memory_type) VALUES (:id, :key, :title, :content, :category, "
            ":timestamp, :session_id, :namespace, :importance, :score, :content_sha256, :metadata, :memory_type)",
            row,
        )
        self._audit(conn, "store", row["id"], row["key"], row["namespace"], category=row["category"],
                    content_sha256=row["content_sha256"])
        self._term_stats.note_insert(row["key"], row["title"], row["content"])
        entry = Entry(
            id=row["id"], key=row["key"], content=row["content"], category=row["category"],
            timestamp=row["timestamp"], namespace=row["namespace"], session_id=row["session_id"],
            importance=row["importance"], score=row["score"], content_sha256=row["content_sha256"],
            title=row["title"], metadata=json.loads(row["metadata"]), workspace=self.workspace,
            memory_type=row["memory_type"],
        )
        return entry, False

    def _enforce_policy(self, conn: sqlite3.Connection, namespaces: Iterable[str], categories: Iterable[str],
                        keep: Sequence[str] = ()) -> int:
        """Evict over-cap entries: superseded first, then least important, then oldest. Returns the count."""
        policy = self.settings.memory.policy
        evicted = 0
        keep_sql = f"id NOT IN ({','.join('?' * len(keep))})" if keep else "1"
        groups: list[tuple[str, str, int]] = []
        if policy.max_entries_per_namespace:
            groups += [("namespace", ns, policy.max_entries_per_namespace) for ns in set(namespaces)]
        if policy.max_entries_per_category:
            groups += [("category", c, policy.max_entries_per_category) for c in set(categories)]
        for column, value, cap in groups:
            (n,) = conn.execute(f"SELECT count(*) FROM entries WHERE {column} = ?", (value,)).fetchone()
            if n <= cap:
                continue
            victims = conn.execute(
                f"SELECT id, key, namespace, category FROM entries WHERE {column} = ? AND {keep_sql} "
                "ORDER BY superseded_by IS NULL, importance, timestamp, seq LIMIT ?",
                (value, *keep, n - cap),
            ).fetchall()
            for v in victims:
                if v["namespace"] in policy.read_only_namespaces:
                    continue
                conn.execute("DELETE FROM entries WHERE id = ?", (v["id"],))
                self._term_stats.clear()
                self._audit(conn, "evict", v["id"], v["key"], v["namespace"], cap=f"{column}:{cap}")
                self._bump(conn, "evicted")
                self._bump(conn, f"evicted.{column}.{value}")
                evicted += 1
        return evicted

    def store(self, key: str, content: str, category: str = "core", namespace: str | None = None,
              session_id: str | None = None, importance: float = 0.5, *, timestamp: str | datetime | None = None,
              title: str = "", metadata: dict[str, Any] | None = None, score: float | None = None) -> Entry:
        """Store (or update) an entry under ``key``; identical content in the namespace is not stored twice.

        Updating a key keeps the old version, marked ``superseded_by`` the new one (excluded from recall).
        """
        row = self._row(key, content, category, namespace, session_id, importance, timestamp, metadata, title, score)
        with self._write(f"storing {row['key']!r}") as conn:
            entry, dedup = self._insert(conn, row)
            if not dedup:
                self._enforce_policy(conn, [entry.namespace], [entry.category], keep=[entry.id])
        return entry

    def store_with_metadata(self, key: str, content: str, metadata: dict[str, Any], category: str = "core",
                            namespace: str | None = None, session_id: str | None = None, importance: float = 0.5,
                            **kwargs: Any) -> Entry:
        """Store with a JSON metadata object attached."""
        return self.store(key, content, category, namespace, session_id, importance, metadata=metadata, **kwargs)

    def store_many(self, items: Iterable[dict[str, Any]]) -> int:
        """Store many entries in ONE transaction (all or nothing: an invalid item rolls the batch back);
        returns how many were new. Items are validated as they are read and written 256 at a time (new
        entries by multi-row inserts, as for captures), so a large iterator is never held in memory."""
        added = 0
        namespaces: set[str] = set()
        categories: set[str] = set()
        chunk: list[dict[str, Any]] = []
        with self._write("storing a batch") as conn:

            def flush() -> None:
                nonlocal added
                done = self._insert_rows_batched(conn, chunk)
                if done is None:
                    done = [self._insert(conn, row) for row in chunk]
                added += sum(not dedup for _, dedup in done)
                chunk.clear()

            for i in items:
                row = self._row(i.get("key"), i.get("content"), i.get("category", "core"), i.get("namespace"),
                                i.get("session_id"), i.get("importance", 0.5), i.get("timestamp"),
                                i.get("metadata"), i.get("title", ""), i.get("score"))
                chunk.append(row)
                namespaces.add(row["namespace"])
                categories.add(row["category"])
                if len(chunk) >= _STORE_MANY_CHUNK:
                    flush()
            flush()
            self._enforce_policy(conn, namespaces, categories)
        return added

    def auto_save(self, key: str, content: str, session_id: str | None = None) -> Entry | None:
        """Persist a user input as a ``conversation`` entry if ``[memory] auto_save`` allows it."""
        if not self.settings.memory.auto_save or self.settings.memory.backend == "none":
            return None
        if not should_auto_save(key, content):
            return None
        return self.store(key, content, "conversation", session_id=session_id, importance=0.3)

    def set_kref(self, entry_id: str, kref: str) -> bool:
        """Record the Kumiho kref of an entry after upstream success; False if the entry is gone."""
        check_ref(kref)
        with self._write("recording a kref") as conn:
            cur = conn.execute("UPDATE entries SET kref = ? WHERE id = ?", (kref, entry_id))
            if cur.rowcount:
                self._audit(conn, "set_kref", entry_id, None, None, kref=kref)
        return bool(cur.rowcount)

    # --- captures ---------------------------------------------------------------------------------

    def _coerce_capture(self, item: Capture | dict[str, Any], session_id: str | None,
                        default_refs: Sequence[str], *, knowledge_only: bool) -> Capture:
        if isinstance(item, Capture):
            cap = item
        elif isinstance(item, dict):
            unknown = sorted(set(item) - set(_CAPTURE_FIELDS))
            if unknown:
                raise InvalidEntryError(
                    f"capture has unknown field(s) {', '.join(unknown)}; allowed: {', '.join(_CAPTURE_FIELDS)}",
                    field="captures",
                )
            meta = {str(k): str(v) for k, v in (item.get("metadata") or {}).items()}
            for extra in (*_CAPTURE_EXTRA_FIELDS, "category", "namespace"):
                if item.get(extra) not in (None, ""):
                    meta[extra] = str(item[extra])
            refs = item.get("source_refs") or item.get("source_krefs") or default_refs
            tags = item.get("tags") or ()
            if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
                raise InvalidEntryError("capture tags must be a list of strings", field="tags")
            content = item.get("content")
            title = item.get("title") or (content[:120] if isinstance(content, str) else "")
            cap = Capture(
                type=str(item.get("type", "")).strip().lower(), title=str(title), content=content,  # type: ignore[arg-type]
                tags=tuple(tags), space_hint=str(item.get("space_hint") or ""),
                source_refs=tuple(refs), session_id=session_id,
                importance=item.get("importance", 0.5), metadata=meta,
            )
        else:
            raise InvalidEntryError("each capture must be an object with type, title and content", field="captures")
        if knowledge_only and cap.type not in KNOWLEDGE_TYPES:
            raise InvalidEntryError(
                f"capture type {cap.type!r} is not one of {', '.join(KNOWLEDGE_TYPES)}", field="type"
            )
        if not _EVENT_TYPE.match(cap.type):
            raise InvalidEntryError(
                f"capture type {cap.type!r} must be a lowercase label such as 'fact' or 'sensor_anomaly'", field="type"
            )
        check_content(cap.content, self.settings.memory.max_content_bytes)
        if not isinstance(cap.title, str) or len(cap.title) > 512:
            raise InvalidEntryError("capture title must be text of at most 512 characters", field="title")
        check_importance(cap.importance)
        check_session(cap.session_id)
        normalize_time(cap.created_at, field="created_at")
        for ref in cap.source_refs:
            check_ref(ref)
        return cap

    def _capture_row(self, cap: Capture) -> dict[str, Any]:
        category = cap.metadata.get("category") or ("core" if cap.type in KNOWLEDGE_TYPES else "daily")
        # The id's last 8 hex digits are random in every UUID layout (its first 8 are the time in new_id's).
        key = f"capture/{cap.type}/{slug(cap.title)}-{cap.id[-8:]}"
        row = self._row(key, cap.content, category, cap.metadata.get("namespace"), cap.session_id, cap.importance,
                        cap.created_at, {"capture_type": cap.type, "tags": list(cap.tags)}, cap.title or "", None,
                        entry_id=cap.entry_id)
        row["memory_type"] = cap.type
        return row

    def _resolve_ref(self, conn: sqlite3.Connection, ref: str) -> str | None:
        if ref.startswith("mem://"):
            hit = conn.execute("SELECT id FROM entries WHERE id = ?", (ref[6:],)).fetchone()
        else:
            hit = conn.execute("SELECT id FROM entries WHERE kref = ? LIMIT 1", (ref,)).fetchone()
        return hit["id"] if hit else None

    def _write_captures(self, captures: list[Capture]) -> list[tuple[Capture, Entry, bool]]:
        sink = self.capture_sink
        # The sink screens secrets outside the transaction; the stored entry holds what it returns.
        prepared = [sink.prepare(c) if sink is not None else c for c in captures]
        rows = [self._capture_row(cap) for cap in prepared]
        with self._write("recording captures") as conn:
            out = self._insert_captures_batched(conn, prepared, rows)
            if out is None:
                out = self._insert_captures_each(conn, prepared, rows)
            new = [e for _, e, d in out if not d]
            self._enforce_policy(conn, {e.namespace for e in new}, {e.category for e in new},
                                 keep=[e.id for e in new])
        return out

    def _insert_captures_each(self, conn: sqlite3.Connection, prepared: list[Capture],
                              rows: list[dict[str, Any]]) -> list[tuple[Capture, Entry, bool]]:
        """One capture after the other (a batch where one capture's write changes what the next one sees:
        a key written twice, a key that already has a live version, a ``revises``)."""
        sink = self.capture_sink
        out: list[tuple[Capture, Entry, bool]] = []
        for cap, row in zip(prepared, rows, strict=True):
            entry, dedup = self._insert(conn, row)
            if dedup:
                existing = conn.execute("SELECT * FROM captures WHERE entry_id = ?", (entry.id,)).fetchone()
                if existing is not None:
                    # Same knowledge already captured (and queued): acknowledge the existing capture.
                    out.append((_capture_from_row(existing, entry), entry, True))
                    continue
                cap = replace(cap, entry_id=entry.id)
                conn.execute("UPDATE entries SET memory_type = ? WHERE id = ? AND memory_type IS NULL",
                             (cap.type, entry.id))
            conn.execute(_INSERT_CAPTURE, _capture_values(cap))
            for ref in cap.source_refs:
                conn.execute(_INSERT_PROVENANCE, (cap.entry_id, ref, self._resolve_ref(conn, ref)))
            revises = cap.metadata.get("revises")
            if revises:
                old = self._resolve_ref(conn, revises) if _is_ref(revises) else None
                if old and old != cap.entry_id:
                    conn.execute("UPDATE entries SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL",
                                 (cap.entry_id, old))
                    self._audit(conn, "supersede", old, None, entry.namespace, superseded_by=cap.entry_id)
            if sink is not None:
                sink.enqueue(conn, cap)
            out.append((cap, entry, dedup))
        return out

    def _live_for_batch(self, conn: sqlite3.Connection,
                        rows: list[dict[str, Any]]) -> dict[tuple[str, str], sqlite3.Row] | None:
        """Live entries holding the content of any of ``rows``, by (namespace, content SHA-256), after checking
        every row's namespace is writable; None when a row's key appears twice in the batch or already has a
        live version (one by one, that write would supersede, and change what later rows see)."""
        keys: dict[str, set[str]] = {}
        shas: dict[str, set[str]] = {}
        for row in rows:
            self._check_writable(row["namespace"], f"storing {row['key']!r}")
            ns_keys = keys.setdefault(row["namespace"], set())
            if row["key"] in ns_keys:
                return None
            ns_keys.add(row["key"])
            shas.setdefault(row["namespace"], set()).add(row["content_sha256"])
        for ns, wanted in keys.items():
            for marks, chunk in _in_lists(sorted(wanted)):
                if conn.execute(f"SELECT 1 FROM entries WHERE namespace = ? AND key IN {marks} "
                                "AND superseded_by IS NULL LIMIT 1", (ns, *chunk)).fetchone():
                    return None
        live: dict[tuple[str, str], sqlite3.Row] = {}
        for ns, wanted in shas.items():
            for marks, chunk in _in_lists(sorted(wanted)):
                for r in conn.execute(f"SELECT * FROM entries WHERE namespace = ? AND content_sha256 IN {marks} "
                                      "AND superseded_by IS NULL", (ns, *chunk)):
                    live[(ns, r["content_sha256"])] = r
        return live

    def _insert_rows_batched(self, conn: sqlite3.Connection,
                             rows: list[dict[str, Any]]) -> list[tuple[Entry, bool]] | None:
        """:meth:`_insert` for each row, in order, with the new entries written by multi-row statements; None
        (nothing written) when the rows are too few or one row's write would change what a later one sees."""
        if len(rows) < _BATCH_MIN:
            return None
        live = self._live_for_batch(conn, rows)
        if live is None:
            return None
        seen: dict[tuple[str, str], Entry] = {}
        out: list[tuple[Entry, bool]] = []
        new_rows: list[dict[str, Any]] = []
        for row in rows:
            content_key = (row["namespace"], row["content_sha256"])
            entry = seen.get(content_key)
            if entry is not None:  # the same content earlier in this batch
                out.append((entry, True))
                continue
            dup = live.get(content_key)
            if dup is not None:
                entry = entry_from_row(dup, self.workspace)
                out.append((entry, True))
            else:
                entry = self._entry_for(row)
                new_rows.append(row)
                out.append((entry, False))
            seen[content_key] = entry
        self._insert_entry_rows(conn, new_rows)
        return out

    def _insert_captures_batched(self, conn: sqlite3.Connection, prepared: list[Capture],
                                 rows: list[dict[str, Any]]) -> list[tuple[Capture, Entry, bool]] | None:
        """The same outcome as :meth:`_insert_captures_each` with the new entries of the batch written by a
        few multi-row statements; None (nothing written) when a capture's write would change what a later one
        sees, or the batch is too small to gain.

        Why multi-row: FTS5 flushes its pending index data to a new segment at every statement savepoint,
        and an insert whose trigger writes the index opens one, so row-by-row inserts wrote a one-document
        segment per capture and merged them again (~25 us per capture of pure index churn).
        """
        if len(rows) < _BATCH_MIN or any(cap.metadata.get("revises") for cap in prepared):
            return None
        live = self._live_for_batch(conn, rows)
        if live is None:
            return None
        live_caps: dict[str, sqlite3.Row] = {}
        for marks, chunk in _in_lists([r["id"] for r in live.values()]):
            for r in conn.execute(f"SELECT * FROM captures WHERE entry_id IN {marks}", chunk):
                live_caps[r["entry_id"]] = r

        # Decide each capture in order, exactly as one-by-one inserts would.
        seen: dict[tuple[str, str], tuple[Capture, Entry]] = {}
        plan: list[tuple[Capture, Entry, bool, bool]] = []  # (capture, entry, deduplicated, write the capture)
        new_rows: list[dict[str, Any]] = []
        for cap, row in zip(prepared, rows, strict=True):
            content_key = (row["namespace"], row["content_sha256"])
            if content_key in seen:  # acknowledged as the capture stored for it earlier in this batch
                first, entry = seen[content_key]
                plan.append((replace(first, created_at=normalize_time(first.created_at)), entry, True, False))
                continue
            dup = live.get(content_key)
            if dup is not None:
                entry = entry_from_row(dup, self.workspace)
                existing = live_caps.get(entry.id)
                if existing is not None:
                    known = _capture_from_row(existing, entry)
                    seen[content_key] = (known, entry)
                    plan.append((known, entry, True, False))
                    continue
                cap = replace(cap, entry_id=entry.id)
                plan.append((cap, entry, True, True))
                # what a later duplicate in this batch reads back: the entry now has this memory type
                entry = replace(entry, memory_type=entry.memory_type or cap.type)
            else:
                entry = self._entry_for(row)
                new_rows.append(row)
                plan.append((cap, entry, False, True))
            seen[content_key] = (cap, entry)

        # The capture, provenance and outbox rows first, the entries last. FTS5 writes its pending index data
        # out at every statement savepoint, and a multi-row entry insert changes enough existing index pages
        # that SQLite moves its statement journal to a temporary file, where every later statement of the
        # transaction (one outbox insert per capture) would journal too. Foreign keys are checked at the
        # commit instead of per statement so the capture rows may precede their entries.
        conn.execute("PRAGMA defer_foreign_keys = ON")
        batch_pos = {row["id"]: i for i, row in enumerate(new_rows)}
        out: list[tuple[Capture, Entry, bool]] = []
        typed: list[tuple[str, str]] = []
        capture_rows: list[tuple[Any, ...]] = []
        provenance_rows: list[tuple[str, str, str | None]] = []
        queued: list[Capture] = []
        written = 0  # new entries of this batch up to this capture, in one-by-one order
        for cap, entry, dedup, write in plan:
            out.append((cap, entry, dedup))
            if not write:
                continue
            if dedup:
                typed.append((cap.type, entry.id))
            else:
                written += 1
            capture_rows.append(_capture_values(cap))
            for ref in cap.source_refs:
                pos = batch_pos.get(ref[6:]) if ref.startswith("mem://") else None
                if pos is None:
                    source = self._resolve_ref(conn, ref)
                else:  # an entry of this batch: known if written before this capture (as one by one)
                    source = ref[6:] if pos < written else None
                provenance_rows.append((cap.entry_id, ref, source))
            queued.append(cap)
        if typed:
            conn.executemany("UPDATE entries SET memory_type = ? WHERE id = ? AND memory_type IS NULL", typed)
        conn.executemany(_INSERT_CAPTURE, capture_rows)
        if provenance_rows:
            conn.executemany(_INSERT_PROVENANCE, provenance_rows)
        sink = self.capture_sink
        if sink is not None and queued:
            enqueue_many = getattr(sink, "enqueue_many", None)
            if enqueue_many is not None:
                enqueue_many(conn, queued)
            else:
                for cap in queued:
                    sink.enqueue(conn, cap)
        self._insert_entry_rows(conn, new_rows)
        return out

    def _insert_entry_rows(self, conn: sqlite3.Connection, rows: list[dict[str, Any]]) -> None:
        """Insert new entry rows (validated, no live key or content clash) with as few statements as possible."""
        if self._bulk_rows is None:
            limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
            self._bulk_rows = tuple(n for n in _BULK_ROWS if n * len(_ENTRY_COLUMNS) <= limit)
        at = 0
        while at < len(rows):
            size = next(n for n in self._bulk_rows if n <= len(rows) - at)
            chunk = rows[at:at + size]
            conn.execute(_bulk_insert_sql(size), [row[c] for row in chunk for c in _ENTRY_COLUMNS])
            at += size
        for row in rows:
            self._audit(conn, "store", row["id"], row["key"], row["namespace"], category=row["category"],
                        content_sha256=row["content_sha256"])
            self._term_stats.note_insert(row["key"], row["title"], row["content"])

    def _entry_for(self, row: dict[str, Any]) -> Entry:
        """The Entry a freshly inserted row reads back as."""
        return Entry(
            id=row["id"], key=row["key"], content=row["content"], category=row["category"],
            timestamp=row["timestamp"], namespace=row["namespace"], session_id=row["session_id"],
            importance=row["importance"], score=row["score"], content_sha256=row["content_sha256"],
            title=row["title"], metadata=json.loads(row["metadata"]), workspace=self.workspace,
            memory_type=row["memory_type"],
        )

    def record_capture(self, capture: Capture) -> Capture:
        """Store a capture (knowledge or event type) and queue it through the sink in one transaction."""
        cap = self._coerce_capture(capture, capture.session_id, (), knowledge_only=False)
        return self._write_captures([cap])[0][0]

    def record_captures(self, captures: Iterable[Capture]) -> list[Capture]:
        """Store many captures (knowledge or event types) in ONE transaction and return them once it committed.

        All or nothing: an invalid capture, a read-only namespace or a refusal by the sink (outbox full,
        credentials rejected) raises and stores none of them. Each capture is acknowledged exactly as
        :meth:`record_capture` would acknowledge it (identical content returns the capture already stored),
        but the batch pays one commit and one fsync. Nothing returned is at risk: the return *is* the
        commit; captures the caller still holds in its own buffer are not stored until it calls this.
        """
        caps = []
        for item in captures:
            if not isinstance(item, Capture):
                raise InvalidEntryError("record_captures takes Capture objects", field="captures")
            caps.append(self._coerce_capture(item, item.session_id, (), knowledge_only=False))
        return [c for c, _, _ in self._write_captures(caps)] if caps else []

    def reflect(self, session_id: str, response: str, captures: Sequence[Capture | dict[str, Any]] = (),
                source_refs: Sequence[str] = ()) -> dict[str, Any]:
        """Store each capture (recallable at once) with provenance from ``source_refs``; keep the response
        in this process's working memory (assistant responses are never persisted)."""
        session = check_session(session_id)
        if isinstance(source_refs, str):
            source_refs = [source_refs]
        refs = tuple(check_ref(r) for r in source_refs)
        caps = [self._coerce_capture(c, session, refs, knowledge_only=True) for c in captures]
        if isinstance(response, str) and response and session:
            with self._lock:
                self._working[session] = response[: self.settings.memory.max_content_bytes]
                self._working.move_to_end(session)
                while len(self._working) > _WORKING_SESSIONS:
                    self._working.popitem(last=False)
        results = self._write_captures(caps) if caps else []
        return {
            "session_id": session,
            "stored": sum(1 for *_, dedup in results if not dedup),
            "captures": [
                {"capture_id": c.id, "entry_id": e.id, "key": e.key, "type": c.type, "title": c.title,
                 "source_refs": list(c.source_refs), "deduplicated": dedup}
                for c, e, dedup in results
            ],
            "source_refs": list(refs),
        }

    def working_memory(self, session_id: str) -> str | None:
        """The last response reflect buffered for a session (in-process only)."""
        with self._lock:
            return self._working.get(session_id)

    def capture_for(self, entry_id: str) -> Capture | None:
        """The capture an entry was written from, if any."""
        with self._read() as conn:
            row = conn.execute("SELECT * FROM captures WHERE entry_id = ?", (entry_id,)).fetchone()
            erow = conn.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
        if row is None or erow is None:
            return None
        return _capture_from_row(row, entry_from_row(erow, self.workspace))

    def provenance(self, entry_id: str) -> dict[str, Any]:
        """Where an entry came from (its source refs, resolved to local entries where known) and what
        was derived from it."""
        with self._read() as conn:
            sources = conn.execute(
                "SELECT p.source_ref, p.source_entry_id, e.key, e.kref FROM provenance p "
                "LEFT JOIN entries e ON e.id = p.source_entry_id WHERE p.entry_id = ? ORDER BY p.source_ref",
                (entry_id,),
            ).fetchall()
            derived = conn.execute(
                "SELECT p.entry_id FROM provenance p JOIN entries me ON me.id = ? "
                "WHERE p.source_entry_id = me.id OR p.source_ref = 'mem://' || me.id OR p.source_ref = me.kref",
                (entry_id,),
            ).fetchall()
        return {
            "entry_id": entry_id,
            "derived_from": [
                {"ref": r["source_ref"], "entry_id": r["source_entry_id"], "key": r["key"], "kref": r["kref"]}
                for r in sources
            ],
            "derived": sorted({r["entry_id"] for r in derived}),
        }

    # --- reads ------------------------------------------------------------------------------------

    def get(self, key: str, namespace: str | None = None) -> Entry | None:
        """The live (not superseded) entry with ``key`` in the namespace, or None."""
        ns = self._namespace(namespace)
        with self._read() as conn:
            row = conn.execute(
                "SELECT * FROM entries WHERE namespace = ? AND key = ? AND superseded_by IS NULL",
                (ns, check_key(key)),
            ).fetchone()
        if row is None:
            return None
        self._note_access([row["id"]])
        return entry_from_row(row, self.workspace)

    def get_by_id(self, entry_id: str) -> Entry | None:
        """Any entry (live or superseded) by id."""
        with self._read() as conn:
            row = conn.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return None if row is None else entry_from_row(row, self.workspace)

    def list(self, *, category: str | None = None, namespace: str | None = None, session_id: str | None = None,
             limit: int = 100, offset: int = 0, include_superseded: bool = False,
             include_archived: bool = True) -> list[Entry]:
        """Entries newest first, filtered."""
        where, params = self._filters(category=category, namespace=namespace, session_id=session_id,
                                      include_superseded=include_superseded, include_archived=include_archived)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT * FROM entries WHERE {where} ORDER BY timestamp DESC, seq DESC LIMIT ? OFFSET ?",
                (*params, max(0, int(limit)), max(0, int(offset))),
            ).fetchall()
        return [entry_from_row(r, self.workspace) for r in rows]

    def count(self, *, namespace: str | None = None, category: str | None = None,
              include_superseded: bool = False) -> int:
        """How many live entries match."""
        where, params = self._filters(category=category, namespace=namespace, include_superseded=include_superseded)
        with self._read() as conn:
            (n,) = conn.execute(f"SELECT count(*) FROM entries WHERE {where}", params).fetchone()
        return int(n)

    def _filters(self, *, category: str | None = None, namespace: str | None = None, session_id: str | None = None,
                 include_superseded: bool = False, include_archived: bool = True,
                 since: str | None = None, until: str | None = None) -> tuple[str, tuple[Any, ...]]:
        where, params = ["1"], []
        if category is not None:
            where.append("category = ?")
            params.append(check_category(category))
        if namespace is not None:
            where.append("namespace = ?")
            params.append(check_namespace(namespace))
        if session_id is not None:
            where.append("session_id = ?")
            params.append(session_id)
        if not include_superseded:
            where.append("superseded_by IS NULL")
        if not include_archived:
            where.append("archived = 0")
        if since is not None:
            where.append("timestamp >= ?")
            params.append(normalize_time(since, field="since"))
        if until is not None:
            where.append("timestamp <= ?")
            params.append(normalize_time(until, field="until"))
        return " AND ".join(where), tuple(params)

    def _note_access(self, ids: Iterable[str]) -> None:
        now = utc_now()
        with self._lock:
            for i in ids:
                n, _ = self._pending_access.get(i, (0, now))
                self._pending_access[i] = (n + 1, now)
            flush = len(self._pending_access) >= _ACCESS_FLUSH_AT
        if flush:
            with contextlib.suppress(MemoryStoreError), self._write("record access"):
                pass

    def _flush_access(self, conn: sqlite3.Connection) -> None:
        # Access counts are batched into the next write: a recall should not cost an fsync.
        if not self._pending_access:
            return
        pending, self._pending_access = self._pending_access, {}
        conn.executemany(
            "UPDATE entries SET access_count = access_count + ?, last_access = ? WHERE id = ?",
            [(n, at, i) for i, (n, at) in pending.items()],
        )

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
        if not isinstance(query, str):
            raise InvalidEntryError("query must be text", field="query")
        limit = int(limit)
        if limit <= 0:
            return []
        floor = self.settings.memory.min_relevance_score if min_score is None else float(min_score)
        ns_list = [check_namespace(namespace)] if namespace is not None else None
        if namespaces:
            ns_list = [*(ns_list or []), *(check_namespace(n) for n in namespaces)]
        cats = [check_category(c) for c in categories] if categories else None
        terms = query_terms(query)
        if not terms:
            return []
        now = now or datetime.now(UTC)
        where, params = self._recall_filters(ns_list, cats, session_id, include_archived)
        rank: dict[str, Any] = {"now": now, "half_life_days": self.settings.memory.half_life_days, "min_score": floor}
        with self._read() as conn:
            found = search(conn, self.workspace, terms, limit, where, params, self._term_stats, **rank)
        for ws, path in self._other_workspaces(workspaces):
            try:
                other = dbmod.connect(path, read_only=True)
            except sqlite3.Error as exc:
                log.warning("cross-workspace recall skipped %s: %s", path, exc)
                continue
            try:
                found += search(other, ws, terms, limit, where, params, TermStats(), **rank)
            except sqlite3.Error as exc:
                log.warning("cross-workspace recall skipped %s: %s", path, exc)
            finally:
                other.close()
        kept = sorted(found, key=lambda e: (e.score or 0.0, e.timestamp), reverse=True)
        kept = kept[:limit]
        self._note_access(e.id for e in kept if e.workspace == self.workspace)
        return kept

    def recall_namespaced(self, namespace: str, query: str, limit: int = 5, **kwargs: Any) -> builtins.list[Entry]:
        """Recall restricted to one namespace."""
        return self.recall(query, limit, namespace=namespace, **kwargs)

    def _other_workspaces(self, workspaces: Sequence[str] | None) -> builtins.list[tuple[str, Path]]:
        if not workspaces:
            return []
        root = self.state_dir / "workspaces"
        if list(workspaces) == ["*"]:
            names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        else:
            names = [check_workspace(w) for w in workspaces]
        names = [n for n in dict.fromkeys(names) if n != self.workspace]
        if names and not self.settings.workspace.cross_workspace_search:
            raise WorkspaceAccessError(self.workspace, names[0])
        out = []
        for n in names:
            path = memory_dir(self.state_dir, n) / "memory.db"
            if path.is_file():
                out.append((n, path))
        return out

    @staticmethod
    def _recall_filters(namespaces: builtins.list[str] | None, categories: builtins.list[str] | None,
                        session_id: str | None,
                        include_archived: bool) -> tuple[builtins.list[str], builtins.list[Any]]:
        where = ["e.superseded_by IS NULL"]
        params: list[Any] = []
        if not include_archived:
            where.append("e.archived = 0")
        if namespaces:
            where.append(f"e.namespace IN ({','.join('?' * len(namespaces))})")
            params += namespaces
        if categories:
            # A memory type (decision, fact, ...) given as a category finds captures of that type too.
            marks = ",".join("?" * len(categories))
            where.append(f"(e.category IN ({marks}) OR e.memory_type IN ({marks}))")
            params += [*categories, *categories]
        if session_id is not None:
            where.append("e.session_id = ?")
            params.append(session_id)
        return where, params

    def context_budget(self) -> int:
        """Token budget of engage's context (a third of it in ``[agent] compact_context`` mode)."""
        budget = self.settings.memory.context_budget_tokens
        if self.settings.agent.compact_context:
            budget = max(64, budget // COMPACT_BUDGET_DIVISOR)
        return budget

    def engage(self, query: str, limit: int = 5, categories: Sequence[str] | None = None,
               namespaces: Sequence[str] | None = None, min_score: float = 0, *,
               budget_tokens: int | None = None, now: datetime | None = None) -> dict[str, Any]:
        """A prompt-ready context of the most relevant entries within the token budget.

        Returns ``{context, results, source_refs}`` (plus ``tokens``, ``budget_tokens``, ``omitted``).
        Entries are whole or absent, most relevant first; one too large for the space left is skipped.
        """
        floor = max(float(min_score or 0), self.settings.memory.min_relevance_score)
        found = self.recall(query, limit, namespaces=namespaces, categories=categories, min_score=floor, now=now)
        budget = budget_tokens if budget_tokens is not None else self.context_budget()
        header = "Relevant memory (most relevant first):"
        used = estimate_tokens(header) + 1
        blocks: list[str] = []
        included: list[Entry] = []
        omitted = 0
        for e in found:
            block = render_entry(e)
            cost = estimate_tokens(block) + 1
            if used + cost > budget:
                omitted += 1
                continue
            used += cost
            blocks.append(block)
            included.append(e)
        context = "\n".join([header, *blocks]) if blocks else ""
        return {
            "context": context,
            "results": [e.to_dict() for e in included],
            "source_refs": [e.source_ref for e in included],
            "tokens": used if blocks else 0,
            "budget_tokens": budget,
            "omitted": omitted,
        }

    # --- deletes ----------------------------------------------------------------------------------

    def _delete_where(self, where: str, params: tuple[Any, ...], operation: str) -> int:
        with self._write(operation) as conn:
            rows = conn.execute(f"SELECT id, key, namespace FROM entries WHERE {where}", params).fetchall()
            for r in rows:
                self._check_writable(r["namespace"], operation)
            for r in rows:
                self._audit(conn, operation, r["id"], r["key"], r["namespace"])
            conn.execute(f"DELETE FROM entries WHERE {where}", params)
            self._term_stats.clear()
        return len(rows)

    def forget(self, key: str, namespace: str | None = None) -> int:
        """Delete every version of ``key`` in the namespace; returns how many rows went."""
        ns = self._namespace(namespace)
        self._check_writable(ns, f"forgetting {key!r}")
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
        self._check_writable(ns, f"purging namespace {ns!r}")
        return self._delete_where("namespace = ?", (ns,), "purge_namespace")

    def purge_session(self, session_id: str) -> int:
        """Delete every entry of a session (read-only namespaces are left alone)."""
        ro = self.settings.memory.policy.read_only_namespaces
        return self._delete_where(f"session_id = ? AND {_not_in('namespace', ro)}", (session_id, *ro),
                                  "purge_session")

    # --- hygiene, snapshots, stats ----------------------------------------------------------------

    def hygiene(self, now: datetime | None = None, *, force: bool = False) -> dict[str, Any]:
        """Archive old ``daily`` entries, purge old archives, superseded versions, expired conversations and
        categories past their retention, and old audit rows; snapshot first if configured."""
        cfg = self.settings.memory
        report: dict[str, Any] = {"ran": False, "archived": 0, "purged_archived": 0, "purged_superseded": 0,
                                  "purged_retention": {}, "audit_purged": 0, "snapshot": None}
        if not (cfg.hygiene_enabled or force):
            return report
        report["ran"] = True
        now = now or datetime.now(UTC)
        if cfg.snapshot_enabled and (cfg.snapshot_on_hygiene or self._snapshot_due(now)):
            report["snapshot"] = str(self.snapshot(now=now))

        def cutoff(days: int) -> str:
            return format_time(now - timedelta(days=days))

        ro = cfg.policy.read_only_namespaces
        ro_sql = _not_in("namespace", ro)
        with self._write("hygiene") as conn:
            def delete(where: str, params: tuple[Any, ...], label: str) -> int:
                rows = conn.execute(f"SELECT id, key, namespace FROM entries WHERE {where} AND {ro_sql}",
                                    (*params, *ro)).fetchall()
                for r in rows:
                    self._audit(conn, label, r["id"], r["key"], r["namespace"])
                    conn.execute("DELETE FROM entries WHERE id = ?", (r["id"],))
                    self._term_stats.clear()
                return len(rows)

            if cfg.archive_after_days > 0:
                rows = conn.execute(
                    f"SELECT id, key, namespace FROM entries WHERE category = 'daily' AND archived = 0 "
                    f"AND timestamp < ? AND {ro_sql}", (cutoff(cfg.archive_after_days), *ro)).fetchall()
                for r in rows:
                    conn.execute("UPDATE entries SET archived = 1 WHERE id = ?", (r["id"],))
                    self._audit(conn, "archive", r["id"], r["key"], r["namespace"])
                report["archived"] = len(rows)
            if cfg.purge_after_days > 0:
                report["purged_archived"] = delete("archived = 1 AND timestamp < ?",
                                                   (cutoff(cfg.purge_after_days),), "purge")
                report["purged_superseded"] = delete("superseded_by IS NOT NULL AND timestamp < ?",
                                                     (cutoff(cfg.purge_after_days),), "purge")
            retention = {"conversation": cfg.conversation_retention_days, **cfg.policy.retention_days_by_category}
            for category, days in sorted(retention.items()):
                if days > 0:
                    n = delete("category = ? AND timestamp < ?", (category.lower(), cutoff(days)), "retention")
                    if n:
                        report["purged_retention"][category] = n
            if cfg.audit_retention_days > 0:
                cur = conn.execute("DELETE FROM audit WHERE at < ?", (cutoff(cfg.audit_retention_days),))
                report["audit_purged"] = cur.rowcount
            self._bump(conn, "hygiene_runs")
        return report

    def _snapshot_due(self, now: datetime) -> bool:
        """Without snapshot_on_hygiene, snapshots are daily: due when the newest is a day old (or none)."""
        newest = max((self.db_path.parent / "snapshots").glob("memory-*.jsonl"), default=None)
        if newest is None:
            return True
        try:
            taken = datetime.strptime(newest.stem[len("memory-"):], "%Y%m%dT%H%M%S%fZ").replace(tzinfo=UTC)
        except ValueError:
            return True
        return now - taken >= timedelta(days=1)

    def snapshot(self, now: datetime | None = None) -> Path:
        """Write a full JSON Lines export to ``<memory>/snapshots/`` (keeps the newest few)."""
        now = now or datetime.now(UTC)
        folder = self.db_path.parent / "snapshots"
        folder.mkdir(exist_ok=True)
        target = folder / f"memory-{now.astimezone(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.jsonl"
        tmp = target.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as fp:
            self.export_jsonl(fp, include_superseded=True)
            fp.flush()
            os.fsync(fp.fileno())
        tmp.replace(target)
        for old in sorted(folder.glob("memory-*.jsonl"))[:-SNAPSHOTS_KEPT]:
            old.unlink()
        return target

    def audit_log(self, limit: int = 100) -> builtins.list[dict[str, Any]]:
        """Newest audit rows first."""
        with self._read() as conn:
            rows = conn.execute("SELECT * FROM audit ORDER BY seq DESC LIMIT ?", (limit,)).fetchall()
        return [{**dict(r), "detail": json.loads(r["detail"])} for r in rows]

    def stats(self) -> dict[str, Any]:
        """Counts by category and namespace, evictions, captures, file sizes."""
        with self._read() as conn:
            total, live, superseded, archived = conn.execute(
                "SELECT count(*), sum(superseded_by IS NULL), sum(superseded_by IS NOT NULL), sum(archived) "
                "FROM entries").fetchone()
            by_cat = dict(conn.execute("SELECT category, count(*) FROM entries WHERE superseded_by IS NULL "
                                       "GROUP BY category ORDER BY category").fetchall())
            by_ns = dict(conn.execute("SELECT namespace, count(*) FROM entries WHERE superseded_by IS NULL "
                                      "GROUP BY namespace ORDER BY namespace").fetchall())
            captures = conn.execute("SELECT count(*) FROM captures").fetchone()[0]
            synced = conn.execute("SELECT count(*) FROM entries WHERE kref IS NOT NULL").fetchone()[0]
            counters = dict(conn.execute("SELECT name, value FROM counters ORDER BY name").fetchall())
            audit_rows = conn.execute("SELECT count(*) FROM audit").fetchone()[0]
        return {
            "workspace": self.workspace,
            "db_path": str(self.db_path),
            "entries": int(total or 0),
            "live": int(live or 0),
            "superseded": int(superseded or 0),
            "archived": int(archived or 0),
            "by_category": by_cat,
            "by_namespace": by_ns,
            "captures": captures,
            "with_kref": synced,
            "evicted": counters.get("evicted", 0),
            "evicted_by": {k[len("evicted."):]: v for k, v in counters.items() if k.startswith("evicted.")},
            "hygiene_runs": counters.get("hygiene_runs", 0),
            "audit_rows": audit_rows,
            "db_bytes": _size(self.db_path),
            "wal_bytes": _size(Path(f"{self.db_path}-wal")),
            "recovered_from": str(self.recovered_from) if self.recovered_from else None,
        }

    def health_check(self) -> dict[str, Any]:
        """Quick integrity check, schema state and file sizes; ``ok`` is False when degraded."""
        journal, migrations, n = "", [], None
        with self._lock:
            self._check_open()
            conn = self._conn
            reason = dbmod.check_integrity(conn, full=True)
            try:
                journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
                migrations = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
                (n,) = conn.execute("SELECT count(*) FROM entries").fetchone()
            except sqlite3.DatabaseError as exc:
                reason = reason or str(exc)
        if reason is not None:
            self._note_damage(sqlite3.DatabaseError(f"database disk image is malformed ({reason})"))
        return {
            "ok": reason is None and not self.degraded,
            "integrity": reason or "ok",
            "journal_mode": journal,
            "migrations": migrations,
            "entries": n,
            "workspace": self.workspace,
            "db_path": str(self.db_path),
            "db_bytes": _size(self.db_path),
            "wal_bytes": _size(Path(f"{self.db_path}-wal")),
            "recovered_from": str(self.recovered_from) if self.recovered_from else None,
        }

    # --- export / import --------------------------------------------------------------------------

    def export(self, *, namespace: str | None = None, session_id: str | None = None, category: str | None = None,
               since: str | None = None, until: str | None = None,
               include_superseded: bool = True) -> Iterator[dict[str, Any]]:
        """Entries as dicts in ascending creation time (``since``/``until`` inclusive); no embeddings."""
        where, params = self._filters(category=category, namespace=namespace, session_id=session_id,
                                      include_superseded=include_superseded, since=since, until=until)
        with self._read() as conn:
            rows = conn.execute(f"SELECT * FROM entries WHERE {where} ORDER BY timestamp, seq", params).fetchall()
            caps = {r["entry_id"]: r for r in conn.execute("SELECT * FROM captures")} if rows else {}
            prov: dict[str, list[str]] = {}
            for r in conn.execute("SELECT entry_id, source_ref FROM provenance ORDER BY source_ref") if rows else ():
                prov.setdefault(r["entry_id"], []).append(r["source_ref"])
        for r in rows:
            item = {k: r[k] for k in EXPORT_FIELDS}
            item["metadata"] = entry_from_row(r).metadata
            item["archived"] = bool(r["archived"])
            cap = caps.get(r["id"])
            if cap is not None:
                item["capture"] = {
                    "id": cap["id"], "type": cap["type"], "title": cap["title"], "tags": json.loads(cap["tags"]),
                    "space_hint": cap["space_hint"], "source_refs": json.loads(cap["source_refs"]),
                    "session_id": cap["session_id"], "importance": cap["importance"],
                    "created_at": cap["created_at"], "metadata": json.loads(cap["metadata"]),
                }
            if r["id"] in prov:
                item["provenance"] = prov[r["id"]]
            yield item

    def export_jsonl(self, fp: IO[str], **filters: Any) -> int:
        """Write :meth:`export` as JSON Lines; returns the number of lines."""
        n = 0
        for item in self.export(**filters):
            fp.write(_jsonl_line(item))
            n += 1
        return n

    def import_jsonl(self, lines: Iterable[str]) -> dict[str, int]:
        """Restore an export: all lines validated first, then one transaction. Existing ids and live
        duplicates are skipped, so importing the same file twice changes nothing."""
        parsed: list[tuple[dict[str, Any], dict[str, Any] | None, list[str]]] = []
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:  # JSONDecodeError, or int() refusing a number too long to convert
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise ImportFormatError(lineno, f"not JSON ({reason})") from None
            if not isinstance(item, dict):
                raise ImportFormatError(lineno, "expected a JSON object per line")
            try:
                row = self._row(item.get("key"), item.get("content"), item.get("category", "core"),
                                item.get("namespace"), item.get("session_id"), item.get("importance", 0.5),
                                item.get("timestamp"), item.get("metadata"), item.get("title", ""), item.get("score"))
                if item.get("id") is not None:
                    row["id"] = str(uuid.UUID(str(item["id"])))
                for ref in item.get("provenance") or ():
                    check_ref(ref)
                if item.get("kref") is not None:
                    check_ref(item["kref"])
            except (InvalidEntryError, ValueError) as exc:
                raise ImportFormatError(lineno, str(exc)) from None
            row["superseded_by"] = item.get("superseded_by")
            row["kref"] = item.get("kref")
            row["archived"] = 1 if item.get("archived") else 0
            row["access_count"] = int(item.get("access_count") or 0)
            row["last_access"] = item.get("last_access")
            cap_type = (item.get("capture") or {}).get("type") if isinstance(item.get("capture"), dict) else None
            row["memory_type"] = str(cap_type) if cap_type else None
            parsed.append((row, item.get("capture"), list(item.get("provenance") or ())))
        imported = skipped = 0
        with self._write("importing") as conn:
            for row, cap, prov in parsed:
                self._check_writable(row["namespace"], "import")
                if conn.execute("SELECT 1 FROM entries WHERE id = ?", (row["id"],)).fetchone():
                    skipped += 1
                    continue
                if row["superseded_by"] is None:
                    if conn.execute(
                        "SELECT 1 FROM entries WHERE superseded_by IS NULL AND namespace = ? AND content_sha256 = ?",
                        (row["namespace"], row["content_sha256"]),
                    ).fetchone():
                        skipped += 1  # the same content is already live here
                        continue
                    live = conn.execute(
                        "SELECT id, timestamp FROM entries WHERE superseded_by IS NULL AND namespace = ? AND key = ?",
                        (row["namespace"], row["key"]),
                    ).fetchone()
                    if live is not None:
                        # Two live versions of one key: the newer one stays live, the older points at it.
                        if live["timestamp"] <= row["timestamp"]:
                            conn.execute("UPDATE entries SET superseded_by = ? WHERE id = ?", (row["id"], live["id"]))
                        else:
                            row["superseded_by"] = live["id"]
                conn.execute(
                    "INSERT INTO entries (id, key, title, content, category, timestamp, session_id, namespace, "
                    "importance, score, content_sha256, metadata, superseded_by, kref, archived, access_count, "
                    "last_access, memory_type) VALUES (:id, :key, :title, :content, :category, :timestamp, "
                    ":session_id, :namespace, :importance, :score, :content_sha256, :metadata, :superseded_by, :kref, "
                    ":archived, :access_count, :last_access, :memory_type)",
                    row,
                )
                if isinstance(cap, dict) and cap.get("id"):
                    conn.execute(
                        "INSERT OR IGNORE INTO captures (id, entry_id, type, title, tags, space_hint, source_refs, "
                        "session_id, importance, created_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (str(cap["id"]), row["id"], str(cap.get("type", "")), str(cap.get("title", "")),
                         to_json(cap.get("tags") or []), str(cap.get("space_hint") or ""),
                         to_json(cap.get("source_refs") or []), cap.get("session_id"),
                         float(cap.get("importance", row["importance"])), str(cap.get("created_at", row["timestamp"])),
                         to_json(cap.get("metadata") or {})),
                    )
                for ref in prov:
                    conn.execute(
                        "INSERT OR IGNORE INTO provenance (entry_id, source_ref, source_entry_id) VALUES (?, ?, ?)",
                        (row["id"], ref, self._resolve_ref(conn, ref)),
                    )
                self._audit(conn, "import", row["id"], row["key"], row["namespace"])
                imported += 1
            self._term_stats.clear()
            self._repair_dangling_versions(conn)
        return {"imported": imported, "skipped": skipped}


    @staticmethod
    def _repair_dangling_versions(conn: sqlite3.Connection) -> None:
        """A superseded_by naming an entry that is not here (not in the file or skipped) points at the live
        version of the same key instead, else at a live entry with the same content, else is cleared."""
        dangling = conn.execute(
            "SELECT id, namespace, key, content_sha256 FROM entries WHERE superseded_by IS NOT NULL "
            "AND superseded_by NOT IN (SELECT id FROM entries) ORDER BY timestamp DESC, seq DESC"
        ).fetchall()
        for d in dangling:
            target = conn.execute(
                "SELECT id FROM entries WHERE superseded_by IS NULL AND namespace = ? AND id != ? AND "
                "(key = ? OR content_sha256 = ?) ORDER BY key = ? DESC LIMIT 1",
                (d["namespace"], d["id"], d["key"], d["content_sha256"], d["key"]),
            ).fetchone()
            conn.execute("UPDATE entries SET superseded_by = ? WHERE id = ?", (target["id"] if target else None,
                                                                                d["id"]))


def _jsonl_line(item: dict[str, Any]) -> str:
    """One JSON Lines record. U+0085, U+2028 and U+2029 are escaped too: JSON allows them raw, but many
    line readers (Python's str.splitlines among them) would split the record there."""
    text = json.dumps(item, ensure_ascii=False)
    return text.replace("\u0085", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def render_entry(e: Entry) -> str:
    """One context block: ``- [category] title-or-key: content (date, ref)``."""
    label = e.title or e.key
    content = e.content.strip().replace("\n", "\n  ")
    return f"- [{e.category}] {label}: {content} ({e.timestamp[:10]}, {e.source_ref})"


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


def _not_in(column: str, values: Sequence[Any]) -> str:
    """``column NOT IN (?, ...)``, or an always-true clause for no values (NOT IN (NULL) is never true)."""
    return f"{column} NOT IN ({','.join('?' * len(values))})" if values else "1"


def _is_ref(text: str) -> bool:
    try:
        check_ref(text)
    except InvalidEntryError:
        return False
    return True


@functools.lru_cache(maxsize=len(_BULK_ROWS))
def _bulk_insert_sql(rows: int) -> str:
    """INSERT of ``rows`` new entries in one statement."""
    values = "(" + ", ".join("?" * len(_ENTRY_COLUMNS)) + ")"
    return f"INSERT INTO entries ({', '.join(_ENTRY_COLUMNS)}) VALUES " + ", ".join([values] * rows)


def _in_lists(items: Sequence[str]) -> Iterator[tuple[str, list[str | None]]]:
    """``(?,?,...)`` and its parameters for each slice of ``items``, padded to a size in _IN_SIZES."""
    top = _IN_SIZES[-1]
    for at in range(0, len(items), top):
        chunk: list[str | None] = list(items[at:at + top])
        size = next(n for n in _IN_SIZES if n >= len(chunk))
        chunk += [None] * (size - len(chunk))
        yield "(" + ",".join("?" * size) + ")", chunk


@functools.lru_cache(maxsize=256)
def _json_list(items: tuple[str, ...]) -> str:
    """JSON of a capture's tags or source refs (the same few tag lists recur capture after capture)."""
    return to_json(list(items))


def _capture_values(cap: Capture) -> tuple[Any, ...]:
    """A ``captures`` row (``_INSERT_CAPTURE`` order)."""
    try:
        tags, refs = _json_list(tuple(cap.tags)), _json_list(tuple(cap.source_refs))
    except TypeError:  # an unhashable item (a Capture built by hand): encode without the cache
        tags, refs = to_json(list(cap.tags)), to_json(list(cap.source_refs))
    return (cap.id, cap.entry_id, cap.type, cap.title, tags, cap.space_hint, refs, cap.session_id, cap.importance,
            normalize_time(cap.created_at), to_json(cap.metadata))


def _capture_from_row(row: sqlite3.Row, entry: Entry) -> Capture:
    return Capture(
        id=row["id"], entry_id=row["entry_id"], type=row["type"], title=row["title"], content=entry.content,
        tags=tuple(json.loads(row["tags"])), space_hint=row["space_hint"],
        source_refs=tuple(json.loads(row["source_refs"])), session_id=row["session_id"],
        importance=row["importance"], created_at=row["created_at"], metadata=json.loads(row["metadata"]),
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
