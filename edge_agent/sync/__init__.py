"""Durable, exactly-once upstream sync of memory captures to Kumiho.

``OutboxSink`` plugs into the memory store (same-transaction outbox); ``SyncWorker`` drains it with the
``kumiho`` SDK over gRPC. Importing this package needs no gRPC: the SDK is loaded when a client is built.
"""

from __future__ import annotations

from edge_agent.sync.outbox import OutboxFullError, OutboxSink, SecretRejectedError
from edge_agent.sync.uploader import SyncAuthError, SyncPausedError, SyncWorker, sync_status

__all__ = [
    "OutboxFullError",
    "OutboxSink",
    "SecretRejectedError",
    "SyncAuthError",
    "SyncPausedError",
    "SyncWorker",
    "sync_status",
]
