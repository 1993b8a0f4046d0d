"""Storing entries: fields, dedup, versions, validation, operations."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.config import Settings
from edge_agent.errors import MemoryStoreError
from edge_agent.memory import (
    ContentTooLargeError,
    InvalidEntryError,
    InvalidTimestampError,
    MemoryStore,
)

from .conftest import make_settings


def test_a_stored_entry_has_every_documented_field(store: MemoryStore) -> None:
    e = store.store("bus", "BME280 on i2c1", category="Daily", session_id="s1", importance=0.8,
                    timestamp="2026-01-31T13:00:00+01:00")
    got = store.get("bus")
    assert got is not None and got.id == e.id
    assert got.category == "daily"  # serialized lowercase
    assert got.timestamp == "2026-01-31T12:00:00.000000Z"  # normalized to UTC
    assert (got.session_id, got.namespace, got.importance) == ("s1", "default", 0.8)
    assert got.superseded_by is None and got.kref is None
    assert len(got.content_sha256) == 64 and got.access_count == 0
    assert set(got.to_dict()) >= {"id", "key", "content", "category", "timestamp", "session_id", "namespace",
                                  "importance", "score", "superseded_by", "content_sha256", "access_count",
                                  "last_access"}


def test_the_database_lives_under_the_workspace_memory_folder(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as s:
        assert s.db_path == state / "workspaces" / "default" / "memory" / "memory.db"
        assert s.db_path.is_file()


def test_default_namespace_comes_from_the_config(state: Path) -> None:
    with MemoryStore.open(state, make_settings(default_namespace="bench")) as s:
        assert s.store("k", "v").namespace == "bench"


def test_identical_content_is_not_stored_twice_in_a_namespace(store: MemoryStore) -> None:
    a = store.store("a", "LD2 is on PA5")
    b = store.store("b", "LD2 is on PA5")
    assert b.id == a.id
    assert store.count() == 1
    c = store.store("a", "LD2 is on PA5", namespace="other")
    assert c.id != a.id and store.count() == 2


def test_updating_a_key_keeps_the_old_version_as_superseded(store: MemoryStore) -> None:
    old = store.store("led", "LED on PB0")
    new = store.store("led", "LED on PA5")
    assert store.get("led").id == new.id  # type: ignore[union-attr]
    assert store.get_by_id(old.id).superseded_by == new.id  # type: ignore[union-attr]
    assert store.count() == 1 and store.count(include_superseded=True) == 2
    # Going back to the first content is a new live version, not a duplicate of the superseded one.
    again = store.store("led", "LED on PB0")
    assert again.id not in (old.id, new.id) and store.get("led").content == "LED on PB0"  # type: ignore[union-attr]


def test_content_over_the_limit_is_refused_with_its_size_and_the_limit(store: MemoryStore) -> None:
    limit = store.settings.memory.max_content_bytes
    store.store("keep", "earlier entry")
    with pytest.raises(ContentTooLargeError) as err:
        store.store("big", "x" * (limit + 1))
    assert (err.value.size, err.value.limit, err.value.field) == (limit + 1, limit, "content")
    assert "max_content_bytes" in str(err.value)
    assert store.get("keep") is not None and store.get("big") is None
    assert store.store("edge", "é" * (limit // 2)).key == "edge"  # exactly at the byte limit is fine


@pytest.mark.parametrize("category", ["", "has space", "x" * 65, "naïve", "-lead"])
def test_an_invalid_category_is_refused(store: MemoryStore, category: str) -> None:
    with pytest.raises(InvalidEntryError) as err:
        store.store("k", "v", category=category)
    assert err.value.field == "category"


def test_multi_line_keys_are_folded_to_one_line(store: MemoryStore) -> None:
    assert store.store("first line\n  second\tline", "v").key == "first line second line"


def test_custom_categories_are_accepted_and_lowercased(store: MemoryStore) -> None:
    assert store.store("k", "v", category="Sensor_Log").category == "sensor_log"


@pytest.mark.parametrize("ts", ["yesterday", "2026-13-01T00:00:00Z", "2026-01-31T12:00:00", 1700000000])
def test_an_invalid_or_offsetless_timestamp_is_refused(store: MemoryStore, ts: object) -> None:
    with pytest.raises(InvalidTimestampError) as err:
        store.store("k", "v", timestamp=ts)  # type: ignore[arg-type]
    assert err.value.field == "timestamp"


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"importance": 1.5}, "importance"),
    ({"importance": float("nan")}, "importance"),
    ({"key": ""}, "key"),
    ({"key": "nul\x00byte"}, "key"),
    ({"key": "k" * 513}, "key"),
    ({"content": "   "}, "content"),
    ({"namespace": "../escape"}, "namespace"),
    ({"metadata": {"x": object()}}, "metadata"),
])
def test_bad_fields_are_refused_naming_the_field(store: MemoryStore, kwargs: dict, field: str) -> None:
    args = {"key": "k", "content": "v", **kwargs}
    with pytest.raises(InvalidEntryError) as err:
        store.store(**args)
    assert err.value.field == field
    assert store.count() == 0


def test_sql_metacharacters_are_stored_and_found_verbatim(store: MemoryStore) -> None:
    nasty = "Robert'); DROP TABLE entries;-- \"quoted\" 100% _under_ \\back"
    store.store("k'; DELETE FROM entries; --", nasty)
    got = store.get("k'; DELETE FROM entries; --")
    assert got is not None and got.content == nasty
    assert [e.content for e in store.search.recall("Robert DROP TABLE")] == [nasty]
    assert store.count() == 1


def test_store_with_metadata_round_trips_the_object(store: MemoryStore) -> None:
    e = store.store("cal", "BME280 offset -0.4 C", metadata={"sensor": "bme280", "offset_c": -0.4})
    assert store.get("cal").metadata == {"sensor": "bme280", "offset_c": -0.4}  # type: ignore[union-attr]
    assert e.metadata["sensor"] == "bme280"


def test_list_filters_by_category_namespace_and_session_newest_first(store: MemoryStore) -> None:
    store.store("a", "one", category="daily", session_id="s1", timestamp="2026-01-01T00:00:00Z")
    store.store("b", "two", category="daily", session_id="s2", timestamp="2026-01-02T00:00:00Z")
    store.store("c", "three", category="core", namespace="lab")
    assert [e.key for e in store.list(category="daily")] == ["b", "a"]
    assert [e.key for e in store.list(session_id="s1")] == ["a"]
    assert [e.key for e in store.list(namespace="lab")] == ["c"]
    assert store.count(category="daily") == 2


def test_forget_removes_every_version_of_a_key(store: MemoryStore) -> None:
    store.store("led", "v1")
    store.store("led", "v2")
    store.store("other", "stay")
    assert store.forget("led") == 2
    assert store.get("led") is None and store.count(include_superseded=True) == 1
    assert store.forget("led") == 0


def test_purge_namespace_and_purge_session(store: MemoryStore) -> None:
    store.store("a", "1", namespace="tmp")
    store.store("b", "2", namespace="tmp")
    store.store("c", "3", session_id="s9")
    store.store("d", "4")
    assert store.purge_namespace("tmp") == 2
    assert store.purge_session("s9") == 1
    assert [e.key for e in store.list()] == ["d"]


def test_get_counts_accesses_once_flushed(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as s:
        s.store("k", "value")
        s.get("k")
        s.get("k")
    with MemoryStore.open(state, Settings()) as s:
        got = s.get_by_id(s.get("k").id)  # type: ignore[union-attr]
        assert got is not None and got.access_count == 2 and got.last_access is not None


def test_health_check_reports_wal_and_applied_migrations(store: MemoryStore) -> None:
    report = store.maintenance.health_check()
    assert report["ok"] is True and report["journal_mode"] == "wal"
    assert report["migrations"][0] == "memory/0001_entries.sql"


def test_migrations_are_recorded_by_name_and_not_reapplied(state: Path) -> None:
    with MemoryStore.open(state, Settings()) as s:
        first = s.maintenance.health_check()["migrations"]
    with MemoryStore.open(state, Settings()) as s:
        assert s.maintenance.health_check()["migrations"] == first
        conn = s.new_connection(read_only=True)
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        conn.close()


def test_a_closed_store_refuses_work_with_a_clear_error(state: Path) -> None:
    s = MemoryStore.open(state, Settings())
    s.close()
    s.close()
    with pytest.raises(MemoryStoreError):
        s.store("k", "v")


def test_a_database_from_the_first_schema_is_migrated_and_its_entries_found(state: Path) -> None:
    """0002 rebuilds the full-text index of a database created by 0001 alone."""
    from edge_agent.memory import db as dbmod

    path = state / "workspaces" / "default" / "memory" / "memory.db"
    path.parent.mkdir(parents=True)
    conn = dbmod.connect(path)
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    name, sql = dbmod.migration_files()[0]
    assert name == "memory/0001_entries.sql"
    for stmt in dbmod.split_statements(sql):
        conn.execute(stmt)
    conn.execute("INSERT INTO schema_migrations VALUES (?, '2026-01-01T00:00:00.000000Z')", (name,))
    conn.execute("INSERT INTO entries (id, key, content, timestamp, namespace, content_sha256) VALUES "
                 "('0b6c1d5e-1111-4222-8333-444455556666', 'old', 'calibrated the barometer', "
                 "'2026-01-01T00:00:00.000000Z', 'default', 'x')")
    conn.close()
    with MemoryStore.open(state, Settings()) as s:
        assert "memory/0002_prefix_terms_and_memory_type.sql" in s.maintenance.health_check()["migrations"]
        assert [e.key for e in s.search.recall("barometer calibration", min_score=0)] == ["old"]


def test_store_many_is_all_or_nothing(store: MemoryStore) -> None:
    items = [{"key": f"k{i}", "content": f"v{i}"} for i in range(5)] + [{"key": "bad", "content": ""}]
    with pytest.raises(InvalidEntryError):
        store.store_many(iter(items))
    assert store.count() == 0
    assert store.store_many(iter(items[:5])) == 5
