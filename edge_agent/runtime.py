"""The composition root: every component built from Settings and a state directory.

``Runtime.build`` assembles the datasheet index (HardwareRag), one bus adapter per
``[[peripherals.boards]]`` entry, the memory store (with the sync outbox as its capture sink when
``[kumiho] enabled``), the sync worker and the watch runner. A component that is missing (extra not
installed) or fails to start is logged and recorded, and the rest keeps working: an agent sees the
reason in ``runtime_status`` and in the error of the tool that needs it.

Every bus transaction runs under its adapter slot's lock, so a shutdown or reload waits for the
transaction in flight and never closes a device under it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent import __version__
from edge_agent.bus.pool import AdapterSlot
from edge_agent.config import BoardConfig, Settings
from edge_agent.errors import (
    AdapterUnavailableError,
    ConfigError,
    EdgeAgentError,
    MemoryStoreError,
    SyncError,
)
from edge_agent.paths import private_dir
from edge_agent.pins import PinIndex, default_index

if TYPE_CHECKING:  # built lazily: each needs its own extra or is costly to import
    from edge_agent.bus.base import Adapter
    from edge_agent.memory import Capture, MemoryStore
    from edge_agent.rag import HardwareRag
    from edge_agent.sync import SyncWorker
    from edge_agent.watch import WatchRunner

log = logging.getLogger(__name__)

REINDEX_CHECK_S = 10.0  # how often the datasheet directory is checked for changed files
HYGIENE_EVERY_S = 6 * 3600.0  # memory hygiene and response-cache pruning period
JOIN_TIMEOUT_S = 10.0


class ComponentUnavailable(EdgeAgentError):
    """A runtime component (datasheets, memory, sync, an adapter) is not running."""

    def __init__(self, component: str, reason: str) -> None:
        self.component, self.reason = component, reason
        super().__init__(f"{component} is not available: {reason}")


@dataclass
class Component:
    """Health of one part of the runtime, as runtime_status reports it."""

    ok: bool
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "detail": self.detail, **self.extra}


def _describe_exc(exc: BaseException) -> str:
    if isinstance(exc, EdgeAgentError):
        return str(exc)
    if isinstance(exc, ImportError):
        return f"a module is missing ({exc.name or exc}); install the matching edge-agent extra"
    return f"{type(exc).__name__}: {exc}"


def datasheet_fingerprint(directory: Path) -> str:
    """A cheap digest of file names, sizes and mtimes: changes when any datasheet changes."""
    h = hashlib.sha1()
    try:
        entries = sorted(p for p in directory.rglob("*") if p.is_file())
    except OSError:
        return ""
    for p in entries:
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.relative_to(directory)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


class Runtime:
    """Everything the MCP tools and background jobs work on, built from one Settings."""

    def __init__(self, settings: Settings, state_dir: Path) -> None:
        self.settings = settings
        self.state_dir = Path(state_dir)
        self.started_at = time.time()
        self.components: dict[str, Component] = {}
        self.adapters: dict[str, AdapterSlot] = {}
        # Components: None when off or failed (components[name] says why).
        self.rag: HardwareRag | None = None
        self._pins: PinIndex | None = None  # set from the datasheet index when it loads
        self.memory: MemoryStore | None = None
        self.sync: SyncWorker | None = None
        self.watch: WatchRunner | None = None
        self._rag_fingerprint = ""
        self._threads: dict[str, threading.Thread] = {}
        self._stops: dict[str, threading.Event] = {}
        self._stop: threading.Event | None = None
        self._reload_lock = threading.Lock()
        self._closed = False
        self.jobs: dict[str, dict[str, Any]] = {}
        self.watch_captures = 0
        self.watch_captured = threading.Event()  # set after each stored watch capture

    # construction --------------------------------------------------------------------------------

    @classmethod
    def build(cls, settings: Settings, state_dir: Path) -> Runtime:
        """Build every component; failures are recorded, never raised (the rest keeps serving)."""
        rt = cls(settings, state_dir)
        private_dir(rt.state_dir)
        rt._build_rag()
        rt._build_adapters(settings.peripherals.boards if settings.peripherals.enabled else [])
        rt._build_memory()
        rt._build_sync()
        rt._build_watches()
        return rt

    def mark(self, name: str, ok: bool, detail: str = "", **extra: Any) -> None:
        """Record a component's health (logged when it is not ok)."""
        self.components[name] = Component(ok, detail, dict(extra))
        if not ok:
            log.warning("%s unavailable: %s", name, detail)
        elif detail:
            log.info("%s: %s", name, detail)

    def _build_rag(self) -> None:
        directory = self.settings.datasheet_dir()
        # Remember the files we tried, so a failing index is retried only when the files change.
        self._rag_fingerprint = datasheet_fingerprint(directory)
        try:
            from edge_agent.rag import HardwareRag

            started = time.monotonic()
            rag = HardwareRag.load(directory, index_dir=self.state_dir / "rag",
                                   compact=self.settings.agent.compact_context)
        except Exception as exc:
            self.rag = None
            self._use_pins(default_index())
            self.mark("datasheets", False, _describe_exc(exc), dir=str(directory))
            return
        self.rag = rag
        self._use_pins(rag.pin_index())
        self.mark("datasheets", True, "", dir=str(directory), files=len(_safe(rag.files, [])),
                  chunks=_rag_chunks(rag), load_s=round(time.monotonic() - started, 3))

    @property
    def pins(self) -> PinIndex:
        """The one pin index every resolver uses: the datasheet index's, else the board files and bundled datasheets."""
        return self._pins if self._pins is not None else default_index()

    def _use_pins(self, index: PinIndex) -> None:
        """Make `index` the pin index of the runtime and of every open adapter."""
        self._pins = index
        for slot in list(self.adapters.values()):
            with slot.lock:
                if slot.adapter is not None:
                    slot.adapter.use_pins(index)

    def _open_slot(self, entry: BoardConfig) -> AdapterSlot:
        name = entry.adapter_name
        try:
            url = entry.adapter_url()
        except ConfigError as exc:
            return AdapterSlot(name, "", entry.board, error=str(exc))
        slot = AdapterSlot(name, url, entry.board)
        safety = self.settings.hardware.safety

        def opener() -> Adapter:
            from edge_agent.bus import open_adapter

            adapter = open_adapter(url, name=name, board=entry.board, safety=safety)
            adapter.use_pins(self.pins)
            attach = getattr(adapter, "attach_state", None)
            if callable(attach):  # a simulated board continues where the last process left it
                attach(self.state_dir)
            return adapter

        try:
            slot.adapter = opener()
        except Exception as exc:
            slot.error = _describe_exc(exc)
            log.warning("adapter %s (%s) unavailable: %s", name, url, slot.error)
        slot.opener = opener
        return slot

    def _build_adapters(self, entries: list[BoardConfig]) -> None:
        for entry in entries:
            slot = self._open_slot(entry)
            self.adapters[slot.name] = slot
        self._mark_adapters()

    def _mark_adapters(self) -> None:
        # Recounted at each status: a board missing at start-up opens when it is next used.
        ok = sum(1 for s in self.adapters.values() if s.adapter is not None)
        self.components["adapters"] = Component(ok == len(self.adapters), f"{ok}/{len(self.adapters)} open")

    def _build_memory(self) -> None:
        if self.settings.memory.backend == "none":
            self.mark("memory", True, "off ([memory] backend = \"none\")", enabled=False)
            return
        sink = None
        if self.settings.kumiho.enabled:
            try:
                from edge_agent.sync import OutboxSink

                sink = OutboxSink(self.settings, self.state_dir)
            except Exception as exc:
                self.mark("sync", False, f"the outbox could not be set up: {_describe_exc(exc)}")
        try:
            from edge_agent.memory import MemoryStore

            self.memory = MemoryStore.open(self.state_dir, self.settings, capture_sink=sink)
        except Exception as exc:
            self.memory = None
            self.mark("memory", False, _describe_exc(exc))
            return
        self.mark("memory", True, "", db=str(getattr(self.memory, "db_path", "")), outbox=sink is not None)

    def _build_sync(self) -> None:
        if not self.settings.kumiho.enabled:
            self.mark("sync", True, "off ([kumiho] enabled = false)", enabled=False)
            return
        if self.memory is None:
            self.mark("sync", False, "needs the memory store, which is not available", enabled=True)
            return
        if "sync" in self.components and not self.components["sync"].ok:
            return
        try:
            from edge_agent.sync import SyncWorker

            self.sync = SyncWorker(self.memory, self.settings, self.state_dir)
        except Exception as exc:
            self.mark("sync", False, _describe_exc(exc), enabled=True)
            return
        self.mark("sync", True, "", enabled=True)

    def _build_watches(self) -> None:
        if not self.settings.watch:
            self.mark("watch", True, "", count=0)
            return
        try:
            from edge_agent.watch import WatchRunner

            self.watch = WatchRunner.from_runtime(self, on_capture=self._on_watch_capture)
        except Exception as exc:
            self.watch = None
            self.mark("watch", False, _describe_exc(exc), count=len(self.settings.watch))
            return
        self.mark("watch", True, "", count=len(self.settings.watch))

    def _on_watch_capture(self, capture: Capture) -> None:
        """Called by the watch thread after the store committed a capture."""
        self.watch_captures += 1
        log.info("watch capture stored: %s %r", getattr(capture, "type", "?"), getattr(capture, "title", ""))
        self.watch_captured.set()

    # lookups the tools use -----------------------------------------------------------------------

    def require_rag(self) -> HardwareRag:
        """The datasheet index, or ComponentUnavailable saying why not."""
        if self.rag is None:
            comp = self.components.get("datasheets")
            raise ComponentUnavailable("the datasheet index", comp.detail if comp else "not built")
        return self.rag

    def require_memory(self) -> MemoryStore:
        """The memory store, or ComponentUnavailable saying why not."""
        if self.memory is None:
            comp = self.components.get("memory")
            raise ComponentUnavailable("the memory store", comp.detail if comp else "not built")
        return self.memory

    def slot(self, adapter: str | None = None, board: str | None = None) -> AdapterSlot:
        """Pick a configured adapter by adapter name or board id; with neither, the only (or first) one."""
        if not self.adapters:
            raise AdapterUnavailableError(
                "no boards are configured; add a [[peripherals.boards]] entry to edge-agent.toml "
                "(e.g. board = \"nucleo-f401re\", transport = \"sim\")")
        names = ", ".join(f"{s.name} ({s.board})" for s in self.adapters.values())
        if adapter:
            slot = self.adapters.get(adapter) or next(
                (s for s in self.adapters.values() if s.url == adapter), None)
            if slot is None:
                raise AdapterUnavailableError(f"no adapter named {adapter!r}; configured: {names}",
                                              adapter=adapter)
            if board and slot.board != board.lower():
                raise AdapterUnavailableError(
                    f"adapter {adapter!r} is board {slot.board!r}, not {board!r}; configured: {names}",
                    adapter=adapter)
        elif board:
            matches = [s for s in self.adapters.values() if s.board == board.strip().lower()]
            if not matches:
                raise AdapterUnavailableError(f"no configured adapter is a {board!r} board; configured: {names}")
            if len(matches) > 1:
                raise AdapterUnavailableError(
                    f"several adapters are {board!r} boards ({', '.join(s.name for s in matches)}); "
                    "pass `adapter` to pick one")
            slot = matches[0]
        else:
            slot = next(iter(self.adapters.values()))
        return slot

    @contextlib.contextmanager
    def hardware(self, adapter: str | None = None, board: str | None = None) -> Iterator[AdapterSlot]:
        """Hold one adapter for a bus transaction (waits for one already in flight)."""
        slot = self.slot(adapter, board)
        with slot.lock:
            slot.require()
            yield slot

    # background jobs -----------------------------------------------------------------------------

    def start_background(self, stop: threading.Event) -> None:
        """Start the sync worker, watches and the periodic jobs thread; `stop` ends them all."""
        self._stop = stop
        if self.sync is not None:
            self._spawn("sync", self.sync.run)
        if self.watch is not None:
            self._spawn("watch", self.watch.run)
        self._spawn("jobs", self._jobs_loop)

    def _spawn(self, name: str, target: Callable[[threading.Event], None]) -> None:
        """Run `target(stop)` in a thread with its own stop event (set by close() or a restart)."""
        stop = threading.Event()
        self._stops[name] = stop

        def guarded() -> None:
            try:
                target(stop)
            except Exception as exc:  # a job dying must show in status, not vanish
                log.exception("background job %s stopped", name)
                self.mark(name, False, f"background job stopped: {_describe_exc(exc)}")

        thread = threading.Thread(target=guarded, name=f"edge-agent-{name}", daemon=True)
        thread.start()
        self._threads[name] = thread

    def _halt(self, name: str) -> None:
        """Stop one background thread and wait for it (bounded)."""
        stop, thread = self._stops.pop(name, None), self._threads.pop(name, None)
        if stop is not None:
            stop.set()
        if thread is not None:
            thread.join(JOIN_TIMEOUT_S)
            if thread.is_alive():
                log.warning("background job %s did not stop in time", name)

    def _jobs_loop(self, stop: threading.Event) -> None:
        last_hygiene = 0.0
        while not stop.wait(REINDEX_CHECK_S if last_hygiene else 0.0):
            if self._stop is not None and self._stop.is_set():
                return
            self.reindex_if_changed()
            now = time.monotonic()
            if not last_hygiene or now - last_hygiene >= HYGIENE_EVERY_S:
                last_hygiene = now
                self.run_hygiene()

    def _job(self, name: str, fn: Callable[[], Any]) -> Any:
        started = time.monotonic()
        try:
            result = fn()
        except Exception as exc:
            self.jobs[name] = {"ok": False, "at": time.time(), "detail": _describe_exc(exc)}
            log.warning("job %s failed: %s", name, _describe_exc(exc))
            return None
        self.jobs[name] = {"ok": True, "at": time.time(), "took_s": round(time.monotonic() - started, 3),
                           "result": result if isinstance(result, int | dict | str | None) else str(result)}
        return result

    def run_hygiene(self) -> None:
        """Memory hygiene (archive/purge) and response-cache pruning, when the store offers them."""
        store = self.memory
        if store is None:
            return
        if self.settings.memory.hygiene_enabled and hasattr(store, "hygiene"):
            self._job("memory_hygiene", store.hygiene)
        if hasattr(store, "prune_cache"):
            self._job("response_cache_prune", store.prune_cache)

    def reindex_if_changed(self) -> bool:
        """Rebuild the datasheet index when files in the datasheet directory changed."""
        directory = self.settings.datasheet_dir()
        fingerprint = datasheet_fingerprint(directory)
        if fingerprint == self._rag_fingerprint:
            return False
        log.info("datasheet files changed in %s; re-indexing", directory)
        self._job("reindex", self._build_rag)
        return True

    # reload / close ------------------------------------------------------------------------------

    def reload(self, new: Settings) -> list[str]:
        """Apply a new configuration; returns a list of what changed."""
        with self._reload_lock:
            old, changes = self.settings, []
            self.settings = new
            if (old.datasheet_dir() != new.datasheet_dir()
                    or old.agent.compact_context != new.agent.compact_context):
                self._build_rag()
                changes.append("datasheet index rebuilt")
            old_entries = {b.adapter_name: b for b in (old.peripherals.boards if old.peripherals.enabled else [])}
            new_entries = {b.adapter_name: b for b in (new.peripherals.boards if new.peripherals.enabled else [])}
            safety_changed = old.hardware.safety != new.hardware.safety
            for name in list(self.adapters):
                if name not in new_entries or new_entries[name] != old_entries.get(name) or safety_changed:
                    self._close_slot(self.adapters.pop(name))
                    changes.append(f"adapter {name} closed")
            for name, entry in new_entries.items():
                if name not in self.adapters:
                    self.adapters[name] = self._open_slot(entry)
                    changes.append(f"adapter {name} opened")
            self._mark_adapters()
            running = self._stop is not None
            if (old.memory, old.kumiho, old.workspace) != (new.memory, new.kumiho, new.workspace):
                self._halt("sync")
                self._close_sync()
                self._close_memory()
                self._build_memory()
                self._build_sync()
                if self.sync is not None and running:
                    self._spawn("sync", self.sync.run)
                changes.append("memory and sync reopened")
            if changes or old.watch != new.watch:
                # Watches hold adapter slots and the store: rebuild them on any of those changes.
                self._halt("watch")
                if self.watch is not None:
                    with contextlib.suppress(Exception):
                        self.watch.close()
                self.watch = None
                self._build_watches()
                if self.watch is not None and running:
                    self._spawn("watch", self.watch.run)
                if old.watch != new.watch:
                    changes.append("watches restarted")
            return changes

    def _close_sync(self) -> None:
        sync, self.sync = self.sync, None
        if sync is not None and hasattr(sync, "close"):
            try:
                sync.close()
            except Exception as exc:
                log.warning("closing the sync worker: %s", _describe_exc(exc))

    def _close_slot(self, slot: AdapterSlot) -> None:
        with slot.lock:  # waits for the transaction in flight
            slot.closed = True
            if slot.adapter is not None:
                try:
                    slot.adapter.close()
                except Exception as exc:
                    log.warning("closing adapter %s: %s", slot.name, _describe_exc(exc))

    def _close_memory(self) -> None:
        store, self.memory = self.memory, None
        if store is not None and hasattr(store, "close"):
            try:
                store.close()
            except Exception as exc:
                log.warning("closing the memory store: %s", _describe_exc(exc))

    def close(self) -> None:
        """Finish in-flight bus transactions, close adapters, stop jobs, commit and close the store."""
        if self._closed:
            return
        self._closed = True
        if self._stop is not None:
            self._stop.set()
        for stop in self._stops.values():
            stop.set()
        for slot in list(self.adapters.values()):
            self._close_slot(slot)
        for name in list(self._threads):
            self._halt(name)
        if self.watch is not None and hasattr(self.watch, "close"):
            with contextlib.suppress(Exception):
                self.watch.close()
        self._close_sync()
        self._close_memory()
        rag, self.rag = self.rag, None
        if rag is not None and hasattr(rag, "close"):
            with contextlib.suppress(Exception):
                rag.close()

    # status --------------------------------------------------------------------------------------

    def summary(self) -> str:
        """One line for STATUS= and the ready log line."""
        ok = sum(1 for s in self.adapters.values() if s.adapter is not None)
        parts = [f"{ok}/{len(self.adapters)} adapters"]
        ds = self.components.get("datasheets")
        parts.append(f"{ds.extra.get('chunks', '?')} datasheet chunks" if ds and ds.ok else "datasheets off")
        parts.append("memory on" if self.memory is not None else "memory off")
        parts.append("sync on" if self.sync is not None else "sync off")
        return ", ".join(parts)

    def sync_status(self) -> dict[str, Any]:
        """The sync worker's status, or why sync is not running."""
        comp = self.components.get("sync", Component(False, "not built"))
        if self.sync is None:
            return {"enabled": bool(self.settings.kumiho.enabled), "running": False, "detail": comp.detail,
                    **_outbox_depth(self)}
        try:
            data = dict(self.sync.status())
        except (SyncError, MemoryStoreError, OSError) as exc:
            return {"enabled": True, "running": comp.ok, "error": str(exc), **_outbox_depth(self)}
        depth = int(data.get("queued", 0) or 0) + int(data.get("in_flight", 0) or 0)
        return {"running": comp.ok and "sync" in self._threads, "outbox_depth": depth, **data}

    def memory_counts(self) -> dict[str, Any]:
        """Counts from the memory store (entries by category and so on), if it offers them."""
        if self.memory is None:
            return {}
        for attr in ("stats", "counts"):
            fn = getattr(self.memory, attr, None)
            if callable(fn):
                try:
                    return dict(fn())
                except Exception as exc:
                    return {"error": _describe_exc(exc)}
        return {}

    def status(self) -> dict[str, Any]:
        """Everything `edge-agent status` and the runtime_status tool show."""
        self._mark_adapters()
        return {
            "version": __version__,
            "pid": os.getpid(),
            "uptime_s": round(time.time() - self.started_at, 1),
            "state_dir": str(self.state_dir),
            "config": str(self.settings.source) if self.settings.source else "embedded defaults",
            "components": {k: v.as_dict() for k, v in self.components.items()},
            "adapters": [s.describe() for s in self.adapters.values()],
            "datasheets": self.components.get("datasheets", Component(False)).as_dict(),
            "memory": self.memory_counts(),
            "sync": self.sync_status(),
            "watches": _safe(self.watch.status, []) if self.watch is not None else [],
            "watch_captures": self.watch_captures,
            "jobs": dict(self.jobs),
        }


def _safe(fn: Callable[[], Any], default: Any) -> Any:
    try:
        return fn()
    except Exception:
        return default


def _rag_chunks(rag: Any) -> int | None:
    for attr in ("chunk_count", "__len__"):
        fn = getattr(rag, attr, None)
        if callable(fn):
            return _safe(fn, None)
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
