"""Response cache: skip the model when the same model + system prompt + user prompt was answered recently.

Two tiers: an in-process LRU (``response_cache_hot_entries``) over a WAL SQLite warm tier at
``<workspace>/memory/response_cache.db`` (``response_cache_max_entries``, least recently used evicted
beyond). Entries expire ``response_cache_ttl_minutes`` after they were stored (0 = never). Hit
counters and the tokens hits saved are kept in the warm tier so ``edge-agent cache stats`` sees them.

A response that holds what looks like a credential is not cached: the database file would keep the secret
on disk where the memory store's screening never reaches (``skipped_credentials`` counts them).
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from edge_agent.config import Settings
from edge_agent.credentials import scan
from edge_agent.errors import MemoryStoreError
from edge_agent.jsontypes import JsonObject
from edge_agent.memory import db as dbmod
from edge_agent.memory.model import check_content, estimate_tokens
from edge_agent.paths import private_dir, private_file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS response_cache (
    key         TEXT PRIMARY KEY,
    model       TEXT NOT NULL,
    response    TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    created_at  REAL NOT NULL,
    accessed_at REAL NOT NULL,
    hit_count   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS response_cache_lru ON response_cache(accessed_at);
CREATE TABLE IF NOT EXISTS cache_stats (name TEXT PRIMARY KEY, value INTEGER NOT NULL DEFAULT 0);
"""
_FLUSH_AT = 128


def cache_key(model: str, system_prompt: str, user_prompt: str) -> str:
    """SHA-256 over the three parts, each length-prefixed so no two different triples collide by joining."""
    h = hashlib.sha256()
    for part in (model, system_prompt, user_prompt):
        data = part.encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


@dataclass
class _Hot:
    response: str
    tokens: int
    created_at: float


class ResponseCache:
    """The two-tier response cache of one workspace. Thread-safe."""

    def __init__(self, path: Path, *, hot_entries: int = 256, max_entries: int = 5000, ttl_minutes: int = 60,
                 max_bytes: int = 64 * 1024, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.hot_entries, self.max_entries, self.ttl_s = hot_entries, max_entries, ttl_minutes * 60.0
        self.max_bytes = max_bytes
        self._clock = clock
        self._hot: OrderedDict[str, _Hot] = OrderedDict()
        self._pending: dict[str, tuple[int, float]] = {}
        self._counts: dict[str, int] = {}
        self._lock = threading.RLock()
        private_dir(self.path.parent)
        try:
            self._conn = self._connect()
        except sqlite3.DatabaseError as exc:
            if not dbmod.is_corrupt(exc):
                raise MemoryStoreError(f"{self.path}: cannot open the response cache: {exc}") from exc
            # A cache holds nothing that cannot be recomputed, but keep the evidence all the same.
            dbmod.quarantine(self.path, str(exc))
            self._conn = self._connect()

    def _connect(self) -> sqlite3.Connection:
        private_file(self.path)
        conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                               timeout=dbmod.BUSY_TIMEOUT_MS / 1000)
        conn.execute(f"PRAGMA busy_timeout = {dbmod.BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL").fetchone()
        # NORMAL: a power cut may lose the last cached answers, which only costs a model call.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA journal_size_limit = {dbmod.JOURNAL_SIZE_LIMIT}")
        for stmt in dbmod.split_statements(_SCHEMA):
            conn.execute(stmt)
        return conn

    @classmethod
    def open(cls, memory_dir: Path, settings: Settings) -> ResponseCache:
        """The cache at ``<memory_dir>/response_cache.db`` with the ``[memory] response_cache_*`` settings."""
        m = settings.memory
        return cls(Path(memory_dir) / "response_cache.db", hot_entries=m.response_cache_hot_entries,
                   max_entries=m.response_cache_max_entries, ttl_minutes=m.response_cache_ttl_minutes,
                   max_bytes=m.max_content_bytes)

    @contextlib.contextmanager
    def _tx(self, operation: str) -> Iterator[sqlite3.Connection]:
        with self._lock, dbmod.write_transaction(self._conn, self.path, operation) as conn:
            self._flush(conn)
            yield conn

    def _expired(self, created_at: float, now: float) -> bool:
        return self.ttl_s > 0 and now - created_at > self.ttl_s

    def _count(self, name: str, by: int = 1) -> None:
        self._counts[name] = self._counts.get(name, 0) + by

    def _flush(self, conn: sqlite3.Connection) -> None:
        if self._pending:
            pending, self._pending = self._pending, {}
            conn.executemany(
                "UPDATE response_cache SET hit_count = hit_count + ?, accessed_at = max(accessed_at, ?) WHERE key = ?",
                [(n, at, k) for k, (n, at) in pending.items()],
            )
        if self._counts:
            counts, self._counts = self._counts, {}
            conn.executemany(
                "INSERT INTO cache_stats (name, value) VALUES (?, ?) "
                "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
                list(counts.items()),
            )

    def _promote(self, key: str, item: _Hot) -> None:
        if self.hot_entries <= 0:
            return
        self._hot[key] = item
        self._hot.move_to_end(key)
        while len(self._hot) > self.hot_entries:
            self._hot.popitem(last=False)

    def get(self, model: str, system_prompt: str, user_prompt: str) -> str | None:
        """The cached response, or None (miss or expired)."""
        key = cache_key(model, system_prompt, user_prompt)
        now = self._clock()
        with self._lock:
            hot = self._hot.get(key)
            if hot is not None and self._expired(hot.created_at, now):
                del self._hot[key]
                hot = None
            if hot is not None:
                self._hot.move_to_end(key)
                self._hit(key, hot.tokens, now, "hot_hits")
                return hot.response
            row = self._conn.execute(
                "SELECT response, token_count, created_at FROM response_cache WHERE key = ?", (key,)
            ).fetchone()
            if row is None or self._expired(row[2], now):
                self._count("misses")
                if row is not None:
                    with self._tx("expiring a cached response") as conn:
                        conn.execute("DELETE FROM response_cache WHERE key = ?", (key,))
                        self._count("expired")
                return None
            item = _Hot(row[0], int(row[1]), float(row[2]))
            self._promote(key, item)
            self._hit(key, item.tokens, now, "warm_hits")
            return item.response

    def _hit(self, key: str, tokens: int, now: float, tier: str) -> None:
        n, _ = self._pending.get(key, (0, now))
        self._pending[key] = (n + 1, now)
        self._count("hits")
        self._count(tier)
        self._count("tokens_saved", tokens)
        if len(self._pending) >= _FLUSH_AT:
            with contextlib.suppress(MemoryStoreError), self._tx("recording cache hits"):
                pass

    def put(self, model: str, system_prompt: str, user_prompt: str, response: str, *,
            tokens: int | None = None) -> str:
        """Cache a response (``tokens``: what generating it cost; estimated from its length if absent)."""
        check_content(response, self.max_bytes, field="response")
        key = cache_key(model, system_prompt, user_prompt)
        if scan(response, "response"):
            with self._lock:
                self._count("skipped_credentials")
            return key
        now = self._clock()
        count = int(tokens) if tokens is not None else estimate_tokens(response)
        with self._tx("caching a response") as conn:
            conn.execute(
                "INSERT INTO response_cache (key, model, response, token_count, created_at, accessed_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET response = excluded.response, "
                "token_count = excluded.token_count, created_at = excluded.created_at, "
                "accessed_at = excluded.accessed_at",
                (key, model, response, count, now, now),
            )
            if self.max_entries > 0:
                (n,) = conn.execute("SELECT count(*) FROM response_cache").fetchone()
                if n > self.max_entries:
                    cur = conn.execute(
                        "DELETE FROM response_cache WHERE key IN (SELECT key FROM response_cache "
                        "ORDER BY accessed_at LIMIT ?)", (n - self.max_entries,))
                    self._counts["evictions"] = self._counts.get("evictions", 0) + cur.rowcount
                    self._flush(conn)
        self._promote(key, _Hot(response, count, now))
        return key

    def prune(self) -> int:
        """Delete expired entries; returns how many."""
        if self.ttl_s <= 0:
            return 0
        cutoff = self._clock() - self.ttl_s
        with self._tx("pruning the response cache") as conn:
            cur = conn.execute("DELETE FROM response_cache WHERE created_at < ?", (cutoff,))
            n = cur.rowcount
            self._counts["expired"] = self._counts.get("expired", 0) + n
            self._flush(conn)
            for key in [k for k, v in self._hot.items() if v.created_at < cutoff]:
                del self._hot[key]
        return n

    def clear(self) -> int:
        """Drop every cached response (statistics are kept); returns how many."""
        with self._tx("clearing the response cache") as conn:
            n = conn.execute("DELETE FROM response_cache").rowcount
            self._hot.clear()
        return n

    def stats(self) -> JsonObject:
        """Entries, hits, misses, hit rate, tokens saved (flushes pending counters first)."""
        with self._tx("recording cache statistics") as conn:
            counters = dict(conn.execute("SELECT name, value FROM cache_stats").fetchall())
            (entries,) = conn.execute("SELECT count(*) FROM response_cache").fetchone()
        hits, misses = counters.get("hits", 0), counters.get("misses", 0)
        return {
            "path": str(self.path),
            "entries": entries,
            "hot_entries": len(self._hot),
            "max_entries": self.max_entries,
            "ttl_minutes": self.ttl_s / 60,
            "hits": hits,
            "hot_hits": counters.get("hot_hits", 0),
            "warm_hits": counters.get("warm_hits", 0),
            "misses": misses,
            "hit_rate": round(hits / (hits + misses), 4) if hits + misses else 0.0,
            "tokens_saved": counters.get("tokens_saved", 0),
            "evictions": counters.get("evictions", 0),
            "expired": counters.get("expired", 0),
            "skipped_credentials": counters.get("skipped_credentials", 0),
        }

    def close(self) -> None:
        """Flush counters and close. Idempotent."""
        with self._lock:
            if self._conn is None:
                return
            with contextlib.suppress(MemoryStoreError, sqlite3.Error), self._tx("closing the response cache"):
                pass
            self._conn.close()
            self._conn = None  # type: ignore[assignment]

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
