"""Maintenance: hygiene (archive, retention, purges), snapshots, the audit log, stats and health."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from edge_agent.jsontypes import JsonObject
from edge_agent.memory import db as dbmod
from edge_agent.memory.captures import format_time
from edge_agent.memory.core import StoreCore, not_in
from edge_agent.memory.transfer import Transfer
from edge_agent.paths import open_private, private_dir

SNAPSHOTS_KEPT = 5


class Maintenance:
    """Housekeeping of one store; ``transfer`` writes the snapshots."""

    def __init__(self, core: StoreCore, transfer: Transfer) -> None:
        self.core = core
        self._transfer = transfer

    def hygiene(self, now: datetime | None = None, *, force: bool = False) -> JsonObject:
        """Archive old ``daily`` entries, purge old archives, superseded versions, expired conversations and
        categories past their retention, and old audit rows; snapshot first if configured."""
        cfg = self.core.settings.memory
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
        ro_sql = not_in("namespace", ro)
        with self.core.write("hygiene") as conn:
            def delete(where: str, params: tuple[Any, ...], label: str) -> int:
                rows = conn.execute(f"SELECT id, key, namespace FROM entries WHERE {where} AND {ro_sql}",
                                    (*params, *ro)).fetchall()
                for r in rows:
                    self.core.audit(conn, label, r["id"], r["key"], r["namespace"])
                    conn.execute("DELETE FROM entries WHERE id = ?", (r["id"],))
                    self.core.term_stats.clear()
                return len(rows)

            if cfg.archive_after_days > 0:
                rows = conn.execute(
                    f"SELECT id, key, namespace FROM entries WHERE category = 'daily' AND archived = 0 "
                    f"AND timestamp < ? AND {ro_sql}", (cutoff(cfg.archive_after_days), *ro)).fetchall()
                for r in rows:
                    conn.execute("UPDATE entries SET archived = 1 WHERE id = ?", (r["id"],))
                    self.core.audit(conn, "archive", r["id"], r["key"], r["namespace"])
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
            self.core.bump(conn, "hygiene_runs")
        return report

    def _snapshot_due(self, now: datetime) -> bool:
        """Without snapshot_on_hygiene, snapshots are daily: due when the newest is a day old (or none)."""
        newest = max((self.core.db_path.parent / "snapshots").glob("memory-*.jsonl"), default=None)
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
        folder = self.core.db_path.parent / "snapshots"
        private_dir(folder)
        target = folder / f"memory-{now.astimezone(UTC).strftime('%Y%m%dT%H%M%S%fZ')}.jsonl"
        tmp = target.with_suffix(".tmp")
        with open_private(tmp, "w") as fp:
            self._transfer.export_jsonl(fp, include_superseded=True)
            fp.flush()
            os.fsync(fp.fileno())
        tmp.replace(target)
        for old in sorted(folder.glob("memory-*.jsonl"))[:-SNAPSHOTS_KEPT]:
            old.unlink()
        return target

    def audit_log(self, limit: int = 100) -> list[JsonObject]:
        """Newest audit rows first."""
        with self.core.read() as conn:
            rows = conn.execute("SELECT * FROM audit ORDER BY seq DESC LIMIT ?", (limit,)).fetchall()
        return [{**dict(r), "detail": json.loads(r["detail"])} for r in rows]

    def stats(self) -> JsonObject:
        """Counts by category and namespace, evictions, captures, file sizes."""
        with self.core.read() as conn:
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
            "workspace": self.core.workspace,
            "db_path": str(self.core.db_path),
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
            "secrets_redacted": counters.get("secrets_redacted", 0),
            "secrets_redacted_by": {k[len("secrets_redacted."):]: v for k, v in counters.items()
                                    if k.startswith("secrets_redacted.")},
            "audit_rows": audit_rows,
            "db_bytes": file_size(self.core.db_path),
            "wal_bytes": file_size(Path(f"{self.core.db_path}-wal")),
            "recovered_from": str(self.core.recovered_from) if self.core.recovered_from else None,
        }

    def health_check(self) -> JsonObject:
        """Quick integrity check, schema state and file sizes; ``ok`` is False when degraded."""
        journal, migrations, n = "", [], None
        with self.core.lock:
            self.core.check_open()
            conn = self.core.conn
            reason = dbmod.check_integrity(conn, full=True)
            try:
                journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
                migrations = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
                (n,) = conn.execute("SELECT count(*) FROM entries").fetchone()
            except sqlite3.DatabaseError as exc:
                reason = reason or str(exc)
        if reason is not None:
            self.core.note_damage(sqlite3.DatabaseError(f"database disk image is malformed ({reason})"))
        return {
            "ok": reason is None and not self.core.degraded,
            "integrity": reason or "ok",
            "journal_mode": journal,
            "migrations": migrations,
            "entries": n,
            "workspace": self.core.workspace,
            "db_path": str(self.core.db_path),
            "db_bytes": file_size(self.core.db_path),
            "wal_bytes": file_size(Path(f"{self.core.db_path}-wal")),
            "recovered_from": str(self.core.recovered_from) if self.core.recovered_from else None,
        }


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
