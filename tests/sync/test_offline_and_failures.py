"""Offline operation, backoff, dead letters and auth pauses, against the loopback server."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from edge_agent.errors import ConfigError, SyncError
from edge_agent.sync import SyncAuthError
from edge_agent.sync.uploader import _Backoff, resolve_endpoint


def _count(server) -> dict[str, int]:
    return {cid: len(v) for cid, v in server.servicer.revisions_by_capture().items()}


# --- offline and backoff --------------------------------------------------------------------------


def test_an_offline_device_keeps_queueing_and_delivers_everything_once_back(server, device):
    server.go_offline()
    first = [device.capture(f"offline {i}") for i in range(5)]
    assert device.worker.sync_once() == 0
    status = device.worker.status()
    assert status["last_error"]["code"] == "UNAVAILABLE"
    assert status["queued"] + status["in_flight"] == 5
    more = [device.capture(f"still offline {i}") for i in range(5)]  # the device keeps working
    device.worker.sync_once()
    server.go_online()
    assert device.worker.sync_until_empty(20)
    assert _count(server) == {c.id: 1 for c in first + more}


def test_offline_time_never_uses_up_a_captures_attempts(server, make_device):
    dev = make_device(server, max_attempts=2)
    dev.capture("patient")
    server.go_offline()
    for _ in range(5):
        dev.worker._offline_until = 0.0  # skip the wait; each pass is one more failed connection
        dev.worker.sync_once()
    assert dev.worker.status()["dead_letters"] == 0
    server.go_online()
    assert dev.worker.sync_until_empty(20)


def test_an_unavailable_burst_is_ridden_out_without_duplicates(server, device):
    caps = [device.capture(f"burst {i}") for i in range(10)]
    server.faults.unavailable_next = 4
    assert device.worker.sync_until_empty(20)
    assert _count(server) == {c.id: 1 for c in caps}


def test_backoff_grows_exponentially_with_jitter_up_to_the_cap():
    b = _Backoff(initial=1.0, cap=30.0, rng=random.Random(7))
    delays = [b.next_delay() for _ in range(10)]
    for n, d in enumerate(delays, start=1):
        base = min(30.0, 2 ** (n - 1))
        assert base / 2 <= d <= base
    assert len({round(d, 6) for d in delays}) == len(delays)  # jittered, not lock-step
    b.reset()
    assert b.next_delay() <= 1.0


def test_the_worker_backs_off_after_a_failure_instead_of_hammering_the_server(server, make_device):
    dev = make_device(server, backoff_initial_s=30.0, backoff_max_s=60.0)
    dev.capture("wait for me")
    server.go_offline()
    failed_at = time.time()  # at or before the failure: its jittered delay (15-30 s) runs from the failure
    dev.worker.sync_once()
    server.go_online()
    calls = server.servicer.call_count()
    assert dev.worker.sync_once() == 0  # still inside the backoff window: no call made
    assert server.servicer.call_count() == calls
    # the time left shrinks by however long a loaded machine took to get here (status rounds to 0.1 s)
    left = dev.worker.status()["next_attempt_in_s"]
    assert left > 0 and left >= 15.0 - (time.time() - failed_at) - 0.05, left


# --- dead letters ---------------------------------------------------------------------------------


def test_an_invalid_argument_capture_becomes_a_visible_retryable_dead_letter(server, device):
    cap = device.capture("rejected")
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.INVALID_ARGUMENT, 1)
    assert device.worker.sync_until_empty(10)  # the outbox is empty: the capture is dead-lettered
    status = device.worker.status()
    assert status["dead_letters"] == 1
    assert status["dead"][0]["capture_id"] == cap.id and status["dead"][0]["code"] == "INVALID_ARGUMENT"
    assert _count(server) == {}
    assert device.worker.retry_dead() == 1
    assert device.worker.sync_until_empty(10)
    assert _count(server) == {cap.id: 1}
    assert device.worker.status()["dead_letters"] == 0


def test_a_rejected_batch_is_split_so_one_bad_capture_does_not_sink_the_rest(server, device):
    caps = [device.capture(f"batch member {i}") for i in range(3)]
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.PERMISSION_DENIED, 2)
    assert device.worker.sync_until_empty(10)
    # Call 1: the batch of 3 (refused). Call 2: the first capture alone (refused -> dead letter).
    sizes = [len(c.request.revisions) for c in server.servicer.calls if c.method == "BatchCreateRevisions"]
    assert sizes[:2] == [3, 1]
    status = device.worker.status()
    assert status["dead_letters"] == 1 and status["dead"][0]["capture_id"] == caps[0].id
    assert _count(server) == {caps[1].id: 1, caps[2].id: 1}


def test_a_capture_whose_space_is_refused_is_dead_lettered_and_the_others_delivered(server, device):
    device.capture("creates the device space")
    assert device.worker.sync_until_empty(10)
    good = device.capture("good")
    bad = device.capture("bad", space_hint="Forbidden")
    server.servicer.force("CreateSpace", grpc.StatusCode.PERMISSION_DENIED, 1)
    assert device.worker.sync_until_empty(10)
    status = device.worker.status()
    assert [(d["capture_id"], d["code"]) for d in status["dead"]] == [(bad.id, "PERMISSION_DENIED")]
    assert good.id in _count(server) and bad.id not in _count(server)


def test_a_row_the_batch_rejects_is_dead_lettered_and_its_batch_mates_delivered(server, device):
    device.capture("warm the space cache", space_hint="Scratch")
    assert device.worker.sync_until_empty(10)
    server.faults.refuse_titles = frozenset({"bad"})  # the server refuses this one row of the batch
    good = device.capture("good")
    bad = device.capture("bad", space_hint="Scratch")
    assert device.worker.sync_until_empty(10)
    status = device.worker.status()
    assert [(d["capture_id"], d["code"]) for d in status["dead"]] == [(bad.id, "ROW_REJECTED")]
    assert good.id in _count(server)
    # Once the server accepts it, retrying delivers it once.
    server.faults.refuse_titles = frozenset()
    assert device.worker.retry_dead() == 1
    assert device.worker.sync_until_empty(10)
    assert _count(server)[bad.id] == 1


def test_max_attempts_dead_letters_the_batch_whole_and_retry_replays_it_unchanged(server, make_device):
    dev = make_device(server, max_attempts=2)
    caps = [dev.capture(f"poison {i}") for i in range(2)]
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.INTERNAL)
    for _ in range(4):
        dev.worker._offline_until = 0.0
        with dev.worker.outbox.tx() as conn:
            conn.execute("UPDATE sync_outbox SET next_attempt_at = 0")
        dev.worker.sync_once()
    status = dev.worker.status()
    assert status["dead_letters"] == 2 and {d["code"] for d in status["dead"]} == {"INTERNAL"}
    server.servicer.clear_forced()
    assert dev.worker.retry_dead([caps[0].id]) == 2  # its batch-mate comes back with it
    assert dev.worker.sync_until_empty(10)
    prefixes = {c.request.idempotency_prefix for c in server.servicer.calls if c.method == "BatchCreateRevisions"}
    assert len(prefixes) == 1
    assert _count(server) == {c.id: 1 for c in caps}


# --- auth -----------------------------------------------------------------------------------------

GOOD = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJlZGdlIn0.c2lnbmF0dXJlLWdvb2Q"
BAD = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJvbGQifQ.c2lnbmF0dXJlLWV4cGlyZWQ"


def test_unauthenticated_pauses_sync_and_says_so_without_revealing_the_token(server, device, monkeypatch, caplog):
    server.faults.required_token = GOOD
    monkeypatch.setenv("KUMIHO_AUTH_TOKEN", BAD)
    device.capture("needs auth")
    caplog.set_level(logging.DEBUG)
    with pytest.raises(SyncAuthError):
        device.worker.sync_once()
    status = device.worker.status()
    assert status["paused"]["reason"] == "auth" and status["last_error"]["code"] == "UNAUTHENTICATED"
    assert status["queued"] + status["in_flight"] == 1
    assert BAD not in json.dumps(status) and BAD not in caplog.text
    assert "c2lnbmF0dXJlLWV4cGlyZWQ" not in caplog.text


def _wait(reached: Callable[[], bool], what: str, device: Any, limit_s: float = 60.0) -> None:
    """Poll until `reached`; the limit is for a worker thread that never gets there, not a speed check (a
    loaded 2-core machine can hold a niced test's threads for seconds), and its failure says what was awaited."""
    end = time.monotonic() + limit_s
    while not reached():
        if time.monotonic() >= end:
            raise AssertionError(f"{what} did not happen within {limit_s:.0f} s; sync status: {device.worker.status()}")
        time.sleep(0.02)


def test_a_paused_worker_resumes_when_the_token_changes(server, device, monkeypatch):
    server.faults.required_token = GOOD
    monkeypatch.setenv("KUMIHO_AUTH_TOKEN", BAD)
    cap = device.capture("resume me")
    stop = threading.Event()
    runner = threading.Thread(target=device.worker.run, args=(stop,), daemon=True)
    runner.start()
    try:
        _wait(lambda: (device.worker.status()["paused"] or {}).get("reason") == "auth", "the pause on auth", device)
        calls = server.servicer.call_count()
        stop.wait(0.3)
        assert server.servicer.call_count() == calls  # paused: not retrying with the refused token
        monkeypatch.setenv("KUMIHO_AUTH_TOKEN", GOOD)
        device.worker.notify()
        _wait(lambda: device.worker.pending() == 0, "the drain after the token changed", device)
    finally:
        stop.set()
        runner.join(10)
    assert _count(server) == {cap.id: 1}
    assert device.worker.status()["paused"] is None
    assert all(c.metadata.get("authorization") in (f"Bearer {BAD}", f"Bearer {GOOD}") for c in server.servicer.calls)


def test_the_token_file_is_used_when_no_environment_token_is_set(server, make_device, tmp_path):
    token_file = tmp_path / "kumiho-token"
    token_file.write_text(GOOD + "\n")
    server.faults.required_token = GOOD
    dev = make_device(server, token_file=str(token_file))
    cap = dev.capture("file token")
    assert dev.worker.sync_until_empty(10)
    assert _count(server) == {cap.id: 1}


def test_a_missing_token_file_is_a_config_error_naming_the_key(server, make_device, tmp_path):
    dev = make_device(server, token_file=str(tmp_path / "absent"))
    dev.capture("x")
    with pytest.raises(ConfigError, match="token_file"):
        dev.worker.sync_once()


@pytest.mark.parametrize("endpoint", ["kumiho.example.com:8080", "grpc://10.0.0.5:9000", "http://kumiho.example.com"])
def test_plaintext_to_a_non_loopback_endpoint_is_refused(endpoint):
    from edge_agent.config import KumihoConfig

    with pytest.raises(ConfigError, match="TLS"):
        resolve_endpoint(KumihoConfig(endpoint=endpoint))


@pytest.mark.parametrize("endpoint", ["https://kumiho.example.com", "kumiho.example.com:443", "127.0.0.1:50051",
                                      "localhost:8080", "grpcs://kumiho.example.com:8443", "kumiho.example.com"])
def test_tls_or_loopback_endpoints_are_accepted(endpoint):
    from edge_agent.config import KumihoConfig

    assert resolve_endpoint(KumihoConfig(endpoint=endpoint))


def test_local_ce_mode_defaults_to_the_loopback_community_server_and_refuses_remote_hosts():
    from edge_agent.config import KumihoConfig

    assert resolve_endpoint(KumihoConfig(mode="local_ce")) == "127.0.0.1:9190"
    with pytest.raises(ConfigError, match="local_ce"):
        resolve_endpoint(KumihoConfig(mode="local_ce", endpoint="https://ce.example.com"))


def test_an_empty_endpoint_is_a_startup_error(make_device, tmp_path):
    from edge_agent.config import Settings
    from edge_agent.memory import MemoryStore
    from edge_agent.sync import SyncWorker

    settings = Settings.model_validate({"kumiho": {"enabled": True}})
    store = MemoryStore.open(tmp_path / "s", settings)
    try:
        with pytest.raises(ConfigError, match="endpoint"):
            SyncWorker(store, settings, tmp_path / "s")
    finally:
        store.close()
    assert issubclass(ConfigError, Exception) and not issubclass(SyncError, ConfigError)


def test_a_successful_sync_now_clears_an_auth_pause_even_with_the_same_token(server, device, monkeypatch):
    monkeypatch.setenv("KUMIHO_AUTH_TOKEN", GOOD)
    server.faults.required_token = BAD  # the server side is misconfigured for a while
    device.capture("x")
    with pytest.raises(SyncAuthError):
        device.worker.sync_once()
    assert device.worker._paused() is not None
    server.faults.required_token = GOOD  # fixed upstream; the device's token never changed
    assert device.worker.sync_until_empty(10)
    assert device.worker.status()["paused"] is None and device.worker._paused() is None


def test_a_wall_clock_stepping_back_does_not_strand_queued_captures(server, device):
    cap = device.capture("scheduled in the far future")
    with device.worker.outbox.tx() as conn:  # as if scheduled before NTP moved the clock back by a year
        conn.execute("UPDATE sync_outbox SET next_attempt_at = ?", (device.worker._clock() + 365 * 86400,))
    device.worker._offline_until = device.worker._clock() + 365 * 86400
    assert device.worker.sync_until_empty(10)
    assert _count(server) == {cap.id: 1}


def test_two_workers_on_one_database_never_upload_at_the_same_time(server, device):
    from edge_agent.sync import SyncWorker

    caps = []
    for i in range(40):
        caps.append(device.capture(f"shared {i}", source_refs=(f"mem://{caps[-1].entry_id}",) if i % 2 else ()))
    other = SyncWorker(device.store, device.settings, device.state)
    server.faults.delay_s = 0.01  # widen the window in which they could overlap
    results = []
    try:
        threads = [threading.Thread(target=lambda w=w: results.append(w.sync_until_empty(20)))
                   for w in (device.worker, other)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        other.close()
    assert results == [True, True]
    assert _count(server) == {c.id: 1 for c in caps}
    revs = {cid: v[0] for cid, v in server.servicer.revisions_by_capture().items()}
    for i in range(1, 40, 2):
        assert server.servicer.edges_from(revs[caps[i].id]) == [revs[caps[i - 1].id]]
    prefixes = [c.request.idempotency_prefix for c in server.servicer.calls if c.method == "BatchCreateRevisions"]
    assert len(prefixes) == len(set(prefixes))  # no batch was sent twice: the lock serialised them


def test_a_batch_waiting_to_retry_does_not_hold_up_captures_queued_after_it(server, make_device):
    dev = make_device(server, backoff_initial_s=30.0, backoff_max_s=60.0)
    stuck = dev.capture("hits a server error")
    server.servicer.force("BatchCreateRevisions", grpc.StatusCode.INTERNAL, 1)
    dev.worker.sync_once()  # answered failure: this batch retries in 15-30 s
    later = dev.capture("queued afterwards")
    dev.worker._offline_until = 0.0  # skip the global backoff, keep the batch's own retry time
    assert dev.worker.sync_once() == 1
    assert set(_count(server)) == {later.id}
    status = dev.worker.status()
    assert status["in_flight"] == 1 and status["dead_letters"] == 0 and stuck.id not in _count(server)


# --- outage reporting -----------------------------------------------------------------------------


def _records(caplog, level):
    return [r for r in caplog.records if r.levelno >= level and r.name.startswith(("edge_agent", "kumiho"))]


def test_an_outage_logs_one_warning_and_one_line_when_the_link_returns(server, device, caplog):
    device.capture("before the outage")
    assert device.worker.sync_until_empty(10)
    caplog.clear()
    server.go_offline()
    for i in range(3):
        device.capture(f"during the outage {i}")
    with caplog.at_level(logging.INFO):
        for _ in range(6):
            device.worker._offline_until = 0.0  # skip the backoff wait: each pass is one more failed retry
            device.worker.sync_once()
        assert [r for r in _records(caplog, logging.ERROR)] == []
        warnings = _records(caplog, logging.WARNING)
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
        assert "down" in warnings[0].getMessage() and "3 capture(s) queued" in warnings[0].getMessage()
        caplog.clear()
        server.go_online()
        device.worker._offline_until = 0.0
        assert device.worker.sync_until_empty(20)
    back = [r.getMessage() for r in _records(caplog, logging.INFO) if "back" in r.getMessage()]
    assert len(back) == 1 and "6 failed attempt(s)" in back[0], back
    assert _records(caplog, logging.WARNING) == []


def test_status_counts_nothing_in_flight_while_the_link_is_down(server, device):
    device.capture("warms the project and space cache")
    assert device.worker.sync_until_empty(10)
    server.go_offline()
    for i in range(5):
        device.capture(f"offline {i}")
    for _ in range(3):
        device.worker._offline_until = 0.0
        device.worker.sync_once()
    status = device.worker.status()
    assert (status["queued"], status["in_flight"], status["dead_letters"]) == (5, 0, 0)
    assert status["link_down"] is not None and status["link_down"]["failed_attempts"] == 3
    server.go_online()
    device.worker._offline_until = 0.0
    assert device.worker.sync_until_empty(20)
    status = device.worker.status()
    assert (status["queued"], status["in_flight"], status["dead_letters"]) == (0, 0, 0)
    assert status["link_down"] is None


def test_status_separates_queued_in_flight_and_dead_letters(server, make_device):
    dev = make_device(server)
    server.faults.refuse_titles = frozenset({"refused"})
    dev.capture("refused")
    assert dev.worker.sync_until_empty(10)  # dead-lettered: the outbox is empty, the dead letter stays
    dev.capture("uploaded, not finished", tags=("t",))
    server.servicer.force("TagRevision", grpc.StatusCode.INTERNAL)
    dev.worker.sync_once()
    dev.capture("not sent yet")
    status = dev.worker.status()
    assert (status["queued"], status["in_flight"], status["dead_letters"]) == (1, 1, 1)
    assert status["outbox"]["rows"] == 3  # the bound counts dead letters too
