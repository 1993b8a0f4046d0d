"""The outbox: captures bound for Kumiho, written in the same transaction as the memory entry.

:class:`OutboxSink` is the memory store's ``CaptureSink``; the store has screened each capture for
credentials before it gets here. ``prepare`` runs before the transaction: it stamps the device
provenance (device id, boot id, monotonic and wall clock, clock-synced flag). ``enqueue`` runs inside
the caller's transaction: it checks the outbox bound and inserts one ``sync_outbox`` row, so
the capture is acknowledged exactly when its upload obligation is durable.

Outbox bound (``outbox_max_rows`` / ``outbox_max_mb``; queued rows and dead letters both count):

* ``refuse_low_importance`` (default): captures with importance below ``low_importance_below`` are
  refused once usage reaches 90 % of either limit, the rest at 100 %;
* ``refuse_all``: every capture is refused at 100 %.

Nothing already acknowledged is ever dropped to make room; the refusal is an :class:`OutboxFullError`
raised inside the caller's transaction, which rolls the entry back with it.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_agent.config import Settings
from edge_agent.credentials import REDACTION_KEY_FILE, SCREENING_FILE, read_screening, redaction_marks
from edge_agent.errors import SecretRejectedError, SyncError
from edge_agent.identity import device_id as resolve_device_id
from edge_agent.identity import read_clock
from edge_agent.memory.captures import Capture
from edge_agent.sync.repository import bump_state, insert_outbox_rows, outbox_usage

ROW_OVERHEAD_BYTES = 400  # indexes, row header and page slack beside the payload (bench/sync.py measures ~420)
LOW_IMPORTANCE_HEADROOM = 0.9  # low-importance captures stop at 90 % of the bound
PROVENANCE_KEYS = ("device_id", "boot_id", "monotonic_ns", "wall_time", "clock_synced")
MAX_PENDING_REDACTIONS = 10_000


class OutboxFullError(SyncError):
    """The outbox reached its bound; the capture was refused and nothing was stored."""

    def __init__(self, *, rows: int, bytes_used: int, max_rows: int, max_bytes: int, importance: float,
                 policy: str) -> None:
        self.rows, self.bytes_used, self.max_rows, self.max_bytes = rows, bytes_used, max_rows, max_bytes
        self.importance, self.policy = importance, policy
        super().__init__(
            f"sync outbox is full ({rows}/{max_rows} rows, {bytes_used / 2**20:.1f}/{max_bytes / 2**20:.1f} MiB, "
            f"policy {policy}); capture with importance {importance:.2f} refused. Reconnect to Kumiho and run "
            "`edge-agent sync now`, clear dead letters (`edge-agent sync status`), or raise "
            "[kumiho] outbox_max_rows / outbox_max_mb"
        )


# --- capture payload ------------------------------------------------------------------------------


def capture_payload(capture: Any) -> dict[str, Any]:
    """The fields of a Capture the upload needs, as plain JSON data."""
    def get(name: str, default: Any = None) -> Any:
        return getattr(capture, name, default)

    return {
        "id": str(get("id")),
        "entry_id": None if get("entry_id") is None else str(get("entry_id")),
        "type": str(get("type") or "summary"),
        "title": str(get("title") or ""),
        "content": str(get("content") or ""),
        "tags": [str(t) for t in (get("tags") or ())],
        "space_hint": str(get("space_hint") or ""),
        "source_refs": [str(r) for r in (get("source_refs") or ())],
        "session_id": None if get("session_id") is None else str(get("session_id")),
        "importance": float(get("importance", 0.5) if get("importance") is not None else 0.5),
        "created_at": str(get("created_at") or ""),
        "metadata": {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in (get("metadata") or {}).items()},
    }


class OutboxSink:
    """CaptureSink that stamps the captures the store screened and queues them in ``sync_outbox``."""

    def __init__(self, settings: Settings, state_dir: Path, *, device: str | None = None) -> None:
        self.settings = settings
        self.config = settings.kumiho
        self.state_dir = Path(state_dir)
        self.device_id = device or resolve_device_id(settings, self.state_dir)
        # capture id -> redaction counts, from prepare until enqueue counts them in the transaction. A
        # capture the store deduplicates never reaches enqueue, so the map is bounded, oldest dropped.
        self._redactions: OrderedDict[str, dict[str, int]] = OrderedDict()
        self._lock = threading.Lock()

    # --- CaptureSink ------------------------------------------------------------------------------

    def prepare(self, capture: Capture) -> Capture:
        """Stamp device provenance and note the capture's redactions; runs outside the transaction.

        The memory store screens every capture for credentials (``[kumiho] secret_policy``: redact or
        reject) with the device's redaction key before handing it here, so what arrives is already clean.
        The ``[REDACTED:<kind>:<tag>]`` marks it carries are counted for sync status once it is queued.
        """
        tags = tuple(getattr(capture, "tags", ()) or ())
        metadata = dict(getattr(capture, "metadata", {}) or {})
        texts = [str(capture.title or ""), str(capture.content or ""), *(str(t) for t in tags),
                 *(str(v) for v in metadata.values())]
        kinds = redaction_marks(texts)
        if kinds:
            with self._lock:
                self._redactions[str(capture.id)] = kinds
                while len(self._redactions) > MAX_PENDING_REDACTIONS:
                    self._redactions.popitem(last=False)
        clock = read_clock()
        stamp = {"device_id": self.device_id, **clock.as_metadata()}
        for name, value in stamp.items():
            metadata.setdefault(name, value)
        return dataclasses.replace(capture, metadata=metadata)

    def enqueue(self, conn: sqlite3.Connection, capture: Capture) -> None:
        """Insert the outbox row inside the caller's open transaction (raises OutboxFullError at the bound)."""
        text, payload, size = self._outbox_row(capture)
        self.check_room(conn, payload["importance"], size)
        insert_outbox_rows(conn, [(payload["id"], payload["entry_id"], payload["importance"], text, size, time.time())])
        self._count_redactions(conn, [payload["id"]])

    def enqueue_many(self, conn: sqlite3.Connection, captures: Sequence[Capture]) -> None:
        """:meth:`enqueue` for several captures, in order, inside the caller's transaction: the same rows and
        the same bound check per capture (usage read once and counted forward), inserted by one executemany."""
        rows, used = outbox_usage(conn)
        values = []
        for capture in captures:
            text, payload, size = self._outbox_row(capture)
            self._refuse_if_full(rows, used, payload["importance"], size)
            rows, used = rows + 1, used + size
            values.append((payload["id"], payload["entry_id"], payload["importance"], text, size, time.time()))
        insert_outbox_rows(conn, values)
        self._count_redactions(conn, [v[0] for v in values])

    def _count_redactions(self, conn: sqlite3.Connection, capture_ids: list[str]) -> None:
        """Count the redactions prepare made in these captures, now that they are queued."""
        for capture_id in capture_ids:
            with self._lock:
                kinds = self._redactions.pop(capture_id, None)
            if kinds:
                bump_state(conn, "secrets_redacted_captures", 1)
                for kind, n in kinds.items():
                    bump_state(conn, f"secrets_redacted.{kind}", n)

    def _outbox_row(self, capture: Any) -> tuple[str, dict[str, Any], int]:
        """(payload JSON, payload, accounted bytes) of a capture's outbox row."""
        payload = capture_payload(capture)
        if not all(k in payload["metadata"] for k in PROVENANCE_KEYS):
            # enqueue without prepare: stamp now rather than upload a capture without provenance
            clock = read_clock()
            payload["metadata"] = {"device_id": self.device_id, **clock.as_metadata(), **payload["metadata"]}
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        return text, payload, len(text.encode("utf-8")) + ROW_OVERHEAD_BYTES

    # --- bound ------------------------------------------------------------------------------------

    def check_room(self, conn: sqlite3.Connection, importance: float, size: int) -> None:
        """Raise OutboxFullError if a capture of this importance and size does not fit."""
        rows, used = outbox_usage(conn)
        self._refuse_if_full(rows, used, importance, size)

    def _refuse_if_full(self, rows: int, used: int, importance: float, size: int) -> None:
        max_rows, max_bytes = self.config.outbox_max_rows, int(self.config.outbox_max_mb * 2**20)
        factor = 1.0
        if self.config.outbox_full_policy == "refuse_low_importance" and importance < self.config.low_importance_below:
            factor = LOW_IMPORTANCE_HEADROOM
        if rows + 1 > max_rows * factor or used + size > max_bytes * factor:
            raise OutboxFullError(rows=rows, bytes_used=used, max_rows=max_rows, max_bytes=max_bytes,
                                  importance=importance, policy=self.config.outbox_full_policy)


__all__ = ["REDACTION_KEY_FILE", "SCREENING_FILE", "OutboxFullError", "OutboxSink", "SecretRejectedError",
           "capture_payload", "read_screening"]


