"""Fixtures: a loopback Kumiho test server and devices (memory store + outbox + sync worker) that use it.

Everything goes through the real ``kumiho`` SDK client over real gRPC; only the server is ours.
"""

from __future__ import annotations

import contextlib
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

FAST_RETRY = {"backoff_initial_s": 0.02, "backoff_max_s": 0.2, "rpc_timeout_s": 2.0}


@pytest.fixture
def server() -> Iterator[KumihoTestServer]:
    """A running loopback Kumiho test server."""
    srv = KumihoTestServer().start()
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
