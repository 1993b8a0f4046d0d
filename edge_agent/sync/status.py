"""The status behind ``edge-agent sync status``: queue sizes, last success and error, pause, screening."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from edge_agent.config import Settings
from edge_agent.errors import ConfigError
from edge_agent.identity import device_id as resolve_device_id
from edge_agent.sync.client import resolve_endpoint
from edge_agent.sync.outbox import read_screening
from edge_agent.sync.repository import get_state, read_counters, read_counts, read_dead


def sync_status(conn: sqlite3.Connection, settings: Settings, state_dir: Path, *, device: str | None = None,
                endpoint_override: str | None = None) -> dict[str, Any]:
    """The status dictionary behind ``edge-agent sync status`` (reads the database only, on ``conn``: the
    memory store's connection, lent for reading)."""
    cfg = settings.kumiho
    now = time.time()
    counts = read_counts(conn)
    dead_rows = read_dead(conn, 20)
    counters = read_counters(conn)
    last_success = get_state(conn, "last_success")
    last_error = get_state(conn, "last_error")
    paused = get_state(conn, "paused")
    offline_until = get_state(conn, "offline_until", 0) or 0
    link_down = get_state(conn, "link_down")
    try:
        endpoint: str | None = resolve_endpoint(cfg, endpoint_override)
        endpoint_error = None
    except ConfigError as exc:
        endpoint, endpoint_error = None, str(exc)
    screening = read_screening(state_dir)
    max_bytes = int(cfg.outbox_max_mb * 2**20)
    return {
        "enabled": cfg.enabled,
        "endpoint": endpoint,
        "endpoint_error": endpoint_error,
        "device_id": device or resolve_device_id(settings, state_dir),
        "project": cfg.project,
        "queued": counts.queued,
        "in_flight": counts.in_flight,
        "dead_letters": counts.dead_letters,
        "synced_total": int(counters.get("synced_total", 0)),
        "edges_skipped": int(counters.get("edges_skipped", 0)),
        "oldest_unsynced_age_s": round(now - counts.oldest_enqueued_at, 3) if counts.oldest_enqueued_at else None,
        "last_success": _iso(last_success),
        "last_error": ({**last_error, "at": _iso(last_error.get("at"))} if isinstance(last_error, dict) else None),
        "paused": {k: v for k, v in paused.items() if k != "token"} if isinstance(paused, dict) else None,
        "link_down": ({"since": _iso(link_down.get("since")), "failed_attempts": int(link_down.get("failures", 0)),
                       "code": link_down.get("code")} if isinstance(link_down, dict) else None),
        "next_attempt_in_s": round(offline_until - now, 1) if offline_until and offline_until > now else 0.0,
        "outbox": {
            "rows": counts.rows, "bytes": counts.bytes, "max_rows": cfg.outbox_max_rows, "max_bytes": max_bytes,
            "full_policy": cfg.outbox_full_policy, "used_fraction": round(max(counts.rows / cfg.outbox_max_rows,
                                                                              counts.bytes / max_bytes), 4),
        },
        "secrets": {
            "policy": cfg.secret_policy,
            "redacted_captures": int(counters.get("secrets_redacted_captures", 0)),
            "redacted_by_kind": {k.split(".", 1)[1]: int(v) for k, v in counters.items()
                                 if k.startswith("secrets_redacted.")},
            "rejected_captures": screening["rejected_captures"],
            "rejected_by_kind": screening["rejected"],
        },
        "dead": [{"capture_id": r[0], "code": r[1], "reason": r[2], "dead_at": _iso(r[3]), "attempts": r[4]}
                 for r in dead_rows],
    }


def _iso(ts: Any) -> str | None:
    if not isinstance(ts, int | float) or not ts:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
