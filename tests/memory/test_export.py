"""Export (JSON Lines, filters, ascending time) and import restoring it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from edge_agent.config import Settings
from edge_agent.memory import ImportFormatError, InvalidTimestampError, MemoryStore


def _fill(s: MemoryStore) -> None:
    s.store("b", "second", category="daily", session_id="s1", timestamp="2026-02-02T00:00:00Z")
    s.store("a", "first", category="core", session_id="s1", timestamp="2026-02-01T00:00:00Z")
    s.store("c", "third", category="daily", session_id="s2", namespace="lab", timestamp="2026-02-03T00:00:00Z")
    s.store("d", "fourth", category="conversation", session_id="s2", timestamp="2026-02-04T12:00:00Z")


def _keys(s: MemoryStore, **filters: object) -> list[str]:
    buf = io.StringIO()
    s.transfer.export_jsonl(buf, **filters)
    return [json.loads(line)["key"] for line in buf.getvalue().splitlines()]


def test_export_is_json_lines_in_ascending_creation_time(store: MemoryStore) -> None:
    _fill(store)
    assert _keys(store) == ["a", "b", "c", "d"]


def test_export_filters_by_namespace_session_category_and_inclusive_time_range(store: MemoryStore) -> None:
    _fill(store)
    assert _keys(store, namespace="lab") == ["c"]
    assert _keys(store, session_id="s1") == ["a", "b"]
    assert _keys(store, category="daily") == ["b", "c"]
    assert _keys(store, since="2026-02-02T00:00:00Z", until="2026-02-03T00:00:00Z") == ["b", "c"]
    assert _keys(store, since="2026-02-04T13:00:00+01:00") == ["d"]  # offsets are honoured


def test_export_rejects_an_invalid_since(store: MemoryStore) -> None:
    with pytest.raises(InvalidTimestampError) as err:
        _keys(store, since="last week")
    assert err.value.field == "since"


def test_exported_lines_carry_no_embeddings_and_keep_captures_and_provenance(store: MemoryStore) -> None:
    src = store.store("src", "sensor at 0x76")
    store.captures.reflect("s", "", captures=[{"type": "fact", "title": "addr", "content": "BME280 at 0x76 confirmed",
                                               "tags": ["i2c"]}], source_refs=[src.source_ref])
    lines = [json.loads(x) for x in _export_text(store).splitlines()]
    assert not any("embedding" in k for line in lines for k in line)
    cap_line = next(x for x in lines if "capture" in x)
    assert cap_line["capture"]["tags"] == ["i2c"] and cap_line["provenance"] == [src.source_ref]


def _export_text(s: MemoryStore) -> str:
    buf = io.StringIO()
    s.transfer.export_jsonl(buf)
    return buf.getvalue()


def test_import_restores_an_export_exactly_and_twice_changes_nothing(state: Path) -> None:
    with MemoryStore.open(state, Settings(), workspace="src") as s:
        _fill(s)
        s.store("a", "first, revised", timestamp="2026-02-05T00:00:00Z")
        src = s.store("z", "source fact")
        s.captures.reflect("s", "", captures=[{"type": "decision", "title": "t", "content": "derived decision"}],
                           source_refs=[src.source_ref])
        with s.unit_of_work("recording a kref") as uow:
            uow.record_krefs([(src.id, "kref://CognitiveMemory/Devices/pi/z.conversation?r=1")])
        text = _export_text(s)
    with MemoryStore.open(state, Settings(), workspace="dst") as d:
        assert d.transfer.import_jsonl(text.splitlines()) == {"imported": 7, "skipped": 0}
        assert _export_text(d) == text
        assert d.transfer.import_jsonl(text.splitlines()) == {"imported": 0, "skipped": 7}
        assert d.get("a").content == "first, revised"  # type: ignore[union-attr]
        derived = next(e for e in d.list() if e.key.startswith("capture/"))
        assert d.captures.provenance(derived.id)["derived_from"][0]["entry_id"] == src.id


def test_a_bad_import_line_names_its_number_and_imports_nothing(store: MemoryStore) -> None:
    good = json.dumps({"key": "k", "content": "v", "timestamp": "2026-01-01T00:00:00Z"})
    bad = json.dumps({"key": "k2", "content": "v2", "category": "not valid!"})
    with pytest.raises(ImportFormatError) as err:
        store.transfer.import_jsonl([good, "", bad])
    assert err.value.line == 3
    assert store.count() == 0
    with pytest.raises(ImportFormatError) as err:
        store.transfer.import_jsonl(["{not json"])
    assert err.value.line == 1


def test_import_of_a_key_that_is_already_here_keeps_the_newer_version_live(state: Path) -> None:
    with MemoryStore.open(state, Settings(), workspace="a") as a:
        a.store("led", "LED on PA5 (exported)", timestamp="2026-02-10T00:00:00Z")
        a.store("fan", "fan on GPIO18 (exported, older)", timestamp="2026-01-01T00:00:00Z")
        text = _export_text(a)
    with MemoryStore.open(state, Settings(), workspace="b") as b:
        b.store("led", "LED on PB0 (local, older)", timestamp="2026-02-01T00:00:00Z")
        b.store("fan", "fan on GPIO12 (local, newer)", timestamp="2026-02-01T00:00:00Z")
        assert b.transfer.import_jsonl(text.split("\n")) == {"imported": 2, "skipped": 0}
        assert b.get("led").content == "LED on PA5 (exported)"  # type: ignore[union-attr]
        assert b.get("fan").content == "fan on GPIO12 (local, newer)"  # type: ignore[union-attr]
        assert b.count() == 2 and b.count(include_superseded=True) == 4
