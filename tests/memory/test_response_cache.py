"""The two-tier response cache: keys, TTL, LRU, promotion, statistics."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.memory import InvalidEntryError, MemoryStore
from edge_agent.memory.response_cache import ResponseCache, cache_key

from .conftest import make_settings


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def test_the_key_covers_model_system_and_user_prompt_without_join_ambiguity() -> None:
    k = cache_key("m", "sys", "user")
    assert len(k) == 64
    assert k != cache_key("m2", "sys", "user") != cache_key("m", "sys2", "user") != cache_key("m", "sys", "u")
    assert cache_key("ab", "c", "") != cache_key("a", "bc", "")


def test_a_hit_returns_the_response_and_counts_tokens_saved(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "rc.db") as c:
        assert c.get("m", "s", "what pin is LD2?") is None
        c.put("m", "s", "what pin is LD2?", "PA5", tokens=40)
        assert c.get("m", "s", "what pin is LD2?") == "PA5"
        stats = c.stats()
    assert (stats["entries"], stats["hits"], stats["misses"], stats["tokens_saved"]) == (1, 1, 1, 40)
    assert stats["hit_rate"] == 0.5


def test_warm_hits_promote_to_the_hot_tier_and_update_hit_count(tmp_path: Path) -> None:
    path = tmp_path / "rc.db"
    with ResponseCache(path) as c:
        c.put("m", "s", "u", "answer")
    with ResponseCache(path) as c:  # a new process: empty hot tier
        assert c.get("m", "s", "u") == "answer"
        assert c.get("m", "s", "u") == "answer"
        stats = c.stats()
        assert (stats["warm_hits"], stats["hot_hits"], stats["hot_entries"]) == (1, 1, 1)
        row = c._conn.execute("SELECT hit_count, accessed_at > created_at FROM response_cache").fetchone()
    assert row == (2, 1)


def test_entries_expire_after_the_ttl_in_both_tiers(tmp_path: Path) -> None:
    clock = Clock()
    with ResponseCache(tmp_path / "rc.db", ttl_minutes=60, clock=clock) as c:
        c.put("m", "s", "u", "old answer")
        clock.t += 59 * 60
        assert c.get("m", "s", "u") == "old answer"
        clock.t += 2 * 60
        assert c.get("m", "s", "u") is None
        assert c.stats()["entries"] == 0 and c.stats()["expired"] == 1


def test_prune_drops_expired_entries(tmp_path: Path) -> None:
    clock = Clock()
    with ResponseCache(tmp_path / "rc.db", ttl_minutes=1, clock=clock) as c:
        for i in range(5):
            c.put("m", "s", f"u{i}", "r")
        clock.t += 120
        c.put("m", "s", "fresh", "r")
        assert c.prune() == 5 and c.stats()["entries"] == 1


def test_the_warm_tier_evicts_least_recently_used_beyond_max_entries(tmp_path: Path) -> None:
    clock = Clock()
    with ResponseCache(tmp_path / "rc.db", max_entries=3, hot_entries=0, clock=clock) as c:
        for i in range(3):
            clock.t += 1
            c.put("m", "s", f"u{i}", f"r{i}")
        clock.t += 1
        assert c.get("m", "s", "u0") == "r0"  # u0 is now the most recently used
        clock.t += 1
        c.stats()  # flush pending hit updates (accessed_at)
        c.put("m", "s", "u3", "r3")
        assert c.get("m", "s", "u1") is None
        assert c.get("m", "s", "u0") == "r0" and c.get("m", "s", "u3") == "r3"
        assert c.stats()["evictions"] == 1


def test_the_hot_tier_is_bounded(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "rc.db", hot_entries=2) as c:
        for i in range(5):
            c.put("m", "s", f"u{i}", "r")
        assert len(c._hot) == 2


def test_an_oversized_response_is_refused(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "rc.db", max_bytes=1024) as c, pytest.raises(InvalidEntryError):
        c.put("m", "s", "u", "x" * 2000)


def test_the_store_offers_the_cache_only_when_enabled(state: Path) -> None:
    with MemoryStore.open(state, make_settings(response_cache_enabled=False)) as s:
        assert s.response_cache is None
    with MemoryStore.open(state, make_settings(response_cache_enabled=True)) as s:
        cache = s.response_cache
        assert cache is not None and cache.path == s.db_path.parent / "response_cache.db"
        cache.put("m", "s", "u", "r")
        assert cache.prune() == 0


def test_a_response_holding_a_credential_is_not_written_to_the_cache_file(tmp_path: Path) -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    with ResponseCache(tmp_path / "rc.db") as c:
        c.put("m", "s", "what is the key?", f"the aws secret access key is {secret}")
        c.put("m", "s", "what pin is LD2?", "PA5")
        assert c.get("m", "s", "what is the key?") is None
        assert c.get("m", "s", "what pin is LD2?") == "PA5"
        stats = c.stats()
    assert (stats["entries"], stats["skipped_credentials"]) == (1, 1)
    on_disk = b"".join(p.read_bytes() for p in tmp_path.glob("rc.db*"))
    assert secret.encode() not in on_disk
