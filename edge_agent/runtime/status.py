"""What `edge-agent status`, the runtime_status tool and the status page read from a runtime."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from edge_agent import __version__
from edge_agent.errors import MemoryStoreError, SyncError
from edge_agent.runtime.components import Component, describe_exc, safe

if TYPE_CHECKING:
    from edge_agent.runtime.core import Runtime


def summary(rt: Runtime) -> str:
    """One line for STATUS= and the ready log line."""
    ok = sum(1 for s in rt.adapters.values() if s.adapter is not None)
    parts = [f"{ok}/{len(rt.adapters)} adapters"]
    ds = rt.components.get("datasheets")
    parts.append(f"{ds.extra.get('chunks', '?')} datasheet chunks" if ds and ds.ok else "datasheets off")
    parts.append("memory on" if rt.memory is not None else "memory off")
    parts.append("sync on" if rt.sync is not None else "sync off")
    return ", ".join(parts)


def sync_status(rt: Runtime) -> dict[str, Any]:
    """The sync worker's status, or why sync is not running."""
    comp = rt.components.get("sync", Component(False, "not built"))
    if rt.sync is None:
        return {"enabled": bool(rt.settings.kumiho.enabled), "running": False, "detail": comp.detail,
                **_outbox_depth(rt)}
    try:
        data = dict(rt.sync.status())
    except (SyncError, MemoryStoreError, OSError) as exc:
        return {"enabled": True, "running": comp.ok, "error": str(exc), **_outbox_depth(rt)}
    depth = sum(n for k in ("queued", "in_flight") if isinstance(n := data.get(k), int))
    return {"running": comp.ok and "sync" in rt.background.threads, "outbox_depth": depth, **data}


def memory_counts(rt: Runtime) -> dict[str, Any]:
    """Counts from the memory store (entries by category and so on); empty when memory is off."""
    if rt.memory is None:
        return {}
    try:
        return dict(rt.memory.maintenance.stats())
    except Exception as exc:
        return {"error": describe_exc(exc)}


def status(rt: Runtime) -> dict[str, Any]:
    """Everything `edge-agent status` and the runtime_status tool show."""
    rt.components["adapters"] = rt.pool.health()
    return {
        "version": __version__,
        "pid": os.getpid(),
        "uptime_s": round(time.time() - rt.started_at, 1),
        "state_dir": str(rt.state_dir),
        "config": str(rt.settings.source) if rt.settings.source else "embedded defaults",
        "components": {k: v.as_dict() for k, v in rt.components.items()},
        "adapters": [s.describe() for s in rt.adapters.values()],
        "datasheets": rt.components.get("datasheets", Component(False)).as_dict(),
        "memory": memory_counts(rt),
        "sync": sync_status(rt),
        "watches": safe(rt.watch.status, []) if rt.watch is not None else [],
        "watch_captures": rt.watch_captures,
        "jobs": dict(rt.jobs),
    }


def rag_chunks(rag: Any) -> int | None:
    """How many chunks a datasheet index holds, by whichever count it offers."""
    for attr in ("chunk_count", "__len__"):
        fn = getattr(rag, attr, None)
        if callable(fn):
            return safe(fn, None)
        if isinstance(fn, int):
            return fn
    chunks = getattr(rag, "chunks", None)
    return len(chunks) if isinstance(chunks, list | tuple) else None


def _outbox_depth(rt: Runtime) -> dict[str, Any]:
    store = rt.memory
    if store is None:
        return {}
    from edge_agent.sync.repository import outbox_depth

    depth = outbox_depth(store)
    return {} if depth is None else {"outbox_depth": depth}
