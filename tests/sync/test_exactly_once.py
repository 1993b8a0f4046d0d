"""The exactly-once recipe against the loopback server, through the real kumiho SDK client."""

from __future__ import annotations

from collections import Counter

import grpc
import pytest

from edge_agent.sync.uploader import SCHEMA


def _only_revision(server, cid: str) -> str:
    revs = server.servicer.revisions_by_capture()[cid]
    assert len(revs) == 1, revs
    return revs[0]


def test_a_capture_is_written_in_the_shape_reflect_writes(server, device):
    cap = device.capture("LD2 is on PA5", "The user LED LD2 is wired to PA5 (D13).", type="fact",
                         tags=("hardware", "nucleo"), importance=0.8)
    assert device.worker.sync_until_empty(10)
    kref = _only_revision(server, cap.id)
    assert kref == f"kref://CognitiveMemory/Devices/pi-test/cap-{cap.id}.conversation?r=1"
    rev = server.servicer.revision(kref)
    md = rev.metadata
    assert md["schema"] == SCHEMA
    assert md["memory_type"] == "fact"
    assert md["title"] == "LD2 is on PA5"
    assert md["summary"] == "The user LED LD2 is wired to PA5 (D13)."
    assert md["space"] == "Devices/pi-test"
    assert md["capture_id"] == cap.id
    assert md["device_id"] == "pi-test"
    assert md["boot_id"] and int(md["monotonic_ns"]) > 0 and md["wall_time"].endswith("Z")
    assert md["clock_synced"] in ("true", "false")
    assert "type" not in md
    assert rev.published and {"hardware", "nucleo", "published"} <= rev.tags


def test_published_is_the_last_write_to_a_revision(server, device):
    first = device.capture("source fact")
    second = device.capture("derived fact", tags=("t1",), source_refs=(f"mem://{first.entry_id}",))
    assert device.worker.sync_until_empty(10)
    kref = _only_revision(server, second.id)
    writes = [c for c in server.servicer.calls
              if c.method in ("TagRevision", "CreateEdge")
              and (getattr(c.request, "kref", None) and c.request.kref.uri == kref
                   or getattr(c.request, "source_revision_kref", None) and c.request.source_revision_kref.uri == kref)]
    assert [w.request.tag if w.method == "TagRevision" else "edge" for w in writes] == ["edge", "t1", "published"]


def test_the_local_entry_records_its_revision_kref(server, device):
    cap = device.capture("kref me")
    assert device.worker.sync_until_empty(10)
    assert device.store.get_by_id(cap.entry_id).kref == _only_revision(server, cap.id)


def test_with_memory_audit_on_the_kref_goes_through_the_store_and_is_audited(server, tmp_path):
    from edge_agent.config import Settings
    from edge_agent.memory import Capture, MemoryStore
    from edge_agent.sync import OutboxSink, SyncWorker

    settings = Settings.model_validate({
        "device": {"id": "audited"}, "memory": {"audit_enabled": True},
        "kumiho": {"enabled": True, "endpoint": server.endpoint, "backoff_initial_s": 0.02, "backoff_max_s": 0.2}})
    with MemoryStore.open(tmp_path, settings, capture_sink=OutboxSink(settings, tmp_path)) as store:
        cap = store.captures.record_capture(Capture(type="fact", title="audited", content="audited kref"))
        with SyncWorker(store, settings, tmp_path) as worker:
            assert worker.sync_until_empty(10)
        assert store.get_by_id(cap.entry_id).kref == _only_revision(server, cap.id)
        audit = store.maintenance.audit_log()
        assert any(a["operation"] == "set_kref" and a["entry_id"] == cap.entry_id for a in audit)


def test_mem_source_refs_become_derived_from_edges_to_the_synced_revision(server, device):
    a = device.capture("sensor at 21 C")
    b = device.capture("room is warm", source_refs=(f"mem://{a.entry_id}",))
    assert device.worker.sync_until_empty(10)
    ka, kb = _only_revision(server, a.id), _only_revision(server, b.id)
    assert server.servicer.edges_from(kb) == [ka]
    # A later capture deriving from `b` refers to it locally; upstream it links to b's revision.
    c = device.capture("open the window", source_refs=(f"mem://{b.entry_id}",))
    assert device.worker.sync_until_empty(10)
    assert server.servicer.edges_from(_only_revision(server, c.id)) == [kb]


def test_kref_source_refs_link_to_existing_upstream_revisions(server, device):
    a = device.capture("upstream source")
    assert device.worker.sync_until_empty(10)
    ka = _only_revision(server, a.id)
    b = device.capture("uses it", source_refs=(ka,))
    assert device.worker.sync_until_empty(10)
    assert server.servicer.edges_from(_only_revision(server, b.id)) == [ka]


def test_a_reply_lost_after_the_batch_committed_does_not_duplicate_revisions(server, device):
    caps = [device.capture(f"fact {i}") for i in range(5)]
    server.faults.lose_reply_next = 1
    server.faults.lose_reply_methods = frozenset({"BatchCreateRevisions"})
    assert device.worker.sync_until_empty(10)
    by_cap = server.servicer.revisions_by_capture()
    assert all(len(by_cap[c.id]) == 1 for c in caps)
    batches = [c for c in server.servicer.calls if c.method == "BatchCreateRevisions"]
    assert [b.outcome for b in batches] == ["lost", "ok"]
    # The replay is the persisted batch unchanged: same prefix, same rows in the same order.
    first, second = (b.request for b in batches)
    assert first.idempotency_prefix == second.idempotency_prefix
    assert [r.revision.item_kref.uri for r in first.revisions] == [r.revision.item_kref.uri for r in second.revisions]


def test_the_sdk_hidden_retries_are_off(server, device):
    device.capture("one")
    server.faults.unavailable_next = 1
    assert device.worker.sync_once() == 0
    # One failed call, not three: the SDK did not silently re-send it.
    assert server.servicer.call_count() == 1
    assert device.worker.sync_until_empty(10)


def test_a_batch_left_unanswered_by_a_crash_is_replayed_unchanged_by_the_next_process(server, device):
    caps = [device.capture(f"reading {i}") for i in range(3)]
    server.faults.lose_reply_next = 1
    server.faults.lose_reply_methods = frozenset({"BatchCreateRevisions"})
    device.worker.sync_once()  # committed upstream, answer lost: the batch stays pending on disk
    server.faults.unavailable_next = 0
    device.reopen_worker()  # a new process: nothing but the database carries over
    assert device.worker.sync_until_empty(10)
    by_cap = server.servicer.revisions_by_capture()
    assert sorted(by_cap) == sorted(c.id for c in caps)
    assert all(len(v) == 1 for v in by_cap.values())
    prefixes = {c.request.idempotency_prefix for c in server.servicer.calls if c.method == "BatchCreateRevisions"}
    assert len(prefixes) == 1


def test_tag_and_item_kref_sources_are_resolved_to_one_revision_first(server, device):
    a = device.capture("tagged source")
    assert device.worker.sync_until_empty(10)
    ka = _only_revision(server, a.id)
    item = ka.split("?", 1)[0]
    b = device.capture("by tag", source_refs=(f"{item}?t=published",))
    c = device.capture("by item", source_refs=(item,))
    assert device.worker.sync_until_empty(10)
    assert server.servicer.edges_from(_only_revision(server, b.id)) == [ka]
    assert server.servicer.edges_from(_only_revision(server, c.id)) == [ka]


def test_a_source_missing_upstream_is_skipped_and_counted(server, device):
    ghost = "kref://CognitiveMemory/Devices/elsewhere/cap-ghost.conversation?r=1"
    cap = device.capture("derived from nothing", source_refs=(ghost,))
    assert device.worker.sync_until_empty(10)
    assert server.servicer.edges_from(_only_revision(server, cap.id)) == []
    assert device.worker.status()["edges_skipped"] == 1


def test_a_lost_edge_reply_does_not_create_the_edge_twice(server, device):
    a = device.capture("source")
    assert device.worker.sync_until_empty(10)
    b = device.capture("derived", source_refs=(f"mem://{a.entry_id}",))
    server.faults.lose_reply_next = 1
    server.faults.lose_reply_methods = frozenset({"CreateEdge"})
    assert device.worker.sync_until_empty(10)
    assert server.servicer.edges_from(_only_revision(server, b.id)) == [_only_revision(server, a.id)]


def test_a_lost_published_tag_reply_is_not_retried_onto_the_frozen_revision(server, device):
    cap = device.capture("freeze me")
    server.faults.lose_reply_next = 1
    server.faults.lose_reply_methods = frozenset({"TagRevision"})
    assert device.worker.sync_until_empty(10)
    assert device.worker.status()["dead_letters"] == 0
    assert server.servicer.revision(_only_revision(server, cap.id)).published
    refused = [c for c in server.servicer.calls if c.method == "TagRevision" and c.outcome == "PERMISSION_DENIED"]
    assert refused == []


def test_a_slow_reply_past_the_deadline_is_resolved_without_a_duplicate(server, make_device):
    # The deadline is short but not so short that a healthy call on a loaded machine runs past it; the
    # slow replies take longer than it whatever the load, since the server sleeps before it answers.
    dev = make_device(server, rpc_timeout_s=1.0)
    first = dev.capture("before the slow replies")
    assert dev.worker.sync_until_empty(30)  # project and space exist: the next pass starts with the batch
    caps = [dev.capture(f"slow {i}") for i in range(3)]
    server.faults.delay_s = 1.5  # the server commits the batch after the client gave up: outcome unknown
    assert dev.worker.sync_once() == 0
    error = dev.worker.status()["last_error"]
    assert error["code"] == "DEADLINE_EXCEEDED" and error["message"].startswith("BatchCreateRevisions"), error
    server.faults.delay_s = 0.0
    assert dev.worker.sync_until_empty(30)
    by_cap = server.servicer.revisions_by_capture()
    assert all(len(by_cap[c.id]) == 1 for c in (first, *caps))


def test_batches_never_exceed_200_rows_and_keep_capture_order(server, device):
    caps = device.store.captures.reflect("s1", "ok", captures=[
        {"type": "fact", "title": f"bulk {i}", "content": f"bulk fact number {i}"} for i in range(450)])
    assert len(caps["captures"]) == 450
    assert device.worker.sync_until_empty(30)
    sizes = [len(c.request.revisions) for c in server.servicer.calls if c.method == "BatchCreateRevisions"]
    assert max(sizes) <= 200 and sum(sizes) == 450
    uris = [r.revision.item_kref.uri for c in server.servicer.calls if c.method == "BatchCreateRevisions"
            for r in c.request.revisions]
    assert uris == [f"kref://CognitiveMemory/Devices/pi-test/cap-{c['capture_id']}.conversation"
                    for c in caps["captures"]]
    assert Counter(len(v) for v in server.servicer.revisions_by_capture().values()) == {1: 450}


def test_space_hint_and_space_path_choose_the_space(server, make_device):
    dev = make_device(server, space_path="Lab/Bench 3".replace(" ", "-"))
    a = dev.capture("hinted", space_hint="Hardware Notes/Nucleo F401")
    b = dev.capture("default")
    assert dev.worker.sync_until_empty(10)
    assert _only_revision(server, a.id).startswith("kref://CognitiveMemory/hardware-notes/nucleo-f401/")
    assert _only_revision(server, b.id).startswith("kref://CognitiveMemory/Lab/Bench-3/")
    assert {"/CognitiveMemory/hardware-notes/nucleo-f401", "/CognitiveMemory/Lab/Bench-3"} <= server.servicer.spaces


def test_an_existing_project_and_spaces_are_reused(server, make_device):
    one = make_device(server, device_id="shared")
    one.capture("first")
    assert one.worker.sync_until_empty(10)
    two = make_device(server, device_id="shared")  # same device id, new process state
    two.capture("second")
    assert two.worker.sync_until_empty(10)
    assert len(server.servicer.projects) == 1
    creates = [c.outcome for c in server.servicer.calls if c.method == "CreateSpace"]
    assert creates.count("ok") == 2 and set(creates) <= {"ok", "ALREADY_EXISTS"}


def test_unimplemented_batch_rpc_pauses_sync_instead_of_dead_lettering(server, device):
    from edge_agent.sync import SyncPausedError

    device.capture("needs batch")
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.UNIMPLEMENTED)
    with pytest.raises(SyncPausedError):
        device.worker.sync_once()
    status = device.worker.status()
    assert status["paused"]["reason"] == "unsupported"
    assert status["queued"] + status["in_flight"] == 1 and status["dead_letters"] == 0
