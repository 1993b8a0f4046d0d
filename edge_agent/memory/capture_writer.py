"""The capture writer: captures validated, turned into entries and queued through the sink, in one transaction.

A capture (knowledge for ``reflect``, knowledge or an event for ``record_capture``) becomes one
``entries`` row, one ``captures`` row, its provenance rows and, through the store's CaptureSink, one
outbox row: all in the same SQLite transaction, so it is acknowledged exactly when all are durable.
Identical content in a namespace is stored once; the capture already stored for it is acknowledged.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from edge_agent.jsontypes import JsonObject
from edge_agent.memory.captures import KNOWLEDGE_TYPES, Capture
from edge_agent.memory.core import StoreCore
from edge_agent.memory.entries import BATCH_MIN, EntryRepository, EntryRow, in_lists
from edge_agent.memory.errors import InvalidEntryError
from edge_agent.memory.model import (
    Entry,
    check_content,
    check_importance,
    check_ref,
    check_session,
    entry_from_row,
    normalize_time,
    slug,
    to_json,
)
from edge_agent.memory.screening import screen_capture
from edge_agent.names import CAPTURE_TYPE

_WORKING_SESSIONS = 64
# Captures may carry these Kumiho reflect fields; they are kept as metadata strings.
CAPTURE_EXTRA_FIELDS = ("revises", "event_date", "origin", "decision_state")
# The fields a capture given as a dict (reflect's input) may have.
CAPTURE_FIELDS = ("type", "title", "content", "tags", "space_hint", "importance", "metadata", "source_refs",
                  "source_krefs", "category", "namespace", *CAPTURE_EXTRA_FIELDS)
CAPTURE_COLUMNS = ("id", "entry_id", "type", "title", "tags", "space_hint", "source_refs", "session_id",
                   "importance", "created_at", "metadata")
INSERT_CAPTURE = (f"INSERT INTO captures ({', '.join(CAPTURE_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(CAPTURE_COLUMNS))})")
INSERT_CAPTURE_IF_NEW = INSERT_CAPTURE.replace("INSERT INTO", "INSERT OR IGNORE INTO", 1)  # import: ids may exist
INSERT_PROVENANCE = "INSERT OR IGNORE INTO provenance (entry_id, source_ref, source_entry_id) VALUES (?, ?, ?)"


class CaptureWriter:
    """Writes captures of one store (and keeps the in-process working memory reflect buffers)."""

    def __init__(self, core: StoreCore, entries: EntryRepository) -> None:
        self.core = core
        self.entries = entries
        self._working: OrderedDict[str, str] = OrderedDict()

    def _coerce(self, item: Capture | dict[str, Any], session_id: str | None,
               default_refs: Sequence[str], *, knowledge_only: bool) -> Capture:
        """A validated Capture from a Capture or a reflect-shaped dict (InvalidEntryError names the field)."""
        if isinstance(item, Capture):
            cap = item
        elif isinstance(item, dict):
            unknown = sorted(set(item) - set(CAPTURE_FIELDS))
            if unknown:
                raise InvalidEntryError(
                    f"capture has unknown field(s) {', '.join(unknown)}; allowed: {', '.join(CAPTURE_FIELDS)}",
                    field="captures",
                )
            meta = {str(k): str(v) for k, v in (item.get("metadata") or {}).items()}
            for extra in (*CAPTURE_EXTRA_FIELDS, "category", "namespace"):
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
        if not CAPTURE_TYPE.fullmatch(cap.type):
            raise InvalidEntryError(
                f"capture type {cap.type!r} must be a lowercase label such as 'fact' or 'sensor_anomaly'", field="type"
            )
        check_content(cap.content, self.core.settings.memory.max_content_bytes)
        if not isinstance(cap.title, str) or len(cap.title) > 512:
            raise InvalidEntryError("capture title must be text of at most 512 characters", field="title")
        check_importance(cap.importance)
        check_session(cap.session_id)
        normalize_time(cap.created_at, field="created_at")
        for ref in cap.source_refs:
            check_ref(ref)
        return cap

    def capture_row(self, cap: Capture) -> EntryRow:
        """The ``entries`` row a capture is stored as."""
        category = cap.metadata.get("category") or ("core" if cap.type in KNOWLEDGE_TYPES else "daily")
        # The id's last 8 hex digits are random in every UUID layout (its first 8 are the time in new_id's).
        key = f"capture/{cap.type}/{slug(cap.title)}-{cap.id[-8:]}"
        row = self.entries.row(key, cap.content, category, cap.metadata.get("namespace"), cap.session_id,
                               cap.importance, cap.created_at, {"capture_type": cap.type, "tags": list(cap.tags)},
                               cap.title or "", None, entry_id=cap.entry_id)
        row["memory_type"] = cap.type
        return row

    def write(self, captures: list[Capture]) -> list[tuple[Capture, Entry, bool]]:
        """Store validated captures in one transaction: (capture acknowledged, entry, deduplicated) each."""
        sink = self.core.capture_sink
        # Every capture is screened first, with or without a sink, before its key and content hash are taken:
        # the stored entry and capture rows hold no credential. Then the sink stamps its provenance (and
        # counts the redactions) outside the transaction.
        redacted: dict[str, dict[str, int]] = {}  # capture id -> credentials redacted in it, by kind
        screened: list[Capture] = []
        for cap in captures:
            clean, kinds = screen_capture(self.core.screen, cap)
            screened.append(clean)
            if kinds:
                redacted[cap.id] = kinds
        prepared = [sink.prepare(c) for c in screened] if sink is not None else screened
        rows = [self.capture_row(cap) for cap in prepared]
        with self.core.write("recording captures") as conn:
            out = self._insert_batched(conn, prepared, rows)
            if out is None:
                out = self._insert_each(conn, prepared, rows)
            if redacted:
                self.core.count_redactions(conn, [redacted.pop(c.id, {}) for c, _, _ in out])
            new = [e for _, e, d in out if not d]
            self.entries.enforce_policy(conn, {e.namespace for e in new}, {e.category for e in new},
                                 keep=[e.id for e in new])
        return out

    def _insert_each(self, conn: sqlite3.Connection, prepared: list[Capture],
                     rows: list[EntryRow]) -> list[tuple[Capture, Entry, bool]]:
        """One capture after the other (a batch where one capture's write changes what the next one sees:
        a key written twice, a key that already has a live version, a ``revises``)."""
        sink = self.core.capture_sink
        out: list[tuple[Capture, Entry, bool]] = []
        for cap, row in zip(prepared, rows, strict=True):
            entry, dedup = self.entries.insert(conn, row)
            if dedup:
                existing = conn.execute("SELECT * FROM captures WHERE entry_id = ?", (entry.id,)).fetchone()
                if existing is not None:
                    # Same knowledge already captured (and queued): acknowledge the existing capture.
                    out.append((capture_from_row(existing, entry), entry, True))
                    continue
                cap = replace(cap, entry_id=entry.id)
                conn.execute("UPDATE entries SET memory_type = ? WHERE id = ? AND memory_type IS NULL",
                             (cap.type, entry.id))
            conn.execute(INSERT_CAPTURE, capture_values(cap))
            for ref in cap.source_refs:
                conn.execute(INSERT_PROVENANCE, (cap.entry_id, ref, self.entries.resolve_ref(conn, ref)))
            revises = cap.metadata.get("revises")
            if revises:
                old = self.entries.resolve_ref(conn, revises) if _is_ref(revises) else None
                if old and old != cap.entry_id:
                    conn.execute("UPDATE entries SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL",
                                 (cap.entry_id, old))
                    self.core.audit(conn, "supersede", old, None, entry.namespace, superseded_by=cap.entry_id)
            if sink is not None:
                sink.enqueue(conn, cap)
            out.append((cap, entry, dedup))
        return out

    def _insert_batched(self, conn: sqlite3.Connection, prepared: list[Capture],
                        rows: list[EntryRow]) -> list[tuple[Capture, Entry, bool]] | None:
        """The same outcome as :meth:`_insert_each` with the new entries of the batch written by a
        few multi-row statements; None (nothing written) when a capture's write would change what a later one
        sees, or the batch is too small to gain.

        Why multi-row: FTS5 flushes its pending index data to a new segment at every statement savepoint,
        and an insert whose trigger writes the index opens one, so row-by-row inserts wrote a one-document
        segment per capture and merged them again (~25 us per capture of pure index churn).
        """
        if len(rows) < BATCH_MIN or any(cap.metadata.get("revises") for cap in prepared):
            return None
        live = self.entries.live_for_batch(conn, rows)
        if live is None:
            return None
        live_caps: dict[str, sqlite3.Row] = {}
        for marks, chunk in in_lists([r["id"] for r in live.values()]):
            for r in conn.execute(f"SELECT * FROM captures WHERE entry_id IN {marks}", chunk):
                live_caps[r["entry_id"]] = r

        # Decide each capture in order, exactly as one-by-one inserts would.
        seen: dict[tuple[str, str], tuple[Capture, Entry]] = {}
        plan: list[tuple[Capture, Entry, bool, bool]] = []  # (capture, entry, deduplicated, write the capture)
        new_rows: list[EntryRow] = []
        for cap, row in zip(prepared, rows, strict=True):
            content_key = (row["namespace"], row["content_sha256"])
            if content_key in seen:  # acknowledged as the capture stored for it earlier in this batch
                first, entry = seen[content_key]
                plan.append((replace(first, created_at=normalize_time(first.created_at)), entry, True, False))
                continue
            dup = live.get(content_key)
            if dup is not None:
                entry = entry_from_row(dup, self.core.workspace)
                existing = live_caps.get(entry.id)
                if existing is not None:
                    known = capture_from_row(existing, entry)
                    seen[content_key] = (known, entry)
                    plan.append((known, entry, True, False))
                    continue
                cap = replace(cap, entry_id=entry.id)
                plan.append((cap, entry, True, True))
                # what a later duplicate in this batch reads back: the entry now has this memory type
                entry = replace(entry, memory_type=entry.memory_type or cap.type)
            else:
                entry = self.entries.entry_for(row)
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
            capture_rows.append(capture_values(cap))
            for ref in cap.source_refs:
                pos = batch_pos.get(ref[6:]) if ref.startswith("mem://") else None
                if pos is None:
                    source = self.entries.resolve_ref(conn, ref)
                else:  # an entry of this batch: known if written before this capture (as one by one)
                    source = ref[6:] if pos < written else None
                provenance_rows.append((cap.entry_id, ref, source))
            queued.append(cap)
        if typed:
            conn.executemany("UPDATE entries SET memory_type = ? WHERE id = ? AND memory_type IS NULL", typed)
        conn.executemany(INSERT_CAPTURE, capture_rows)
        if provenance_rows:
            conn.executemany(INSERT_PROVENANCE, provenance_rows)
        sink = self.core.capture_sink
        if sink is not None and queued:
            enqueue_many = getattr(sink, "enqueue_many", None)
            if enqueue_many is not None:
                enqueue_many(conn, queued)
            else:
                for cap in queued:
                    sink.enqueue(conn, cap)
        self.entries.insert_entry_rows(conn, new_rows)
        return out

    def record_capture(self, capture: Capture) -> Capture:
        """Store a capture (knowledge or event type) and queue it through the sink in one transaction."""
        cap = self._coerce(capture, capture.session_id, (), knowledge_only=False)
        return self.write([cap])[0][0]

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
            caps.append(self._coerce(item, item.session_id, (), knowledge_only=False))
        return [c for c, _, _ in self.write(caps)] if caps else []

    def reflect(self, session_id: str, response: str, captures: Sequence[Capture | JsonObject] = (),
                source_refs: Sequence[str] = ()) -> JsonObject:
        """Store each capture (recallable at once) with provenance from ``source_refs``; keep the response
        in this process's working memory (assistant responses are never persisted)."""
        session = check_session(session_id)
        if isinstance(source_refs, str):
            source_refs = [source_refs]
        refs = tuple(check_ref(r) for r in source_refs)
        caps = [self._coerce(c, session, refs, knowledge_only=True) for c in captures]
        if isinstance(response, str) and response and session:
            # Kept in process memory only, and redacted all the same: what a tool reads back holds no secret.
            kept, _ = self.core.redactor.text(response[: self.core.settings.memory.max_content_bytes], "response")
            with self.core.lock:
                self._working[session] = kept
                self._working.move_to_end(session)
                while len(self._working) > _WORKING_SESSIONS:
                    self._working.popitem(last=False)
        results = self.write(caps) if caps else []
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
        with self.core.lock:
            return self._working.get(session_id)

    def capture_for(self, entry_id: str) -> Capture | None:
        """The capture an entry was written from, if any."""
        with self.core.read() as conn:
            row = conn.execute("SELECT * FROM captures WHERE entry_id = ?", (entry_id,)).fetchone()
            erow = conn.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
        if row is None or erow is None:
            return None
        return capture_from_row(row, entry_from_row(erow, self.core.workspace))

    def provenance(self, entry_id: str) -> JsonObject:
        """Where an entry came from (its source refs, resolved to local entries where known) and what
        was derived from it."""
        with self.core.read() as conn:
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


def _is_ref(text: str) -> bool:
    try:
        check_ref(text)
    except InvalidEntryError:
        return False
    return True


@functools.lru_cache(maxsize=256)
def _json_list(items: tuple[str, ...]) -> str:
    """JSON of a capture's tags or source refs (the same few tag lists recur capture after capture)."""
    return to_json(list(items))


def capture_values(cap: Capture) -> tuple[Any, ...]:
    """A ``captures`` row (``INSERT_CAPTURE`` order)."""
    try:
        tags, refs = _json_list(tuple(cap.tags)), _json_list(tuple(cap.source_refs))
    except TypeError:  # an unhashable item (a Capture built by hand): encode without the cache
        tags, refs = to_json(list(cap.tags)), to_json(list(cap.source_refs))
    return (cap.id, cap.entry_id, cap.type, cap.title, tags, cap.space_hint, refs, cap.session_id, cap.importance,
            normalize_time(cap.created_at), to_json(cap.metadata))


def capture_from_row(row: sqlite3.Row, entry: Entry) -> Capture:
    """The Capture a ``captures`` row stands for (its content is the entry's)."""
    return Capture(
        id=row["id"], entry_id=row["entry_id"], type=row["type"], title=row["title"], content=entry.content,
        tags=tuple(json.loads(row["tags"])), space_hint=row["space_hint"],
        source_refs=tuple(json.loads(row["source_refs"])), session_id=row["session_id"],
        importance=row["importance"], created_at=row["created_at"], metadata=json.loads(row["metadata"]),
    )


