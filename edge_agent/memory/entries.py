"""The rows of the ``entries`` table: validated rows in, entries out; versions, dedup, caps, krefs.

Every ``entries`` insert (the store's, the capture writer's, an import's) goes through here: a new row
supersedes the live version of its key, identical content in a namespace is stored once, and over-cap
namespaces or categories evict (superseded first, then least important, then oldest). The public reads,
writes and deletes of entries are :class:`~edge_agent.memory.store.MemoryStore`'s.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NotRequired, TypedDict, cast

from edge_agent.memory.captures import new_id, utc_now
from edge_agent.memory.core import StoreCore
from edge_agent.memory.errors import InvalidEntryError
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
    normalize_time,
    to_json,
)

# Columns a new entry row is inserted with, and the multi-row statement sizes a batch is cut into: each
# size is one prepared statement, compiled once (compiling costs ~17 us per row of VALUES); sizes over
# the SQLite build's bound-parameter limit are skipped.
ENTRY_COLUMNS = ("id", "key", "title", "content", "category", "timestamp", "session_id", "namespace", "importance",
                 "score", "content_sha256", "metadata", "memory_type")
_BULK_ROWS = (256, 128, 64, 32, 16, 8, 4, 2, 1)
# IN lists are padded with NULLs (which match nothing) to one of these lengths, so a lookup of any
# batch size reuses one of four prepared statements.
_IN_SIZES = (8, 32, 128, 500)
# Below this many rows a batch is written one row at a time: each IN-list lookup of the batched path
# builds a temporary index of its values (~70 us), more than a few single-row lookups cost.
BATCH_MIN = 8


class EntryRow(TypedDict):
    """A validated new row of the ``entries`` table, as :meth:`EntryRepository.row` builds it."""

    id: str
    key: str
    title: str
    content: str
    category: str
    timestamp: str
    session_id: str | None
    namespace: str
    importance: float
    score: float | None
    content_sha256: str
    metadata: str  # the JSON text of the entry's metadata object
    memory_type: str | None
    # Set by an import, which restores an entry's whole state:
    superseded_by: NotRequired[str | None]
    kref: NotRequired[str | None]
    archived: NotRequired[int]
    access_count: NotRequired[int]
    last_access: NotRequired[str | None]


class EntryRepository:
    """The row machinery of the ``entries`` table of one store, shared by everything that inserts entries."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core
        self._bulk_rows: tuple[int, ...] | None = None  # multi-row insert sizes this SQLite allows

    # --- rows -------------------------------------------------------------------------------------

    def row(self, key: object, content: object, category: object, namespace: object, session_id: object,
            importance: object, timestamp: object, metadata: object, title: object, score: object,
            entry_id: str | None = None) -> EntryRow:
        """A validated new ``entries`` row (raises InvalidEntryError naming the bad field)."""
        limit = self.core.settings.memory.max_content_bytes
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
            "namespace": self.core.namespace(namespace),
            "importance": check_importance(importance),
            "score": score,
            "content_sha256": content_sha256(text),
            "metadata": meta_json,
            "memory_type": None,
        }

    def entry_for(self, row: EntryRow) -> Entry:
        """The Entry a freshly inserted row reads back as."""
        return Entry(
            id=row["id"], key=row["key"], content=row["content"], category=row["category"],
            timestamp=row["timestamp"], namespace=row["namespace"], session_id=row["session_id"],
            importance=row["importance"], score=row["score"], content_sha256=row["content_sha256"],
            title=row["title"], metadata=json.loads(row["metadata"]), workspace=self.core.workspace,
            memory_type=row["memory_type"],
        )

    # --- inserts ----------------------------------------------------------------------------------

    def insert(self, conn: sqlite3.Connection, row: EntryRow) -> tuple[Entry, bool]:
        """Insert one validated row (superseding the key's live version); return (entry, deduplicated)."""
        core = self.core
        core.check_writable(row["namespace"], f"storing {row['key']!r}")
        dup = conn.execute(
            "SELECT * FROM entries WHERE namespace = ? AND content_sha256 = ? AND superseded_by IS NULL",
            (row["namespace"], row["content_sha256"]),
        ).fetchone()
        if dup is not None:
            return entry_from_row(dup, core.workspace), True
        current = conn.execute(
            "SELECT id FROM entries WHERE namespace = ? AND key = ? AND superseded_by IS NULL",
            (row["namespace"], row["key"]),
        ).fetchone()
        if current is not None:
            # superseded_by is a deferred foreign key: it may point at the row inserted just below.
            conn.execute("UPDATE entries SET superseded_by = ? WHERE id = ?", (row["id"], current["id"]))
            core.audit(conn, "supersede", current["id"], row["key"], row["namespace"], superseded_by=row["id"])
        conn.execute(
            "INSERT INTO entries (id, key, title, content, category, timestamp, session_id, namespace, importance, "
            "score, content_sha256, metadata, memory_type) VALUES (:id, :key, :title, :content, :category, "
            ":timestamp, :session_id, :namespace, :importance, :score, :content_sha256, :metadata, :memory_type)",
            row,
        )
        core.audit(conn, "store", row["id"], row["key"], row["namespace"], category=row["category"],
                   content_sha256=row["content_sha256"])
        core.term_stats.note_insert(row["key"], row["title"], row["content"])
        return self.entry_for(row), False

    def live_for_batch(self, conn: sqlite3.Connection,
                       rows: list[EntryRow]) -> dict[tuple[str, str], sqlite3.Row] | None:
        """Live entries holding the content of any of ``rows``, by (namespace, content SHA-256), after checking
        every row's namespace is writable; None when a row's key appears twice in the batch or already has a
        live version (one by one, that write would supersede, and change what later rows see)."""
        keys: dict[str, set[str]] = {}
        shas: dict[str, set[str]] = {}
        for row in rows:
            self.core.check_writable(row["namespace"], f"storing {row['key']!r}")
            ns_keys = keys.setdefault(row["namespace"], set())
            if row["key"] in ns_keys:
                return None
            ns_keys.add(row["key"])
            shas.setdefault(row["namespace"], set()).add(row["content_sha256"])
        for ns, wanted in keys.items():
            for marks, chunk in in_lists(sorted(wanted)):
                if conn.execute(f"SELECT 1 FROM entries WHERE namespace = ? AND key IN {marks} "
                                "AND superseded_by IS NULL LIMIT 1", (ns, *chunk)).fetchone():
                    return None
        live: dict[tuple[str, str], sqlite3.Row] = {}
        for ns, wanted in shas.items():
            for marks, chunk in in_lists(sorted(wanted)):
                for r in conn.execute(f"SELECT * FROM entries WHERE namespace = ? AND content_sha256 IN {marks} "
                                      "AND superseded_by IS NULL", (ns, *chunk)):
                    live[(ns, r["content_sha256"])] = r
        return live

    def insert_rows_batched(self, conn: sqlite3.Connection,
                            rows: list[EntryRow]) -> list[tuple[Entry, bool]] | None:
        """:meth:`insert` for each row, in order, with the new entries written by multi-row statements; None
        (nothing written) when the rows are too few or one row's write would change what a later one sees."""
        if len(rows) < BATCH_MIN:
            return None
        live = self.live_for_batch(conn, rows)
        if live is None:
            return None
        seen: dict[tuple[str, str], Entry] = {}
        out: list[tuple[Entry, bool]] = []
        new_rows: list[EntryRow] = []
        for row in rows:
            content_key = (row["namespace"], row["content_sha256"])
            entry = seen.get(content_key)
            if entry is not None:  # the same content earlier in this batch
                out.append((entry, True))
                continue
            dup = live.get(content_key)
            if dup is not None:
                entry = entry_from_row(dup, self.core.workspace)
                out.append((entry, True))
            else:
                entry = self.entry_for(row)
                new_rows.append(row)
                out.append((entry, False))
            seen[content_key] = entry
        self.insert_entry_rows(conn, new_rows)
        return out

    def insert_entry_rows(self, conn: sqlite3.Connection, rows: list[EntryRow]) -> None:
        """Insert new entry rows (validated, no live key or content clash) with as few statements as possible."""
        if self._bulk_rows is None:
            limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
            self._bulk_rows = tuple(n for n in _BULK_ROWS if n * len(ENTRY_COLUMNS) <= limit)
        at = 0
        while at < len(rows):
            size = next(n for n in self._bulk_rows if n <= len(rows) - at)
            chunk = rows[at:at + size]
            values = [cast("dict[str, object]", row)[c] for row in chunk for c in ENTRY_COLUMNS]
            conn.execute(_bulk_insert_sql(size), values)
            at += size
        for row in rows:
            self.core.audit(conn, "store", row["id"], row["key"], row["namespace"], category=row["category"],
                            content_sha256=row["content_sha256"])
            self.core.term_stats.note_insert(row["key"], row["title"], row["content"])

    def enforce_policy(self, conn: sqlite3.Connection, namespaces: Iterable[str], categories: Iterable[str],
                       keep: Sequence[str] = ()) -> int:
        """Evict over-cap entries: superseded first, then least important, then oldest. Returns the count."""
        core = self.core
        policy = core.settings.memory.policy
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
                core.term_stats.clear()
                core.audit(conn, "evict", v["id"], v["key"], v["namespace"], cap=f"{column}:{cap}")
                core.bump(conn, "evicted")
                core.bump(conn, f"evicted.{column}.{value}")
                evicted += 1
        return evicted

    # --- krefs and source refs --------------------------------------------------------------------

    def record_krefs(self, conn: sqlite3.Connection, krefs: Iterable[tuple[str, str]]) -> int:
        """Record the Kumiho kref of each ``(entry_id, kref)`` inside the write transaction open on ``conn``
        (a unit of work lent to the sync worker, retiring the uploaded outbox rows, so the krefs commit with
        it); returns how many entries were updated. An entry deleted meanwhile is skipped."""
        pairs = [(str(entry_id), check_ref(kref)) for entry_id, kref in krefs]
        return self._record_krefs(conn, pairs) if pairs else 0

    def _record_krefs(self, conn: sqlite3.Connection, pairs: list[tuple[str, str]]) -> int:
        if not self.core.settings.memory.audit_enabled:
            cur = conn.executemany("UPDATE entries SET kref = ? WHERE id = ?", [(k, i) for i, k in pairs])
            return max(cur.rowcount, 0)
        updated = 0
        for entry_id, kref in pairs:
            if conn.execute("UPDATE entries SET kref = ? WHERE id = ?", (kref, entry_id)).rowcount:
                self.core.audit(conn, "set_kref", entry_id, None, None, kref=kref)
                updated += 1
        return updated

    def resolve_ref(self, conn: sqlite3.Connection, ref: str) -> str | None:
        """The local entry id a source ref names (mem://<id> or a recorded kref), if present."""
        if ref.startswith("mem://"):
            hit = conn.execute("SELECT id FROM entries WHERE id = ?", (ref[6:],)).fetchone()
        else:
            hit = conn.execute("SELECT id FROM entries WHERE kref = ? LIMIT 1", (ref,)).fetchone()
        return hit["id"] if hit else None


def filters(*, category: str | None = None, namespace: str | None = None, session_id: str | None = None,
            include_superseded: bool = False, include_archived: bool = True,
            since: str | None = None, until: str | None = None) -> tuple[str, tuple[Any, ...]]:
    """The WHERE clause (and its parameters) of an entry listing or export."""
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


@functools.lru_cache(maxsize=len(_BULK_ROWS))
def _bulk_insert_sql(rows: int) -> str:
    """INSERT of ``rows`` new entries in one statement."""
    values = "(" + ", ".join("?" * len(ENTRY_COLUMNS)) + ")"
    return f"INSERT INTO entries ({', '.join(ENTRY_COLUMNS)}) VALUES " + ", ".join([values] * rows)


def in_lists(items: Sequence[str]) -> Iterator[tuple[str, list[str | None]]]:
    """``(?,?,...)`` and its parameters for each slice of ``items``, padded to a size in _IN_SIZES."""
    top = _IN_SIZES[-1]
    for at in range(0, len(items), top):
        chunk: list[str | None] = list(items[at:at + top])
        size = next(n for n in _IN_SIZES if n >= len(chunk))
        chunk += [None] * (size - len(chunk))
        yield "(" + ",".join("?" * size) + ")", chunk
