"""Export and import: entries (with their capture and provenance) as JSON Lines, and back.

An export line holds every entry field, the capture the entry was written from and its source refs,
so a restore rebuilds the same store. Importing validates every line first, then writes one
transaction; existing ids and live duplicates are skipped, so importing a file twice changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import IO, Any

from edge_agent.jsontypes import JsonObject
from edge_agent.memory.capture_writer import INSERT_CAPTURE_IF_NEW, INSERT_PROVENANCE, capture_from_row
from edge_agent.memory.core import StoreCore
from edge_agent.memory.entries import EntryRepository, EntryRow, filters
from edge_agent.memory.errors import ImportFormatError, InvalidEntryError
from edge_agent.memory.model import check_ref, entry_from_row, to_json
from edge_agent.memory.screening import screen_capture_record, screen_entry

EXPORT_FIELDS = ("id", "key", "title", "content", "category", "timestamp", "session_id", "namespace", "importance",
                 "score", "superseded_by", "content_sha256", "access_count", "last_access", "metadata", "kref",
                 "archived")


class Transfer:
    """JSON Lines export and import of one store."""

    def __init__(self, core: StoreCore, entries: EntryRepository) -> None:
        self.core = core
        self.entries = entries

    def export(self, *, namespace: str | None = None, session_id: str | None = None, category: str | None = None,
               since: str | None = None, until: str | None = None,
               include_superseded: bool = True) -> Iterator[JsonObject]:
        """Entries as dicts in ascending creation time (``since``/``until`` inclusive); no embeddings."""
        where, params = filters(category=category, namespace=namespace, session_id=session_id,
                                include_superseded=include_superseded, since=since, until=until)
        with self.core.read() as conn:
            rows = conn.execute(f"SELECT * FROM entries WHERE {where} ORDER BY timestamp, seq", params).fetchall()
            caps = {r["entry_id"]: r for r in conn.execute("SELECT * FROM captures")} if rows else {}
            prov: dict[str, list[str]] = {}
            for r in conn.execute("SELECT entry_id, source_ref FROM provenance ORDER BY source_ref") if rows else ():
                prov.setdefault(r["entry_id"], []).append(r["source_ref"])
        for r in rows:
            item = {k: r[k] for k in EXPORT_FIELDS}
            entry = entry_from_row(r)
            item["metadata"] = entry.metadata
            item["archived"] = bool(r["archived"])
            cap = caps.get(r["id"])
            if cap is not None:
                item["capture"] = capture_from_row(cap, entry).record()
            if r["id"] in prov:
                item["provenance"] = prov[r["id"]]
            yield item

    def export_jsonl(self, fp: IO[str], *, namespace: str | None = None, session_id: str | None = None,
                     category: str | None = None, since: str | None = None, until: str | None = None,
                     include_superseded: bool = True) -> int:
        """Write :meth:`export` as JSON Lines; returns the number of lines."""
        n = 0
        for item in self.export(namespace=namespace, session_id=session_id, category=category, since=since,
                                until=until, include_superseded=include_superseded):
            fp.write(_jsonl_line(item))
            n += 1
        return n

    def import_jsonl(self, lines: Iterable[str]) -> dict[str, int]:
        """Restore an export: all lines validated first, then one transaction. Existing ids and live
        duplicates are skipped, so importing the same file twice changes nothing."""
        parsed: list[tuple[EntryRow, Any, list[str], dict[str, int]]] = []
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
                # An export written before credentials were screened may hold some: screened like any write.
                title, content, metadata, kinds = screen_entry(self.core.screen, item.get("key"),
                                                               item.get("title", ""), item.get("content"),
                                                               item.get("metadata"))
                capture = item.get("capture")
                if isinstance(capture, dict):
                    capture, cap_kinds = screen_capture_record(self.core.screen, capture)
                    kinds = dict(Counter(kinds) + Counter(cap_kinds))
                row = self.entries.row(item.get("key"), content, item.get("category", "core"),
                                       item.get("namespace"), item.get("session_id"), item.get("importance", 0.5),
                                       item.get("timestamp"), metadata, title, item.get("score"))
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
            cap_type = capture.get("type") if isinstance(capture, dict) else None
            row["memory_type"] = str(cap_type) if cap_type else None
            parsed.append((row, capture, list(item.get("provenance") or ()), kinds))
        imported = skipped = 0
        with self.core.write("importing") as conn:
            for row, cap, prov, kinds in parsed:
                self.core.check_writable(row["namespace"], "import")
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
                        INSERT_CAPTURE_IF_NEW,
                        (str(cap["id"]), row["id"], str(cap.get("type", "")), str(cap.get("title", "")),
                         to_json(cap.get("tags") or []), str(cap.get("space_hint") or ""),
                         to_json(cap.get("source_refs") or []), cap.get("session_id"),
                         float(cap.get("importance", row["importance"])), str(cap.get("created_at", row["timestamp"])),
                         to_json(cap.get("metadata") or {})),
                    )
                for ref in prov:
                    conn.execute(INSERT_PROVENANCE, (row["id"], ref, self.entries.resolve_ref(conn, ref)))
                self.core.audit(conn, "import", row["id"], row["key"], row["namespace"])
                self.core.count_redactions(conn, [kinds])
                imported += 1
            self.core.term_stats.clear()
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
