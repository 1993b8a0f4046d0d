"""Captures: what reflect and record_capture write, and the sink that queues them for Kumiho.

A capture becomes one local entry and, when a :class:`CaptureSink` is plugged in, one outbox row in
the same SQLite transaction: the capture is acknowledged only after both are committed, so a power
cut leaves either both or neither.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from edge_agent.jsontypes import JsonObject

# The memory types Kumiho's memory_reflect tool accepts, defined once: the MCP tools' input schema uses
# the Literal, the store the tuple. Other lowercase labels are event types (sensor anomalies, command
# executions) accepted by record_capture only.
KnowledgeType = Literal["decision", "preference", "fact", "correction", "architecture", "implementation",
                        "synthesis", "reflection", "summary", "skill"]
KNOWLEDGE_TYPES: tuple[str, ...] = get_args(KnowledgeType)


def utc_now() -> str:
    """The current time as RFC 3339 UTC with microseconds (the one time format of the store)."""
    return format_time(datetime.now(UTC))


def format_time(dt: datetime) -> str:
    """Render an aware datetime in the store's fixed-width, lexically sortable RFC 3339 UTC form."""
    utc = dt.astimezone(UTC)
    if utc.year >= 1000:  # isoformat is the same text, faster; strftime does not pad years below 1000
        return utc.isoformat(timespec="microseconds")[:-6] + "Z"
    return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_id() -> str:
    """A new UUID in the RFC 9562 version 7 layout: 48 bits of Unix time in milliseconds, then 74 random bits.

    Ids made one after the other sort together, so each unique index on ids (entries, captures, the
    sync outbox) takes a new id at its right edge instead of on a random page: a commit of 100
    captures dirties a few index pages instead of about one page per capture per index, which is
    what the commit has to write to the WAL and fsync. 74 random bits per millisecond keep ids unique.
    """
    ms = time.time_ns() // 1_000_000 & 0xFFFF_FFFF_FFFF
    rand = int.from_bytes(os.urandom(10), "big")
    value = ms << 80 | 0x7 << 76 | (rand >> 62 & 0xFFF) << 64 | 0b10 << 62 | rand & 0x3FFF_FFFF_FFFF_FFFF
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_new_id = new_id


@dataclass(frozen=True, kw_only=True)
class Capture:
    """One memory capture; ``id`` is created once and survives every retry of its upload."""

    id: str = field(default_factory=_new_id)
    entry_id: str = field(default_factory=_new_id)
    type: str
    title: str
    content: str
    tags: tuple[str, ...] = ()
    space_hint: str = ""
    source_refs: tuple[str, ...] = ()  # krefs, or mem://<entry_id> for entries not yet synced
    session_id: str | None = None
    importance: float = 0.5
    created_at: str = field(default_factory=utc_now)
    metadata: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> JsonObject:
        """A JSON-ready dict (tuples become lists)."""
        data = asdict(self)
        data["tags"] = list(self.tags)
        data["source_refs"] = list(self.source_refs)
        return data

    def record(self) -> JsonObject:
        """The capture as an export line carries it: every field but the entry's id and content (the
        export line is the entry)."""
        data = self.to_dict()
        del data["entry_id"], data["content"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Capture:
        """Rebuild a capture from :meth:`to_dict` output."""
        values: dict[str, Any] = dict(data)  # the fields to_dict wrote
        values["tags"] = tuple(values.get("tags") or ())
        values["source_refs"] = tuple(values.get("source_refs") or ())
        values["metadata"] = {str(k): str(v) for k, v in (values.get("metadata") or {}).items()}
        return cls(**values)


@runtime_checkable
class CaptureSink(Protocol):
    """Where captures go besides the local store (the sync outbox)."""

    def prepare(self, capture: Capture) -> Capture:
        """Outside the transaction, on a capture the store has screened: return it ready to queue."""
        ...

    def enqueue(self, conn: sqlite3.Connection, capture: Capture) -> None:
        """Inside the SAME transaction as the entry insert: queue the capture; never commit."""
        ...

