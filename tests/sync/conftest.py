"""Fixtures: a loopback Kumiho test server and devices (memory store + outbox + sync worker) that use it.

Everything goes through the real ``kumiho`` SDK client over real gRPC; only the server is ours.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kumiho", reason="the kumiho extra is not installed")

from edge_agent.config import Settings  # noqa: E402
from edge_agent.memory import Capture, MemoryStore  # noqa: E402
from edge_agent.sync import OutboxSink, SyncWorker  # noqa: E402
from edge_agent.sync.testserver import KumihoTestServer  # noqa: E402

#: The per-call gRPC deadline of the test devices. The tests run niced on a shared 2-core machine, where the
#: test process and the in-process server's handler threads can go unscheduled for seconds; with a 2 s deadline
#: a healthy loopback call then expired, the worker backed off as it should, and a test counting what one pass
#: uploaded failed for nothing. 20 s still ends a call that really stalls (the failure report below names the
#: call and what each device recorded), and the tests of deadline handling set their own short deadline.
RPC_DEADLINE_S = 20.0
FAST_RETRY = {"backoff_initial_s": 0.02, "backoff_max_s": 0.2, "rpc_timeout_s": RPC_DEADLINE_S}

# What the running test made, for the report of a failed test (cleared before each test).
_SERVERS: list[KumihoTestServer] = []
_DEVICES: list[Device] = []


@pytest.fixture(autouse=True)
def _forget_the_last_test() -> None:
    _SERVERS.clear()
    _DEVICES.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed sync test's report also says where each device's sync stood: the last error it recorded
    (the call or phase that failed or ran past its deadline: "ensuring the project", "BatchCreateRevisions",
    a finishing step), the rows still queued with their errors, and the server's calls in flight and last
    answers, so a stall reads as the phase that stalled rather than as a bare count mismatch."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and (_DEVICES or _SERVERS):
        report.sections.append(("sync state when the test failed", sync_state()))


def sync_state() -> str:
    """Each device's recorded sync state and each server's recent calls, as text for a failure report."""
    lines: list[str] = []
    for dev in _DEVICES:
        try:
            st = dev.worker.status()
            lines.append(f"device {st['device_id']}: queued {st['queued']}, in flight {st['in_flight']}, "
                         f"dead {st['dead_letters']}, synced {st['synced_total']}, last error {st['last_error']}, "
                         f"link down {st['link_down']}")
            conn = sqlite3.connect(dev.store.db_path)
            try:
                rows = conn.execute("SELECT seq, attempts, last_error FROM sync_outbox"
                                    " WHERE last_error IS NOT NULL ORDER BY seq LIMIT 10").fetchall()
            finally:
                conn.close()
            lines += [f"  outbox row {seq}: {attempts} attempts, last error {err}" for seq, attempts, err in rows]
        except Exception as exc:  # noqa: BLE001 - the report must not hide the test's own failure
            lines.append(f"device state unreadable: {type(exc).__name__}: {exc}")
    for srv in _SERVERS:
        calls = list(srv.servicer.calls)[-12:]
        lines.append(f"server {srv.endpoint}: {srv.servicer.in_flight} calls in a handler now; last answers: "
                     + ", ".join(f"{c.method} {c.outcome}" for c in calls))
    return "\n".join(lines)


@pytest.fixture
def server() -> Iterator[KumihoTestServer]:
    """A running loopback Kumiho test server."""
    srv = KumihoTestServer().start()
    _SERVERS.append(srv)
    try:
        yield srv
    finally:
        srv.stop()


@dataclass
class Device:
    """One simulated edge device: its settings, memory store (with outbox sink) and sync worker."""

    settings: Settings
    state: Path
    store: MemoryStore
    sink: OutboxSink
    worker: SyncWorker

    def capture(self, title: str, content: str | None = None, **kw: Any) -> Capture:
        """Record a capture through the memory store (acknowledged = committed with its outbox row)."""
        kw.setdefault("type", "fact")
        return self.store.captures.record_capture(Capture(title=title, content=content or f"{title} (content)", **kw))

    def reopen_worker(self, endpoint: str | None = None) -> SyncWorker:
        """Replace the worker with a fresh one (as after a process restart)."""
        self.worker.close()
        self.worker = SyncWorker(self.store, self.settings, self.state, endpoint)
        return self.worker


def make_settings(endpoint: str, device_id: str = "pi-test", **kumiho: Any) -> Settings:
    """Settings with sync enabled against `endpoint` and fast retries."""
    return Settings.model_validate({
        "device": {"id": device_id},
        "kumiho": {"enabled": True, "endpoint": endpoint, **FAST_RETRY, **kumiho},
    })


@pytest.fixture
def make_device(tmp_path: Path) -> Iterator[Callable[..., Device]]:
    """Factory: make_device(server, device_id=..., **kumiho settings) -> Device (closed at teardown)."""
    made: list[Device] = []

    def factory(server: KumihoTestServer | None = None, device_id: str = "pi-test", endpoint: str | None = None,
                **kumiho: Any) -> Device:
        ep = endpoint or (server.endpoint if server else "127.0.0.1:1")
        settings = make_settings(ep, device_id, **kumiho)
        state = tmp_path / f"state-{device_id}-{len(made)}"
        state.mkdir()
        sink = OutboxSink(settings, state)
        store = MemoryStore.open(state, settings, capture_sink=sink)
        worker = SyncWorker(store, settings, state)
        dev = Device(settings, state, store, sink, worker)
        made.append(dev)
        _DEVICES.append(dev)
        return dev

    yield factory
    for dev in made:
        with contextlib.suppress(Exception):
            dev.worker.close()
        with contextlib.suppress(Exception):
            dev.store.close()


@pytest.fixture
def device(server: KumihoTestServer, make_device: Callable[..., Device]) -> Device:
    """One device syncing to the test server."""
    return make_device(server)
