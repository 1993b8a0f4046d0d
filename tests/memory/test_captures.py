"""reflect / record_capture: one transaction with the capture sink, provenance, capture types."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from edge_agent.config import Settings
from edge_agent.memory import Capture, CaptureSink, InvalidEntryError, MemoryStore


class TableSink:
    """A CaptureSink writing to its own table in the store's database (like the sync outbox does)."""

    def __init__(self, *, fail_enqueue: bool = False, redact: str | None = None) -> None:
        self.prepared: list[Capture] = []
        self.fail_enqueue = fail_enqueue
        self.redact = redact

    def prepare(self, capture: Capture) -> Capture:
        self.prepared.append(capture)
        if self.redact and self.redact in capture.content:
            return replace(capture, content=capture.content.replace(self.redact, "[REDACTED]"))
        return capture

    def enqueue(self, conn: sqlite3.Connection, capture: Capture) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS test_outbox (capture_id TEXT PRIMARY KEY, entry_id TEXT)")
        conn.execute("INSERT INTO test_outbox VALUES (?, ?)", (capture.id, capture.entry_id))
        if self.fail_enqueue:
            raise RuntimeError("outbox full")


def outbox_rows(store: MemoryStore) -> list[tuple[str, str]]:
    conn = store.new_connection(read_only=True)
    try:
        return [tuple(r) for r in conn.execute("SELECT capture_id, entry_id FROM test_outbox")]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def test_the_test_sink_satisfies_the_capture_sink_protocol() -> None:
    assert isinstance(TableSink(), CaptureSink)


def test_reflect_stores_captures_recallable_at_once_and_queues_each_in_the_outbox(state: Path) -> None:
    sink = TableSink()
    with MemoryStore.open(state, Settings(), capture_sink=sink) as store:
        result = store.captures.reflect("s1", "I will use bus i2c1.", captures=[
            {"type": "decision", "title": "BME280 bus", "content": "Use i2c1 for the BME280 humidity sensor"},
            {"type": "fact", "title": "LED pin", "content": "LD2 is wired to PA5"},
        ])
        assert result["stored"] == 2
        hits = store.search.recall("humidity sensor bus")
        assert hits and hits[0].id == result["captures"][0]["entry_id"]
        rows = outbox_rows(store)
        assert sorted(rows) == sorted((c["capture_id"], c["entry_id"]) for c in result["captures"])
        assert store.captures.working_memory("s1") == "I will use bus i2c1."


def test_a_failing_enqueue_rolls_back_the_entry_too(state: Path) -> None:
    with MemoryStore.open(state, Settings(), capture_sink=TableSink(fail_enqueue=True)) as store:
        with pytest.raises(RuntimeError):
            store.captures.record_capture(Capture(type="sensor_anomaly", title="t", content="humidity jumped to 97 %"))
        assert store.count() == 0
        assert outbox_rows(store) == []


def test_the_stored_entry_holds_the_content_the_sink_prepared(state: Path) -> None:
    sink = TableSink(redact="hunter2")
    with MemoryStore.open(state, Settings(), capture_sink=sink) as store:
        cap = store.captures.record_capture(Capture(type="fact", title="wifi", content="the wifi password is hunter2"))
        entry = store.get_by_id(cap.entry_id)
        assert entry is not None and "hunter2" not in entry.content
        assert cap.content == entry.content


def test_without_a_sink_captures_are_stored_and_nothing_is_queued(store: MemoryStore) -> None:
    cap = Capture(type="command_execution", title="gpio write", content="gpio_write PA5 1 on sim://nucleo-f401re")
    out = store.captures.record_capture(cap)
    assert out.id == cap.id and out.entry_id == cap.entry_id
    assert store.get_by_id(cap.entry_id) is not None
    assert outbox_rows(store) == []


def test_event_captures_go_to_the_daily_category_and_knowledge_captures_to_core(store: MemoryStore) -> None:
    event = store.captures.record_capture(Capture(type="sensor_anomaly", title="spike",
                                                  content="temperature spike 80 C"))
    fact = store.captures.record_capture(Capture(type="fact", title="addr", content="BME280 at 0x76"))
    assert store.get_by_id(event.entry_id).category == "daily"  # type: ignore[union-attr]
    assert store.get_by_id(fact.entry_id).category == "core"  # type: ignore[union-attr]


def test_reflect_rejects_an_unknown_capture_type_and_stores_nothing(store: MemoryStore) -> None:
    with pytest.raises(InvalidEntryError) as err:
        store.captures.reflect("s", "", captures=[
            {"type": "fact", "title": "ok", "content": "fine"},
            {"type": "gossip", "title": "no", "content": "not a type"},
        ])
    assert err.value.field == "type"
    assert store.count() == 0


def test_reflect_records_provenance_from_the_source_refs_engage_returned(store: MemoryStore) -> None:
    src = store.store("bme_addr", "The BME280 sits at I2C address 0x76", category="core")
    ctx = store.search.engage("BME280 address")
    assert ctx["source_refs"] == [f"mem://{src.id}"]
    out = store.captures.reflect("s", "", captures=[{"type": "synthesis", "title": "sensor plan",
                                                     "content": "Poll the BME280 at 0x76 every second"}],
                                 source_refs=ctx["source_refs"])
    new_id = out["captures"][0]["entry_id"]
    prov = store.captures.provenance(new_id)
    assert prov["derived_from"] == [{"ref": f"mem://{src.id}", "entry_id": src.id, "key": "bme_addr", "kref": None}]
    assert store.captures.provenance(src.id)["derived"] == [new_id]
    assert store.captures.capture_for(new_id).source_refs == (f"mem://{src.id}",)  # type: ignore[union-attr]


def test_engage_cites_the_kref_once_sync_has_set_it(store: MemoryStore) -> None:
    src = store.store("bme_addr", "The BME280 sits at I2C address 0x76")
    kref = "kref://CognitiveMemory/Devices/pi/bme-addr-1a2b3c4d.conversation?r=1"
    with store.unit_of_work("recording krefs") as uow:  # as sync records them, with its outbox rows
        assert uow.record_krefs([(src.id, kref), ("00000000-0000-4000-8000-000000000000", kref)]) == 1
    assert store.kref_of(src.id) == kref
    assert store.search.engage("BME280 address")["source_refs"] == [kref]


def test_reflect_rejects_a_source_ref_that_is_neither_kref_nor_mem(store: MemoryStore) -> None:
    with pytest.raises(InvalidEntryError) as err:
        store.captures.reflect("s", "", captures=[{"type": "fact", "title": "x", "content": "y"}],
                               source_refs=["'; DROP TABLE entries; --"])
    assert err.value.field == "source_refs"


def test_a_capture_that_revises_an_entry_supersedes_it(store: MemoryStore) -> None:
    old = store.store("led", "The user LED is on PB0")
    store.captures.reflect("s", "", captures=[{"type": "correction", "title": "LED pin",
                                               "content": "The user LED LD2 is on PA5", "revises": f"mem://{old.id}"}])
    assert [e.content for e in store.search.recall("user LED")] == ["The user LED LD2 is on PA5"]


def test_the_same_capture_content_twice_is_acknowledged_once_and_queued_once(state: Path) -> None:
    sink = TableSink()
    with MemoryStore.open(state, Settings(), capture_sink=sink) as store:
        first = store.captures.record_capture(Capture(type="fact", title="a", content="PA5 drives LD2"))
        second = store.captures.record_capture(Capture(type="fact", title="a", content="PA5 drives LD2"))
        assert second.id == first.id
        assert len(outbox_rows(store)) == 1


def test_capture_round_trips_through_dict() -> None:
    cap = Capture(type="fact", title="t", content="c", tags=("a",), source_refs=("kref://P/S/i.conversation?r=1",),
                  metadata={"k": "v"})
    assert Capture.from_dict(cap.to_dict()) == cap


def test_recall_filtered_by_a_memory_type_finds_captures_of_that_type(store: MemoryStore) -> None:
    store.captures.reflect("s", "", captures=[
        {"type": "decision", "title": "bus choice", "content": "Use SPI for the display, I2C for sensors"},
        {"type": "fact", "title": "display", "content": "The display is an SSD1306 on SPI"},
    ])
    found = store.search.recall("display SPI", categories=["decision"], min_score=0)
    assert [e.memory_type for e in found] == ["decision"] and found[0].category == "core"
