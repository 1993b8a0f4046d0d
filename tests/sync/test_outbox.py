"""The outbox sink: same-transaction enqueue, the bound and its policy, credential screening, provenance."""

from __future__ import annotations

import json
import sqlite3

import pytest

from edge_agent.memory import Capture
from edge_agent.sync import OutboxFullError, SecretRejectedError
from edge_agent.sync.outbox import ROW_OVERHEAD_BYTES


def _outbox(dev) -> list[dict]:
    conn = sqlite3.connect(dev.store.db_path)
    try:
        return [json.loads(p) for (p,) in conn.execute("SELECT payload FROM sync_outbox ORDER BY seq")]
    finally:
        conn.close()


def test_a_capture_and_its_outbox_row_are_committed_together(make_device):
    dev = make_device()
    cap = dev.capture("pair", importance=0.7)
    rows = _outbox(dev)
    assert [r["id"] for r in rows] == [cap.id]
    assert rows[0]["entry_id"] == cap.entry_id and dev.store.get_by_id(cap.entry_id) is not None


def test_a_refused_capture_leaves_neither_entry_nor_outbox_row(make_device):
    dev = make_device(outbox_max_rows=2, outbox_full_policy="refuse_all")
    dev.capture("one")
    dev.capture("two")
    before = dev.store.count()
    with pytest.raises(OutboxFullError) as info:
        dev.capture("three", importance=1.0)
    assert info.value.rows == 2 and info.value.max_rows == 2 and info.value.policy == "refuse_all"
    assert dev.store.count() == before
    assert len(_outbox(dev)) == 2  # nothing acknowledged was dropped to make room


def test_low_importance_captures_are_refused_first_when_the_outbox_fills(make_device):
    dev = make_device(outbox_max_rows=10, low_importance_below=0.5)
    for i in range(9):
        dev.capture(f"filler {i}", importance=0.9)
    with pytest.raises(OutboxFullError) as info:
        dev.capture("chatter", importance=0.2)  # 90 % reached: low importance refused
    assert info.value.importance == pytest.approx(0.2)
    dev.capture("important", importance=0.9)  # the last 10 % is kept for important captures
    with pytest.raises(OutboxFullError):
        dev.capture("one too many", importance=1.0)
    assert len(_outbox(dev)) == 10


def test_the_byte_bound_counts_payload_and_row_overhead(make_device):
    dev = make_device(outbox_max_mb=0.01, outbox_full_policy="refuse_all")  # 10 485 bytes
    stored = 0
    with pytest.raises(OutboxFullError) as info:
        for i in range(100):
            dev.capture(f"big {i}", f"{i:04d}" + "x" * 996, importance=1.0)
            stored += 1
    assert 0 < stored < 100
    assert info.value.bytes_used <= info.value.max_bytes
    assert info.value.bytes_used >= stored * (1000 + ROW_OVERHEAD_BYTES)


def test_dead_letters_count_against_the_bound(server, make_device):
    import grpc

    dev = make_device(server, outbox_max_rows=1, outbox_full_policy="refuse_all")
    dev.capture("will die")
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.INVALID_ARGUMENT, 1)
    assert dev.worker.sync_until_empty(10)
    assert dev.worker.status()["dead_letters"] == 1
    with pytest.raises(OutboxFullError):
        dev.capture("no room while the dead letter waits")


def test_credentials_are_redacted_before_anything_is_stored(make_device):
    dev = make_device()
    secret = "AKIAIOSFODNN7EXAMPLE"
    cap = dev.capture("deploy note", f"exported AWS_ACCESS_KEY_ID={secret} and password = hunter22hunter",
                      tags=("ops",), metadata={"cmd": "curl -H 'Authorization: Bearer abcdefghijklmnop0123456789'"})
    assert secret not in cap.content and "[REDACTED:aws_access_key:" in cap.content  # kind, then a keyed tag
    assert "hunter22hunter" not in cap.content
    row = _outbox(dev)[0]
    assert secret not in json.dumps(row) and "abcdefghijklmnop0123456789" not in json.dumps(row)
    assert secret not in dev.store.get_by_id(cap.entry_id).content  # the local entry holds the redacted text
    sec = dev.worker.status()["secrets"]
    assert sec["redacted_captures"] == 1
    assert sec["redacted_by_kind"] == {"aws_access_key": 1, "assigned_secret": 1, "bearer_token": 1}


def test_reject_policy_refuses_a_capture_with_credentials_and_counts_it(make_device):
    dev = make_device(secret_policy="reject")
    before = dev.store.count()
    with pytest.raises(SecretRejectedError) as info:
        dev.capture("key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----")
    assert info.value.kinds == {"private_key": 1} and info.value.fields == ["content"]
    assert dev.store.count() == before and _outbox(dev) == []
    dev.capture("clean", "LD2 blinks on PA5")  # clean captures still pass
    sec = dev.worker.status()["secrets"]
    assert sec["rejected_captures"] == 1 and sec["rejected_by_kind"] == {"private_key": 1}


def test_each_capture_carries_device_provenance(make_device):
    dev = make_device(device_id="bench-pi")
    dev.capture("when and where")
    md = _outbox(dev)[0]["metadata"]
    assert md["device_id"] == "bench-pi"
    assert md["boot_id"] and int(md["monotonic_ns"]) > 0
    assert md["wall_time"].endswith("Z") and md["clock_synced"] in ("true", "false")


def test_a_reflect_with_several_captures_queues_them_in_one_transaction_in_order(make_device):
    dev = make_device()
    out = dev.store.captures.reflect("s1", "done", captures=[
        Capture(type="decision", title=f"d{i}", content=f"decision {i}") for i in range(5)])
    assert [r["id"] for r in _outbox(dev)] == [c["capture_id"] for c in out["captures"]]
