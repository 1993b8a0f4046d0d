"""Policy caps, read-only namespaces, hygiene (archive, purge, retention), audit, snapshots, auto_save."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from edge_agent.memory import MemoryStore, ReadOnlyNamespaceError, should_auto_save

from .conftest import make_settings

NOW = datetime.now(UTC)


def ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def test_namespace_cap_evicts_least_important_then_oldest_and_counts_it(state: Path) -> None:
    with MemoryStore.open(state, make_settings(policy={"max_entries_per_namespace": 3})) as s:
        s.store("old_low", "a", importance=0.1, timestamp=ago(5))
        s.store("new_low", "b", importance=0.1, timestamp=ago(1))
        s.store("high", "c", importance=0.9, timestamp=ago(9))
        s.store("newest", "d", importance=0.5)
        assert sorted(e.key for e in s.list()) == ["high", "new_low", "newest"]
        s.store("other_ns", "e", namespace="elsewhere")  # a different namespace has its own cap
        stats = s.maintenance.stats()
        assert stats["evicted"] == 1 and stats["evicted_by"] == {"namespace.default": 1}


def test_category_cap_evicts_within_the_category_only(state: Path) -> None:
    with MemoryStore.open(state, make_settings(policy={"max_entries_per_category": 2})) as s:
        for i in range(4):
            s.store(f"d{i}", f"daily {i}", category="daily", timestamp=ago(10 - i))
        s.store("c0", "core zero", category="core")
        assert sorted(e.key for e in s.list(category="daily")) == ["d2", "d3"]
        assert s.count(category="core") == 1
        assert s.maintenance.stats()["evicted_by"] == {"category.daily": 2}


def test_superseded_versions_are_evicted_before_live_entries(state: Path) -> None:
    with MemoryStore.open(state, make_settings(policy={"max_entries_per_namespace": 2})) as s:
        s.store("k", "v1", importance=1.0)
        s.store("k", "v2", importance=1.0)
        s.store("j", "w", importance=0.0)
        assert sorted(e.content for e in s.list(include_superseded=True)) == ["v2", "w"]


def test_zero_caps_mean_unlimited(store: MemoryStore) -> None:
    for i in range(50):
        store.store(f"k{i}", f"v{i}")
    assert store.count() == 50 and store.maintenance.stats()["evicted"] == 0


def test_writes_to_read_only_namespaces_are_refused_and_nothing_changes(state: Path) -> None:
    with MemoryStore.open(state, make_settings()) as s:
        s.store("datasheet_fact", "BME280 max 3.6 V", namespace="reference")
    settings = make_settings(policy={"read_only_namespaces": ["reference"]})
    with MemoryStore.open(state, settings) as s:
        with pytest.raises(ReadOnlyNamespaceError) as err:
            s.store("new", "nope", namespace="reference")
        assert err.value.namespace == "reference"
        with pytest.raises(ReadOnlyNamespaceError):
            s.forget("datasheet_fact", namespace="reference")
        with pytest.raises(ReadOnlyNamespaceError):
            s.purge_namespace("reference")
        with pytest.raises(ReadOnlyNamespaceError):
            s.captures.reflect("s", "", captures=[{"type": "fact", "title": "t", "content": "c",
                                                   "namespace": "reference"}])
        assert [e.key for e in s.list(namespace="reference")] == ["datasheet_fact"]
        assert s.search.recall_namespaced("reference", "BME280 max", min_score=0)  # still readable


def test_hygiene_archives_daily_purges_old_archives_and_applies_retention(state: Path) -> None:
    settings = make_settings(archive_after_days=7, purge_after_days=30, conversation_retention_days=3,
                             policy={"retention_days_by_category": {"sensor": 2}})
    with MemoryStore.open(state, settings) as s:
        s.store("fresh_daily", "today", category="daily", timestamp=ago(1))
        s.store("week_daily", "last week", category="daily", timestamp=ago(8))
        s.store("ancient_daily", "long ago", category="daily", timestamp=ago(40))
        s.store("old_core", "core stays", category="core", timestamp=ago(400))
        s.store("chat_new", "hello", category="conversation", timestamp=ago(1))
        s.store("chat_old", "hi", category="conversation", timestamp=ago(4))
        s.store("sensor_old", "22.1 C", category="sensor", timestamp=ago(3))
        s.store("sensor_new", "22.3 C", category="sensor", timestamp=ago(1))
        s.store("ver", "v1", timestamp=ago(60))
        s.store("ver", "v2")
        report = s.maintenance.hygiene()
        assert report["ran"] is True
        assert report["archived"] == 2  # week_daily and ancient_daily (archived, then the ancient one purged)
        assert report["purged_archived"] == 1 and report["purged_superseded"] == 1
        assert report["purged_retention"] == {"conversation": 1, "sensor": 1}
        keys = {e.key: e for e in s.list(include_superseded=True)}
        assert sorted(keys) == ["chat_new", "fresh_daily", "old_core", "sensor_new", "ver", "week_daily"]
        assert keys["week_daily"].archived and not keys["fresh_daily"].archived
        assert s.maintenance.stats()["hygiene_runs"] == 1


def test_hygiene_does_nothing_when_disabled_unless_forced(state: Path) -> None:
    with MemoryStore.open(state, make_settings(hygiene_enabled=False)) as s:
        s.store("d", "x", category="daily", timestamp=ago(10))
        assert s.maintenance.hygiene()["ran"] is False and not s.list()[0].archived
        assert s.maintenance.hygiene(force=True)["archived"] == 1


def test_hygiene_leaves_read_only_namespaces_alone(state: Path) -> None:
    with MemoryStore.open(state, make_settings()) as s:
        s.store("d", "x", category="daily", namespace="ro", timestamp=ago(100))
    with MemoryStore.open(state, make_settings(policy={"read_only_namespaces": ["ro"]})) as s:
        s.maintenance.hygiene()
        assert s.count(namespace="ro") == 1


def test_audit_trail_records_writes_and_deletes_when_enabled(state: Path) -> None:
    with MemoryStore.open(state, make_settings(audit_enabled=True)) as s:
        e = s.store("k", "v1")
        s.store("k", "v2")
        s.forget("k")
        ops = [(a["operation"], a["key"]) for a in reversed(s.maintenance.audit_log())]
        assert ops == [("store", "k"), ("supersede", "k"), ("store", "k"), ("forget", "k"), ("forget", "k")]
        assert s.maintenance.audit_log()[-1]["entry_id"] == e.id


def test_audit_is_off_by_default_and_old_rows_expire(state: Path) -> None:
    with MemoryStore.open(state, make_settings()) as s:
        s.store("k", "v")
        assert s.maintenance.audit_log() == []
    with MemoryStore.open(state, make_settings(audit_enabled=True, audit_retention_days=1)) as s:
        s.store("j", "w")
        assert s.maintenance.hygiene(now=NOW + timedelta(days=2))["audit_purged"] == 1
        assert s.maintenance.audit_log() == []


def test_snapshot_on_hygiene_writes_a_restorable_export(state: Path) -> None:
    settings = make_settings(snapshot_enabled=True, snapshot_on_hygiene=True)
    with MemoryStore.open(state, settings) as s:
        s.store("a", "alpha")
        s.store("b", "beta", category="daily")
        report = s.maintenance.hygiene()
        snap = Path(report["snapshot"])
        assert snap.parent == s.db_path.parent / "snapshots"
        lines = [json.loads(x) for x in snap.read_text().splitlines()]
        assert [x["key"] for x in lines] == ["a", "b"]
    with MemoryStore.open(state, settings, workspace="restore") as s:
        assert s.transfer.import_jsonl(snap.read_text().splitlines()) == {"imported": 2, "skipped": 0}


def test_snapshots_are_bounded(store: MemoryStore) -> None:
    store.store("a", "alpha")
    for i in range(8):
        store.maintenance.snapshot(now=NOW + timedelta(seconds=i))
    assert len(list((store.db_path.parent / "snapshots").glob("*.jsonl"))) == 5


@pytest.mark.parametrize(("key", "content", "expected"), [
    ("user_msg", "turn on the red LED", True),
    ("user_msg", "", False),
    ("user_msg", "   ", False),
    ("user_msg", "[cron:hourly] check sensors", False),
    ("user_msg", "[Heartbeat Task 12] ping", False),
    ("user_msg", "[distilled_summary] ...", False),
    ("user_msg", "notes distilled_index_sig: abc123", False),
    ("assistant_resp", "sure", False),
    ("assistant_resp_42", "sure", False),
    ("assistant_response_log", "kept: only the exact prefix assistant_resp_ is filtered", True),
])
def test_auto_save_filter(key: str, content: str, expected: bool) -> None:
    assert should_auto_save(key, content) is expected


def test_auto_save_stores_user_inputs_as_conversation_only_when_enabled(state: Path) -> None:
    with MemoryStore.open(state, make_settings()) as s:
        e = s.auto_save("user_1", "blink LD2 twice", session_id="s1")
        assert e is not None and e.category == "conversation" and e.session_id == "s1"
        assert s.auto_save("assistant_resp", "done") is None
    with MemoryStore.open(state, make_settings(auto_save=False)) as s:
        assert s.auto_save("user_2", "another input") is None


def test_retention_days_must_not_be_negative_and_categories_are_lowercased() -> None:
    from edge_agent.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        make_settings(policy={"retention_days_by_category": {"sensor": -1}})
    assert "retention_days_by_category" in str(err.value)
    assert make_settings(policy={"retention_days_by_category": {"Sensor": 3}}).memory.policy \
        .retention_days_by_category == {"sensor": 3}


@pytest.mark.parametrize("backend", ["sqlite", "markdown", "lucid"])
def test_a_backend_other_than_kumiho_or_none_is_rejected_saying_why(backend: str) -> None:
    from edge_agent.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        make_settings(backend=backend)
    assert "memory.backend" in str(err.value) and backend in str(err.value)


def test_snapshots_without_snapshot_on_hygiene_are_daily(state: Path) -> None:
    with MemoryStore.open(state, make_settings(snapshot_enabled=True)) as s:
        s.store("a", "alpha")
        assert s.maintenance.hygiene(now=NOW)["snapshot"] is not None
        assert s.maintenance.hygiene(now=NOW + timedelta(hours=5))["snapshot"] is None
        assert s.maintenance.hygiene(now=NOW + timedelta(hours=25))["snapshot"] is not None
    with MemoryStore.open(state, make_settings(snapshot_on_hygiene=True)) as s:  # not enabled: never
        assert s.maintenance.hygiene()["snapshot"] is None
