"""A Kumiho server that restarts empty (a fresh local server, a new project) while the device is running.

The worker caches which project and spaces exist and which revisions it created; after the restart
none of them exist any more. Every capture queued or in flight must still be delivered, exactly once
on the new server, without dead letters and without anyone running ``sync retry-dead``.
"""

from __future__ import annotations

import grpc

from edge_agent.sync.testserver import KumihoTestServer


def _count(server: KumihoTestServer) -> dict[str, int]:
    return {cid: len(v) for cid, v in server.servicer.revisions_by_capture().items()}


def _restart_empty(server: KumihoTestServer) -> KumihoTestServer:
    """Stop the server and start an empty one on the same endpoint."""
    port = server.port
    server.stop()
    return KumihoTestServer(port).start()


def test_captures_queued_across_an_empty_restart_are_all_delivered(server, device):
    before = [device.capture(f"before the restart {i}", space_hint="Lab/Bench") for i in range(3)]
    assert device.worker.sync_until_empty(20)
    assert _count(server) == {c.id: 1 for c in before}

    fresh = _restart_empty(server)
    try:
        after = [device.capture(f"after the restart {i}", space_hint="Lab/Bench") for i in range(4)]
        after.append(device.capture("in the device's default space"))
        assert device.worker.sync_until_empty(20)
        status = device.worker.status()
        assert status["dead_letters"] == 0, status["dead"]
        assert _count(fresh) == {c.id: 1 for c in after}
        assert fresh.servicer.projects, "the project was re-created"
    finally:
        fresh.stop()


def test_a_space_removed_upstream_is_created_again_and_its_capture_delivered(server, device):
    device.capture("warm the space cache", space_hint="Scratch")
    assert device.worker.sync_until_empty(10)
    server.servicer.spaces.discard("/CognitiveMemory/scratch")  # removed upstream (hints are slugified)
    good = device.capture("good")
    moved = device.capture("into the removed space", space_hint="Scratch")
    assert device.worker.sync_until_empty(10)
    assert device.worker.status()["dead_letters"] == 0
    counts = _count(server)
    assert counts[good.id] == 1 and counts[moved.id] == 1
    assert "/CognitiveMemory/scratch" in server.servicer.spaces


def test_a_restart_noticed_while_offline_still_re_creates_the_spaces(server, device):
    device.capture("seen before", space_hint="Lab/Bench")
    assert device.worker.sync_until_empty(20)
    port = server.port
    server.stop()
    queued = [device.capture(f"queued while down {i}", space_hint="Lab/Bench") for i in range(3)]
    assert device.worker.sync_once() == 0  # offline: nothing delivered, nothing dead
    fresh = KumihoTestServer(port).start()
    try:
        device.worker._offline_until = 0.0  # skip the backoff wait
        assert device.worker.sync_until_empty(20)
        assert device.worker.status()["dead_letters"] == 0
        assert _count(fresh) == {c.id: 1 for c in queued}
    finally:
        fresh.stop()


def test_revisions_lost_in_the_restart_are_created_again(server, device):
    # The batch is answered (revisions exist) but finishing fails, so the outbox holds revision krefs
    # of the old server when it restarts empty.
    caps = [device.capture(f"half done {i}", space_hint="Lab/Bench", tags=("bench",)) for i in range(3)]
    server.servicer.force("TagRevision", grpc.StatusCode.UNAVAILABLE)
    device.worker.sync_once()
    status = device.worker.status()
    assert status["queued"] + status["in_flight"] == 3 and status["dead_letters"] == 0

    fresh = _restart_empty(server)
    try:
        device.worker._offline_until = 0.0
        assert device.worker.sync_until_empty(20)
        assert device.worker.status()["dead_letters"] == 0
        assert _count(fresh) == {c.id: 1 for c in caps}
        for kref in fresh.servicer.revisions:
            rev = fresh.servicer.revision(kref)
            assert rev.published and "bench" in rev.tags
    finally:
        fresh.stop()
