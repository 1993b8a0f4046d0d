"""Captures of a batch are finished concurrently, yet each one's writes stay in order and fail alone."""

from __future__ import annotations

from collections import defaultdict

import grpc
import pytest

from edge_agent.sync import uploader
from edge_agent.sync.testserver import KumihoTestServer


@pytest.fixture
def slow_server():
    """A test server whose every reply takes 3 ms, so concurrent calls really overlap on the server."""
    srv = KumihoTestServer()
    srv.faults.delay_s = 0.003  # set before start: the handler pool is sized for slow replies
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _record_derived(device, n: int = 60):
    """n captures with two custom tags each; every other one derives from two earlier sources."""
    sources = [device.capture(f"source {i}") for i in range(10)]
    caps = []
    for i in range(n):
        picked = sources[i % 9: i % 9 + 2] if i % 2 else []
        cap = device.capture(f"derived {i}", tags=("sensor", f"t{i % 3}"),
                             source_refs=tuple(f"mem://{s.entry_id}" for s in picked))
        caps.append((cap, [s.id for s in picked]))
    return caps


def _contiguous(order: list[str], kref: str) -> bool:
    at = [i for i, k in enumerate(order) if k == kref]
    return at[-1] - at[0] + 1 == len(at)


def test_concurrent_finishing_publishes_each_revision_only_after_its_custom_tags_and_edges(slow_server,
                                                                                        make_device):
    device = make_device(slow_server, batch_size=200)
    caps = _record_derived(device)
    assert device.worker.sync_until_empty(30)

    srv = slow_server.servicer
    revs = srv.revisions_by_capture()
    for cap, source_ids in caps:
        (kref,) = revs[cap.id]
        writes = srv.writes_to(kref)
        expected = {"tag:sensor", f"tag:{cap.tags[1]}"} | {f"edge:{revs[s][0]}" for s in source_ids}
        assert writes[-1] == "tag:published", (cap.title, writes)
        assert sorted(writes[:-1]) == sorted(expected), (cap.title, writes)
        assert srv.revision(kref).published
    # The test means something only if the captures really were finished side by side: in commit
    # order the writes of different revisions interleave (one capture at a time keeps each contiguous).
    derived = {revs[cap.id][0] for cap, _ in caps}
    order = [c.target() for c in srv.calls if c.method in ("TagRevision", "CreateEdge") and c.target() in derived]
    assert sum(not _contiguous(order, k) for k in derived) > len(derived) // 2
    assert srv.max_in_flight > 1


def test_a_step_failing_for_one_capture_leaves_only_that_one_unpublished_and_queued(server, device):
    caps = [device.capture(f"reading {i}", tags=("sensor",)) for i in range(40)]
    server.servicer.force("TagRevision", grpc.StatusCode.INTERNAL, count=1)  # one call of one capture fails
    device.worker.sync_once()

    srv = server.servicer
    revs = srv.revisions_by_capture()
    unpublished = [c for c in caps if not srv.revision(revs[c.id][0]).published]
    assert len(unpublished) == 1
    (left,) = unpublished
    assert device.worker.pending() == 1
    status = device.worker.status()
    assert status["in_flight"] == 1 and status["dead_letters"] == 0 and status["synced_total"] == 39
    for c in caps:
        recorded = device.store.get_by_id(c.entry_id).kref
        assert recorded == (None if c is left else revs[c.id][0])

    assert device.worker.sync_until_empty(10)
    assert device.store.get_by_id(left.entry_id).kref == revs[left.id][0]
    assert {c.id: srv.writes_to(revs[c.id][0]) for c in caps} == {
        c.id: ["tag:sensor", "tag:published"] for c in caps}


def test_a_lost_reply_mid_finish_resumes_from_the_server_state_without_repeating_a_write(server, device):
    caps = _record_derived(device, n=30)
    # The first tag write is applied upstream but its reply is lost: the worker backs off, abandons
    # the captures it had started, and resumes each from what GetRevision / GetEdges report.
    server.faults.lose_reply_methods = frozenset({"TagRevision"})
    server.faults.lose_reply_next = 1
    assert device.worker.sync_until_empty(15)

    srv = server.servicer
    assert any(c.outcome == "lost" for c in srv.calls)
    assert not [c for c in srv.calls if c.outcome == "PERMISSION_DENIED"]  # never re-tagged a frozen revision
    revs = srv.revisions_by_capture()
    assert {cid: len(v) for cid, v in revs.items() if len(v) != 1} == {}
    for cap, source_ids in caps:
        (kref,) = revs[cap.id]
        writes = srv.writes_to(kref)
        counts = defaultdict(int)
        for w in writes:
            counts[w] += 1
        assert max(counts.values()) == 1, (cap.title, writes)  # every tag and edge exactly once
        assert writes[-1] == "tag:published"
        assert set(srv.edges_from(kref)) == {revs[s][0] for s in source_ids}
    assert device.worker.status()["dead_letters"] == 0


def test_without_the_sdk_channel_layout_finishing_falls_back_to_the_sdk_stub_and_stays_correct(
        server, device, monkeypatch):
    monkeypatch.setattr(uploader, "_finishing_stub", lambda client: client.stub)
    caps = _record_derived(device, n=12)
    assert device.worker.sync_until_empty(15)
    srv = server.servicer
    revs = srv.revisions_by_capture()
    for cap, source_ids in caps:
        writes = srv.writes_to(revs[cap.id][0])
        assert writes[-1] == "tag:published"
        assert sorted(writes[:-1]) == sorted(
            {"tag:sensor", f"tag:{cap.tags[1]}"} | {f"edge:{revs[s][0]}" for s in source_ids})


def test_finishing_calls_bypass_only_the_sdk_retry_layer_and_keep_its_metadata(server, device):
    from kumiho.proto import kumiho_pb2_grpc

    assert isinstance(uploader._finishing_stub(device.worker._get_client()), kumiho_pb2_grpc.KumihoServiceStub)
    device.capture("one", tags=("sensor",))
    assert device.worker.sync_until_empty(10)
    tags = [c for c in server.servicer.calls if c.method == "TagRevision"]
    assert tags and all(c.metadata.get("x-correlation-id", "").startswith("kumiho-") for c in tags)


def test_the_test_server_serves_slow_calls_side_by_side():
    from kumiho.proto import kumiho_pb2 as pb

    srv = KumihoTestServer()
    srv.faults.delay_s = 0.3
    srv.start()
    try:
        client = uploader.build_client(srv.endpoint, None, 10.0)
        stub = uploader._finishing_stub(client)
        calls = [stub.GetProjects.future(pb.GetProjectsRequest(), timeout=120) for _ in range(8)]
        assert all(len(f.result().projects) == 0 for f in calls)
        client.close()
    finally:
        srv.stop()
    assert srv.servicer.max_in_flight > 1
    assert srv.servicer.in_flight == 0
