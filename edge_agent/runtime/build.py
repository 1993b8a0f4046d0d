"""Building the runtime's components from its settings: datasheet index, memory store, sync worker, watches.

Each builder records the component's health on the runtime (``mark``) and never raises: a component
that is missing (extra not installed) or fails to start is logged with the reason, and the rest keeps
working; an agent sees the reason in ``runtime_status`` and in the error of the tool that needs it.
Each optional part is imported here, when it is built, so a runtime without it never loads it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from edge_agent.pins import default_index
from edge_agent.runtime.components import datasheet_fingerprint, describe_exc, safe
from edge_agent.runtime.status import rag_chunks

if TYPE_CHECKING:
    from edge_agent.runtime.core import Runtime


def build_rag(rt: Runtime) -> None:
    """The datasheet index and, from it, the runtime's pin index (the bundled one when it fails)."""
    directory = rt.settings.datasheet_dir()
    # Remember the files we tried, so a failing index is retried only when the files change.
    rt.rag_fingerprint = datasheet_fingerprint(directory)
    try:
        from edge_agent.rag import HardwareRag

        started = time.monotonic()
        current = rt.rag
        if (current is not None and current.root == directory
                and current.compact == rt.settings.agent.compact_context):
            current.refresh()  # in place: only changed files are read again, the rest stays in memory
            rag = current
        else:
            rag = HardwareRag.load(directory, index_dir=rt.state_dir / "rag",
                                   compact=rt.settings.agent.compact_context)
    except Exception as exc:
        rt.rag = None
        rt.use_pins(default_index())
        rt.mark("datasheets", False, describe_exc(exc), dir=str(directory))
        return
    rt.rag = rag
    rt.use_pins(rag.pin_index())
    rt.mark("datasheets", True, "", dir=str(directory), files=len(safe(rag.files, [])),
            chunks=rag_chunks(rag), load_s=round(time.monotonic() - started, 3))


def build_memory(rt: Runtime) -> None:
    """The memory store, with the sync outbox as its capture sink when ``[kumiho] enabled``."""
    if rt.settings.memory.backend == "none":
        rt.mark("memory", True, "off ([memory] backend = \"none\")", enabled=False)
        return
    sink = None
    if rt.settings.kumiho.enabled:
        try:
            from edge_agent.sync import OutboxSink

            sink = OutboxSink(rt.settings, rt.state_dir)
        except Exception as exc:
            rt.mark("sync", False, f"the outbox could not be set up: {describe_exc(exc)}")
    try:
        from edge_agent.memory import MemoryStore

        rt.memory = MemoryStore.open(rt.state_dir, rt.settings, capture_sink=sink)
    except Exception as exc:
        rt.memory = None
        rt.mark("memory", False, describe_exc(exc))
        return
    rt.mark("memory", True, "", db=str(getattr(rt.memory, "db_path", "")), outbox=sink is not None)


def build_sync(rt: Runtime) -> None:
    """The sync worker over the memory store, when ``[kumiho] enabled`` and the outbox was set up."""
    if not rt.settings.kumiho.enabled:
        rt.mark("sync", True, "off ([kumiho] enabled = false)", enabled=False)
        return
    if rt.memory is None:
        rt.mark("sync", False, "needs the memory store, which is not available", enabled=True)
        return
    if "sync" in rt.components and not rt.components["sync"].ok:
        return
    try:
        from edge_agent.sync import SyncWorker

        rt.sync = SyncWorker(rt.memory, rt.settings, rt.state_dir)
    except Exception as exc:
        rt.mark("sync", False, describe_exc(exc), enabled=True)
        return
    rt.mark("sync", True, "", enabled=True)


def build_watches(rt: Runtime) -> None:
    """The watch runner over the adapter slots and the memory store, when ``[[watch]]`` entries exist."""
    if not rt.settings.watch:
        rt.mark("watch", True, "", count=0)
        return
    try:
        from edge_agent.watch import WatchRunner

        rt.watch = WatchRunner.from_runtime(rt, on_capture=rt.on_watch_capture)
    except Exception as exc:
        rt.watch = None
        rt.mark("watch", False, describe_exc(exc), count=len(rt.settings.watch))
        return
    rt.mark("watch", True, "", count=len(rt.settings.watch))
