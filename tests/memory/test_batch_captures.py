"""record_captures and batched reflect: one commit per batch, the same outcome as one capture at a time."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from edge_agent.config import Settings
from edge_agent.memory import Capture, InvalidEntryError, MemoryStore, ReadOnlyNamespaceError
from edge_agent.memory.captures import new_id

from .conftest import make_settings


class CountingSink:
    """A CaptureSink with its own table; refuses the capture whose title is ``refuse`` (inside the transaction)."""

    def __init__(self, refuse: str | None = None) -> None:
        self.refuse = refuse

    def prepare(self, capture: Capture) -> Capture:
        return capture

    def enqueue(self, conn: sqlite3.Connection, capture: Capture) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS test_outbox (capture_id TEXT PRIMARY KEY, entry_id TEXT)")
        conn.execute("INSERT INTO test_outbox VALUES (?, ?)", (capture.id, capture.entry_id))
        if capture.title == self.refuse:
            raise RuntimeError("outbox full")


def fact(i: int, **kw: object) -> Capture:
    values: dict = {"type": "fact", "title": f"reading {i}", "content": f"BME280 humidity reading number {i} on i2c1"}
    values.update(kw)
    return Capture(**values)


def filler(n: int = 8) -> list[Capture]:
    """Distinct captures that make a batch big enough for the batched write path (8 or more)."""
    return [Capture(type="fact", title=f"filler {i}", content=f"unrelated filler capture {i}") for i in range(n)]


def table(store: MemoryStore, sql: str) -> list[tuple]:
    conn = store.new_connection(read_only=True)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def test_record_captures_stores_a_batch_and_returns_each_capture_in_order(state: Path) -> None:
    with MemoryStore.open(state, Settings(), capture_sink=CountingSink()) as store:
        caps = [fact(i) for i in range(300)]  # more than the largest multi-row insert (256)
        out = store.captures.record_captures(caps)
        assert [c.id for c in out] == [c.id for c in caps]
        assert store.count() == 300
        assert len(table(store, "SELECT * FROM test_outbox")) == 300
        assert len(table(store, "SELECT * FROM captures")) == 300
        hits = store.search.recall("humidity reading number 123", limit=1)
        assert hits[0].id == caps[123].entry_id
        assert hits[0].memory_type == "fact"
        # the external-content full-text index agrees with the table row for row
        assert table(store, "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'humidity'") == [(300,)]
        store._conn.execute("INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')")


def test_a_batch_with_one_invalid_capture_stores_nothing(state: Path) -> None:
    with MemoryStore.open(state, Settings(), capture_sink=CountingSink()) as store:
        with pytest.raises(InvalidEntryError) as err:
            store.captures.record_captures([fact(1), fact(2, content="   "), fact(3), *filler()])
        assert err.value.field == "content"
        assert store.count() == 0 and table(store, "SELECT * FROM test_outbox") == []


def test_a_sink_refusal_in_the_middle_rolls_the_whole_batch_back(state: Path) -> None:
    with MemoryStore.open(state, Settings(), capture_sink=CountingSink(refuse="reading 2")) as store:
        store.captures.record_capture(fact(100))
        with pytest.raises(RuntimeError):
            store.captures.record_captures([fact(1), fact(2), fact(3), *filler()])
        assert [e.content for e in store.list()] == [fact(100).content]
        assert len(table(store, "SELECT * FROM test_outbox")) == 1
        assert len(table(store, "SELECT * FROM captures")) == 1


def test_a_read_only_namespace_refuses_the_whole_batch(state: Path) -> None:
    settings = make_settings(policy={"read_only_namespaces": ["reference"]})
    with MemoryStore.open(state, settings) as store:
        with pytest.raises(ReadOnlyNamespaceError):
            store.captures.record_captures([fact(1), *filler(), fact(2, metadata={"namespace": "reference"})])
        assert store.count() == 0


def test_record_captures_takes_only_capture_objects(store: MemoryStore) -> None:
    with pytest.raises(InvalidEntryError):
        store.captures.record_captures([{"type": "fact", "title": "x", "content": "y"}])  # type: ignore[list-item]
    assert store.captures.record_captures([]) == []


def test_identical_content_in_a_batch_is_stored_once_and_acknowledged_as_the_first_capture(state: Path) -> None:
    with MemoryStore.open(state, Settings(), capture_sink=CountingSink()) as store:
        a, b = fact(1), fact(1, title="same content again")
        out = store.captures.record_captures([a, b, fact(2), *filler()])
        assert out[0].id == a.id and out[1].id == a.id
        assert store.count() == 2 + 8
        assert len(table(store, "SELECT * FROM test_outbox")) == 2 + 8


def test_a_batch_acknowledges_content_already_captured_and_attaches_to_content_already_stored(
        state: Path) -> None:
    with MemoryStore.open(state, Settings(), capture_sink=CountingSink()) as store:
        earlier = store.captures.record_capture(fact(1))
        plain = store.store("note", "BME280 humidity reading number 2 on i2c1")
        out = store.captures.record_captures([fact(1), fact(2), fact(2, title="twice"), *filler()])
        assert out[0].id == earlier.id
        assert out[1].entry_id == plain.id and out[2].id == out[1].id
        assert store.get_by_id(plain.id).memory_type == "fact"
        assert store.count() == 2 + 8
        assert len(table(store, "SELECT * FROM test_outbox")) == 2 + 8


def _outcome(store: MemoryStore, caps: list[Capture]) -> dict:
    """What the store holds after the captures, with per-run random parts (ids) replaced by positions."""
    index = {c.entry_id: f"e{i}" for i, c in enumerate(caps)}
    index.update({c.id: f"c{i}" for i, c in enumerate(caps)})
    entries = sorted((e.content, e.category, e.memory_type, e.superseded_by is None, e.title)
                     for e in store.list(limit=1000, include_superseded=True))
    prov = sorted((index.get(r[0], r[0]), r[1], index.get(r[2], r[2]))
                  for r in table(store, "SELECT entry_id, source_ref, source_entry_id FROM provenance"))
    captures = sorted((index.get(r[0], r[0]), index.get(r[1], r[1]))
                      for r in table(store, "SELECT id, entry_id FROM captures"))
    return {"entries": entries, "provenance": [(a, b.replace(b[6:], index.get(b[6:], b[6:])), c)
                                               for a, b, c in prov], "captures": captures}


@pytest.mark.parametrize("twist", ["none", "revise", "key_clash"])
def test_a_batch_ends_exactly_as_the_same_captures_recorded_one_by_one(tmp_path: Path, twist: str) -> None:
    """Duplicates and references to earlier and later captures of the batch; plus a revise or a key clash."""
    pre = Capture(type="fact", title="calibration", content="offset 0.3 hPa on the BME280")
    caps = [*(fact(i) for i in range(6)), *filler(4)]  # 10: enough for the batched write path
    caps[2] = fact(0, title="duplicate of 0")
    caps[3] = replace(caps[3], source_refs=(f"mem://{caps[1].entry_id}", f"mem://{caps[5].entry_id}"))
    caps[4] = replace(caps[4], source_refs=(f"mem://{pre.entry_id}",))
    if twist == "revise":
        caps[5] = replace(caps[5], metadata={"revises": f"mem://{pre.entry_id}"})
    if twist == "key_clash":  # same title and id tail: same key, so capture 1 supersedes capture 0
        caps[1] = replace(caps[1], title=caps[0].title, id=new_id()[:-8] + caps[0].id[-8:])
    outcomes = []
    for name, batched in (("one", False), ("batch", True)):
        with MemoryStore.open(tmp_path / name, Settings(), capture_sink=CountingSink()) as store:
            store.captures.record_capture(pre)
            if batched:
                store.captures.record_captures(caps)
            else:
                for c in caps:
                    store.captures.record_capture(c)
            outcomes.append(_outcome(store, [pre, *caps]))
    assert outcomes[0] == outcomes[1]
    # a reference to an entry written later in the batch stays unresolved, one to an earlier one resolves
    prov = {(a, b): c for a, b, c in outcomes[1]["provenance"]}
    assert prov[("e4", "mem://e2")] == "e2" and prov[("e4", "mem://e6")] is None


def test_captures_acknowledged_by_record_captures_survive_a_kill_right_after_it_returned(state: Path) -> None:
    script = (
        "import json, os, signal, sys\n"
        "from pathlib import Path\n"
        "from edge_agent.config import Settings\n"
        "from edge_agent.memory import Capture, MemoryStore\n"
        "from edge_agent.sync import OutboxSink\n"
        "settings = Settings.model_validate({'device': {'id': 'crash-test'}, 'kumiho': {'enabled': True}})\n"
        "state = Path(sys.argv[1])\n"
        "store = MemoryStore.open(state, settings, capture_sink=OutboxSink(settings, state))\n"
        "caps = [Capture(type='fact', title=f'kill {i}', content=f'capture {i} before the kill') for i in range(200)]\n"
        "out = store.captures.record_captures(caps)\n"
        "print(json.dumps([c.id for c in out]), flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(state)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert proc.returncode == -9, proc.stderr
    acknowledged = json.loads(proc.stdout)
    assert len(acknowledged) == 200
    with MemoryStore.open(state, Settings()) as store:
        assert {r[0] for r in table(store, "SELECT id FROM captures")} == set(acknowledged)
        assert {r[0] for r in table(store, "SELECT capture_id FROM sync_outbox")} == set(acknowledged)
        assert store.search.recall("capture 117 before the kill", limit=1)[0].content == "capture 117 before the kill"


def test_new_ids_are_uuid_version_7_and_later_ones_sort_after_earlier_ones() -> None:
    first = new_id()
    time.sleep(0.002)  # the time part has millisecond resolution
    later = [new_id() for _ in range(100)]
    assert uuid.UUID(first).version == 7 and all(uuid.UUID(i).version == 7 for i in later)
    assert all(first < i for i in later)
    assert len(set(later)) == 100


def test_capture_keys_stay_distinct_for_captures_with_the_same_title_made_together(store: MemoryStore) -> None:
    out = store.captures.record_captures([Capture(type="fact", title="same title", content=f"content {i}")
                                          for i in range(50)])
    keys = {store.get_by_id(c.entry_id).key for c in out}
    assert len(keys) == 50 and store.count() == 50


@pytest.mark.parametrize("with_update", [False, True])
def test_store_many_ends_exactly_as_the_same_entries_stored_one_by_one(tmp_path: Path, with_update: bool) -> None:
    items = [{"key": f"k{i}", "content": f"entry {i % 250} about the SHT31 sensor", "category": "daily"}
             for i in range(600)]  # contents repeat: 350 duplicates across and within chunks
    if with_update:  # a key stored again with new content: supersedes the earlier version
        items[400] = {"key": "k3", "content": "k3 rewritten for the SHT31 sensor", "category": "daily"}
    results = []
    for name, batched in (("one", False), ("many", True)):
        with MemoryStore.open(tmp_path / name, Settings()) as store:
            store.store("k0", "entry 0 about the SHT31 sensor")
            before = store.count(include_superseded=True)
            if batched:
                added = store.store_many(items)
            else:
                for i in items:
                    store.store(**i)
                added = store.count(include_superseded=True) - before
            rows = sorted((e.key, e.content, e.category, e.superseded_by is None)
                          for e in store.list(limit=2000, include_superseded=True))
            results.append((added, rows, len(store.search.recall("SHT31 sensor entry 7", limit=50, min_score=0))))
    assert results[0] == results[1]
    # with the update, "entry 3" is no longer live after item 400, so item 503 stores it again
    assert results[1][0] == (251 if with_update else 249)
    assert sum(live for *_, live in results[1][1]) == (251 if with_update else 250)
