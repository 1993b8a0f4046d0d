"""The outbox repository: every query on the sync tables (outbox, batches, dead letters, krefs, state).

The tables live in the memory store's database file, so a capture and its outbox row commit in one
transaction (:func:`insert_outbox_rows` runs inside the memory store's transaction). The memory store
owns the file: the sync tables are its migrations registered under ``sync/`` (below), and the uploader
works through :class:`OutboxRepository`, which borrows the store's connection as a unit of work and
never touches the memory tables: krefs of uploaded captures are recorded through that unit of work.

Exactly-once bookkeeping, per row: a row without ``batch_id`` and ``revision_kref`` is queued; one
with a ``batch_id`` was persisted into an upload batch before the call and is only re-sent in that
batch, unchanged, until the server answers; one with a ``revision_kref`` has its revision upstream
and is being finished (edges, tags). Dead letters sit in ``sync_dead`` until retried.
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from edge_agent.config import KumihoConfig
from edge_agent.errors import MemoryStoreError
from edge_agent.memory.db import migration_files, register_migrations
from edge_agent.memory.unit_of_work import UnitOfWork

# A row is due when its retry time has come, or lies further ahead than any backoff could put it: the
# wall clock stepped back (an RTC-less board whose clock NTP just corrected) and it must not wait years.
_DUE = "(next_attempt_at <= ? OR next_attempt_at > ?)"
_ROW_COLUMNS = ("seq, capture_id, entry_id, payload, attempts, batch_id, batch_index, revision_kref, solo, "
                "next_attempt_at")
_INSERT_OUTBOX = ("INSERT INTO sync_outbox (capture_id, entry_id, importance, payload, bytes, enqueued_at) "
                  "VALUES (?, ?, ?, ?, ?, ?)")
_TABLES = {"sync_outbox", "sync_dead", "sync_batches", "sync_krefs", "sync_state", "sync_usage",
           "sync_outbox_queued"}


@dataclass(frozen=True)
class RevisionState:
    """What the finishing steps need to know of a revision: its kref, whether it is published, its tags."""

    kref: str
    published: bool
    tags: frozenset[str]


@dataclass
class OutboxRow:
    """One outbox row as the uploader works with it."""

    seq: int
    capture_id: str
    entry_id: str | None
    payload: dict[str, Any]
    attempts: int
    batch_id: str | None
    batch_index: int | None
    revision_kref: str | None
    solo: bool = False
    space: str = ""
    revision: RevisionState | None = None  # from the batch answer of this pass, when at hand
    sources: tuple[list[str], int, bool] | BaseException | None = None  # resolved before finishing starts
    not_before: float = 0.0


@dataclass(frozen=True)
class OutboxCounts:
    """The queue as ``sync status`` reports it: each row counted once."""

    queued: int  # waiting for its first (or next) upload batch
    in_flight: int  # in a persisted batch not answered yet, or uploaded and being finished
    dead_letters: int
    oldest_enqueued_at: float | None
    rows: int
    bytes: int


# --- schema ---------------------------------------------------------------------------------------


register_migrations("sync", resources.files("edge_agent.sync") / "migrations")


def ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the sync tables on a bare connection to a file of their own (the outbox bench); the memory
    database gets them from the store's migration runner. Every statement is idempotent."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    if have >= _TABLES:
        return
    for _name, sql in migration_files("sync"):
        conn.executescript(sql)


# --- inside the memory store's transaction --------------------------------------------------------


def outbox_usage(conn: sqlite3.Connection) -> tuple[int, int]:
    """(rows, bytes) the outbox holds, dead letters included (kept by triggers: one row read)."""
    row = conn.execute("SELECT rows, bytes FROM sync_usage WHERE id = 1").fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def insert_outbox_rows(conn: sqlite3.Connection, values: Sequence[tuple[str, str | None, float, str, int, float]]
                       ) -> None:
    """Queue captures: (capture_id, entry_id, importance, payload JSON, bytes, enqueued_at) each."""
    if len(values) == 1:
        conn.execute(_INSERT_OUTBOX, values[0])
    else:
        conn.executemany(_INSERT_OUTBOX, values)


def bump_state(conn: sqlite3.Connection, key: str, n: int = 1) -> None:
    """Add `n` to an integer counter in sync_state (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO sync_state (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT)",
        (key, str(n), n),
    )


def set_state(conn: sqlite3.Connection, key: str, value: Any) -> None:
    """Store a JSON value in sync_state."""
    conn.execute("INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)", (key, json.dumps(value)))


def get_state(conn: sqlite3.Connection, key: str, default: Any = None) -> Any:
    """Read a JSON value from sync_state."""
    row = conn.execute("SELECT value FROM sync_state WHERE key = ?", (key,)).fetchone()
    if row is None:
        return default
    try:
        return json.loads(row[0])
    except ValueError:
        return row[0]


def read_counts(conn: sqlite3.Connection) -> OutboxCounts:
    """Queue sizes for status, each row counted once.

    In flight: sent in a batch whose answer is awaited, or uploaded and being finished (edges, tags).
    Queued: everything else not dead-lettered. While the link is down nothing is in flight, so every
    outbox row counts as queued then (a batch whose send failed waits to be sent again).
    """
    q = conn.execute
    total = q("SELECT count(*) FROM sync_outbox").fetchone()[0]
    if get_state(conn, "link_down"):
        in_flight = 0
    else:  # disjoint: a row leaves its batch when its revision kref is recorded (each count uses an index)
        in_flight = (q("SELECT count(*) FROM sync_outbox WHERE batch_id IS NOT NULL").fetchone()[0]
                     + q("SELECT count(*) FROM sync_outbox WHERE revision_kref IS NOT NULL").fetchone()[0])
    dead = q("SELECT count(*) FROM sync_dead").fetchone()[0]
    oldest = q("SELECT min(enqueued_at) FROM sync_outbox").fetchone()[0]
    rows, used = outbox_usage(conn)
    return OutboxCounts(int(total) - int(in_flight), int(in_flight), int(dead), oldest, rows, used)


def read_dead(conn: sqlite3.Connection, limit: int = 20) -> list[tuple[str, str, str, float, int]]:
    """The oldest dead letters: (capture_id, code, reason, dead_at, attempts)."""
    return [tuple(r) for r in conn.execute(
        "SELECT capture_id, code, reason, dead_at, attempts FROM sync_dead ORDER BY seq LIMIT ?", (limit,))]


def read_counters(conn: sqlite3.Connection) -> dict[str, str]:
    """Upload and screening counters kept in sync_state."""
    return dict(conn.execute("SELECT key, value FROM sync_state WHERE key LIKE 'secrets_redacted%' OR key IN "
                             "('synced_total', 'edges_skipped')").fetchall())


def outbox_depth(store: StateDatabase) -> int | None:
    """Rows in the outbox of a memory store's database (0 before sync ever queued one); None when unreadable."""
    try:
        with store.reading() as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sync_outbox'").fetchone() is None:
                return 0  # the sync tables are created with the first store opened while sync is on
            return int(conn.execute("SELECT count(*) FROM sync_outbox").fetchone()[0])
    except (sqlite3.Error, MemoryStoreError):
        return None


# --- the uploader's side --------------------------------------------------------------------------


class StateDatabase(Protocol):
    """What the outbox needs of the memory store, which owns the database file the outbox tables live in."""

    @property
    def db_path(self) -> Path: ...

    def unit_of_work(self, operation: str) -> contextlib.AbstractContextManager[UnitOfWork]: ...

    def reading(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...

    def apply_migrations(self) -> list[str]: ...


class OutboxRepository:
    """The uploader's view of the outbox of one memory database. Thread-safe.

    It opens no connection: every read and write goes through the memory store that owns the file, on the
    store's connection under its lock (writes as a unit of work, so a retire and the krefs it records on
    memory entries are one commit).
    """

    def __init__(self, store: StateDatabase, config: KumihoConfig, space_of: Callable[[dict[str, Any]], str], *,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None) -> None:
        self._store = store
        self.db_path = Path(store.db_path)
        self.config = config
        self._space_of = space_of
        self._clock = clock
        self._rng = rng or random.Random()
        store.apply_migrations()  # the outbox tables, when the store was opened before this package was imported

    def reading(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """The store's connection for reads, under its lock."""
        return self._store.reading()

    @contextlib.contextmanager
    def tx(self, operation: str = "updating the sync outbox") -> Iterator[sqlite3.Connection]:
        """A write transaction on the outbox tables (the store's unit of work, committed on exit)."""
        with self._store.unit_of_work(operation) as uow:
            yield uow.conn

    def _due(self, now: float) -> tuple[float, float]:
        return now, now + self.config.backoff_max_s + 1.0

    def _rows(self, where: str, params: tuple[Any, ...] = (), limit: int | None = None) -> list[OutboxRow]:
        sql = f"SELECT {_ROW_COLUMNS} FROM sync_outbox WHERE {where}"
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._store.reading() as conn:
            rows = conn.execute(sql, params).fetchall()
        out = []
        for r in rows:
            payload = json.loads(r[3])
            row = OutboxRow(r[0], r[1], r[2], payload, r[4], r[5], r[6], r[7], bool(r[8]),
                            space=self._space_of(payload))
            row.not_before = float(r[9])
            out.append(row)
        return out

    # --- state ------------------------------------------------------------------------------------

    def state(self, key: str, default: Any = None) -> Any:
        with self._store.reading() as conn:
            return get_state(conn, key, default)

    def set_states(self, **values: Any) -> None:
        with self.tx() as conn:
            for key, value in values.items():
                set_state(conn, key, value)

    def note_error(self, conn: sqlite3.Connection, code: str, message: str) -> None:
        set_state(conn, "last_error", {"at": self._clock(), "code": code, "message": message})

    def record_global(self, code: str, message: str, *, offline_until: float,
                      pause: dict[str, Any] | None = None, link_down: dict[str, Any] | None = None) -> None:
        """A failure of the whole connection: last error, optional pause or link-down state, when the next
        attempt is."""
        with self.tx() as conn:
            self.note_error(conn, code, message)
            if pause is not None:
                set_state(conn, "paused", pause)
            if link_down is not None:
                set_state(conn, "link_down", link_down)
            set_state(conn, "offline_until", offline_until)

    def counts(self) -> OutboxCounts:
        with self._store.reading() as conn:
            return read_counts(conn)

    # --- batches ----------------------------------------------------------------------------------

    def pending_batches(self) -> list[tuple[str, str, int]]:
        """Persisted batches not answered yet (batch_id, prefix, rows), oldest first."""
        with self._store.reading() as conn:
            return [tuple(r) for r in conn.execute(
                "SELECT batch_id, prefix, rows FROM sync_batches WHERE dead = 0 ORDER BY created_at")]

    def batch_rows(self, batch_id: str) -> list[OutboxRow]:
        return self._rows("batch_id = ? ORDER BY batch_index", (batch_id,))

    def batch_prefix(self, batch_id: str) -> str:
        with self._store.reading() as conn:
            return str(conn.execute("SELECT prefix FROM sync_batches WHERE batch_id = ?",
                                         (batch_id,)).fetchone()[0])

    def unbatched_due(self, now: float, limit: int) -> list[OutboxRow]:
        """Queued rows due now, in upload order."""
        return self._rows(f"batch_id IS NULL AND revision_kref IS NULL AND {_DUE} ORDER BY seq", self._due(now),
                          limit)

    def persist_batch(self, batch_id: str, prefix: str, rows: list[OutboxRow]) -> None:
        """Bind rows to a batch before it is sent: after a crash the same rows go out again, same order and prefix."""
        with self.tx() as conn:
            conn.execute("INSERT INTO sync_batches (batch_id, prefix, rows, created_at) VALUES (?, ?, ?, ?)",
                         (batch_id, prefix, len(rows), self._clock()))
            for i, row in enumerate(rows):
                conn.execute("UPDATE sync_outbox SET batch_id = ?, batch_index = ? WHERE seq = ?",
                             (batch_id, i, row.seq))
                row.batch_id, row.batch_index = batch_id, i

    def split_batch(self, batch_id: str, rows: list[OutboxRow], code: str, message: str) -> None:
        """The server refused a whole batch call (nothing committed): its rows go out one by one."""
        with self.tx() as conn:
            conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (batch_id,))
            conn.executemany("UPDATE sync_outbox SET batch_id = NULL, batch_index = NULL, solo = 1 WHERE seq = ?",
                             [(r.seq,) for r in rows])
            self.note_error(conn, code, message)

    def record_answers(self, batch_id: str, answered: list[OutboxRow]) -> None:
        """Store the revision krefs a batch call answered with and retire the batch."""
        with self.tx() as conn:
            for row in answered:
                conn.execute("UPDATE sync_outbox SET revision_kref = ?, batch_id = NULL, batch_index = NULL, "
                             "attempts = 0, next_attempt_at = 0, last_error = NULL WHERE seq = ?",
                             (row.revision_kref, row.seq))
            conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (batch_id,))

    def requeue(self, rows: list[OutboxRow], code: str, reason: str) -> None:
        """Rows the server lost or could not place (it restarted empty: no project, space or revision): drop
        their batch and revision, queue them for a new batch at once. The attempt counts, so a server that
        keeps answering this way ends in dead letters after ``max_attempts``."""
        if not rows:
            return
        give_up = [r for r in rows if r.attempts + 1 >= self.config.max_attempts]
        with self.tx() as conn:
            for r in rows:
                if r.batch_id:
                    conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (r.batch_id,))
                r.attempts += 1
                conn.execute("UPDATE sync_outbox SET revision_kref = NULL, batch_id = NULL, batch_index = NULL, "
                             "attempts = ?, next_attempt_at = 0, last_error = ? WHERE seq = ?",
                             (r.attempts, f"{code}: {reason}", r.seq))
                r.revision_kref, r.revision, r.batch_id, r.batch_index = None, None, None, None
            self.note_error(conn, code, reason)
        if give_up:
            self.dead_letter([(r, code, f"gave up after {r.attempts} attempts: {reason}") for r in give_up],
                             keep_batch=False)

    # --- finishing --------------------------------------------------------------------------------

    def finishing_due(self, now: float, limit: int) -> list[OutboxRow]:
        """Due rows whose revision exists upstream."""
        return self._rows(f"revision_kref IS NOT NULL AND {_DUE} ORDER BY seq", self._due(now), limit)

    def retire(self, done: list[OutboxRow], skipped_edges: int) -> None:
        """Remove finished rows and record their krefs on the memory entries: one unit of work, one commit."""
        with self._store.unit_of_work("retiring uploaded captures") as uow:
            conn = uow.conn
            t = self._clock()
            conn.executemany("DELETE FROM sync_outbox WHERE seq = ?", [(r.seq,) for r in done])
            pairs = [(r.entry_id, r.revision_kref) for r in done if r.entry_id and r.revision_kref]
            if pairs:
                uow.record_krefs(pairs)
            bump_state(conn, "synced_total", len(done))
            if skipped_edges:
                bump_state(conn, "edges_skipped", skipped_edges)
            set_state(conn, "last_success", t)

    def defer(self, rows: list[OutboxRow], delay_s: float) -> None:
        with self.tx() as conn:
            conn.executemany("UPDATE sync_outbox SET next_attempt_at = ? WHERE seq = ?",
                             [(self._clock() + delay_s, r.seq) for r in rows])

    def kref_for_entry(self, entry_id: str) -> tuple[str | None, bool]:
        """(revision kref known to the outbox, still queued) for a memory entry cited as mem://<entry_id>."""
        with self._store.reading() as conn:
            # The source's revision exists upstream as soon as its batch was answered, finished or not.
            for sql in ("SELECT revision_kref FROM sync_krefs WHERE entry_id = ?",
                        "SELECT revision_kref FROM sync_outbox WHERE entry_id = ? AND revision_kref IS NOT NULL",
                        "SELECT revision_kref FROM sync_dead WHERE entry_id = ? AND revision_kref IS NOT NULL"):
                hit = conn.execute(sql, (entry_id,)).fetchone()
                if hit:
                    return hit[0], False
            queued = conn.execute("SELECT 1 FROM sync_outbox WHERE entry_id = ? LIMIT 1", (entry_id,)).fetchone()
            return None, queued is not None

    def ledger_krefs(self) -> list[tuple[str, str | None, str]]:
        """Krefs waiting in the ledger to be written onto memory entries (capture_id, entry_id, kref)."""
        with self._store.reading() as conn:
            return [tuple(r) for r in conn.execute(
                "SELECT capture_id, entry_id, revision_kref FROM sync_krefs")]

    def drop_ledger_krefs(self, capture_ids: Iterable[str]) -> None:
        with self.tx() as conn:
            conn.executemany("DELETE FROM sync_krefs WHERE capture_id = ?", [(c,) for c in capture_ids])

    # --- failures ---------------------------------------------------------------------------------

    def fail_rows(self, rows: list[OutboxRow], code: str, reason: str, *, answered: bool) -> None:
        """Count an answered failure on rows; rows at max_attempts become dead letters (whole batch together)."""
        if not rows:
            return
        now = self._clock()
        cfg = self.config
        give_up = [r for r in rows if answered and r.attempts + 1 >= cfg.max_attempts]
        with self.tx() as conn:
            for r in rows:
                r.attempts += 1 if answered else 0
                delay = min(cfg.backoff_max_s, cfg.backoff_initial_s * 2 ** max(r.attempts - 1, 0))
                conn.execute("UPDATE sync_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?",
                             (r.attempts, now + delay / 2 + self._rng.uniform(0, delay / 2), f"{code}: {reason}",
                              r.seq))
            self.note_error(conn, code, reason)
        if give_up:
            self.dead_letter([(r, code, f"gave up after {r.attempts} attempts: {reason}") for r in give_up],
                             keep_batch=True)

    def dead_letter(self, items: list[tuple[OutboxRow, str, str]], *, keep_batch: bool) -> list[str]:
        """Move rows to sync_dead; keep_batch retains an unanswered batch so retry replays it unchanged.
        Returns the capture ids moved."""
        now = self._clock()
        moved: list[str] = []
        with self.tx() as conn:
            seqs = {r.seq for r, _, _ in items}
            batches = {r.batch_id for r, _, _ in items if r.batch_id and keep_batch and conn.execute(
                "SELECT 1 FROM sync_batches WHERE batch_id = ?", (r.batch_id,)).fetchone()}
            for batch_id in batches:  # an unanswered batch is dead-lettered whole, never split
                siblings = conn.execute("SELECT seq, capture_id FROM sync_outbox WHERE batch_id = ?",
                                        (batch_id,)).fetchall()
                code, reason = items[0][1], items[0][2]
                for seq, _cid in siblings:
                    if seq not in seqs:
                        items.append((OutboxRow(seq, "", None, {}, 0, batch_id, None, None), code, reason))
                        seqs.add(seq)
                conn.execute("UPDATE sync_batches SET dead = 1 WHERE batch_id = ?", (batch_id,))
            for row, code, reason in items:
                src = conn.execute(
                    "SELECT seq, capture_id, entry_id, importance, payload, bytes, enqueued_at, attempts, batch_id, "
                    "batch_index, revision_kref FROM sync_outbox WHERE seq = ?", (row.seq,)).fetchone()
                if src is None:
                    continue
                dead_batch, dead_index = (src[8], src[9]) if keep_batch else (None, None)
                conn.execute(
                    "INSERT OR REPLACE INTO sync_dead (seq, capture_id, entry_id, importance, payload, bytes, "
                    "enqueued_at, attempts, batch_id, batch_index, revision_kref, code, reason, dead_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*src[:8], dead_batch, dead_index, src[10], code, reason[:500], now))
                conn.execute("DELETE FROM sync_outbox WHERE seq = ?", (row.seq,))
                if not keep_batch and src[8]:
                    # Known not committed under its key: release the batch, its other rows re-batch freely.
                    conn.execute("UPDATE sync_outbox SET batch_id = NULL, batch_index = NULL WHERE batch_id = ?",
                                 (src[8],))
                    conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (src[8],))
                moved.append(src[1])
            self.note_error(conn, items[0][1], f"{len(items)} capture(s) dead-lettered: {items[0][2][:200]}")
        return moved

    def retry_dead(self, capture_ids: list[str] | None = None) -> int:
        """Move dead letters (all, or these captures and their batch siblings) back into the outbox."""
        with self.tx() as conn:
            if capture_ids:
                marks = ",".join("?" * len(capture_ids))
                batches = [b for (b,) in conn.execute(
                    f"SELECT DISTINCT batch_id FROM sync_dead WHERE capture_id IN ({marks}) AND batch_id IS NOT NULL",
                    capture_ids)]
                where = f"capture_id IN ({marks})"
                params: list[Any] = list(capture_ids)
                if batches:
                    where += f" OR batch_id IN ({','.join('?' * len(batches))})"
                    params += batches
            else:
                where, params = "1", []
            rows = conn.execute(
                "SELECT seq, capture_id, entry_id, importance, payload, bytes, enqueued_at, batch_id, batch_index, "
                f"revision_kref FROM sync_dead WHERE {where}", params).fetchall()
            for r in rows:
                conn.execute(
                    "INSERT INTO sync_outbox (seq, capture_id, entry_id, importance, payload, bytes, enqueued_at, "
                    "batch_id, batch_index, revision_kref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tuple(r))
                conn.execute("DELETE FROM sync_dead WHERE seq = ?", (r[0],))
            revived = {r[7] for r in rows if r[7]}
            for b in revived:
                conn.execute("UPDATE sync_batches SET dead = 0 WHERE batch_id = ?", (b,))
            set_state(conn, "paused", None)
        return len(rows)

    # --- queue ------------------------------------------------------------------------------------

    def pending(self) -> int:
        """Captures in the outbox (not counting dead letters)."""
        with self._store.reading() as conn:
            return int(conn.execute("SELECT count(*) FROM sync_outbox").fetchone()[0])

    def next_due(self) -> float | None:
        """The earliest retry time of any outbox row (None when the outbox is empty)."""
        with self._store.reading() as conn:
            row = conn.execute("SELECT min(next_attempt_at) FROM sync_outbox").fetchone()
        return float(row[0]) if row and row[0] is not None else None
