"""The Runtime: every component built from one Settings and a state directory, and their lifecycle.

It holds the parts and their health; the work is done by its collaborators: :mod:`.build` builds the
components, :mod:`.pool` owns the adapter slots, :mod:`.jobs` runs the background threads and
:mod:`.status` reports. The runtime itself starts, reloads and closes them in the right order.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from edge_agent.bus.pool import AdapterSlot
from edge_agent.config import BoardConfig, Settings
from edge_agent.jsontypes import JsonObject, JsonValue
from edge_agent.paths import private_dir
from edge_agent.pins import PinIndex, default_index
from edge_agent.runtime import status as _status
from edge_agent.runtime.build import build_memory, build_rag, build_sync, build_watches
from edge_agent.runtime.components import Component, ComponentUnavailable, datasheet_fingerprint, describe_exc
from edge_agent.runtime.jobs import BackgroundJobs
from edge_agent.runtime.pool import AdapterPool, check_allow_lists

if TYPE_CHECKING:  # built lazily: each needs its own extra or is costly to import
    from edge_agent.memory import Capture, MemoryStore
    from edge_agent.rag import HardwareRag
    from edge_agent.sync import SyncWorker
    from edge_agent.watch import WatchRunner

log = logging.getLogger(__name__)


class Runtime:
    """Everything the MCP tools and background jobs work on, built from one Settings."""

    def __init__(self, settings: Settings, state_dir: Path, *, files_only: bool = False) -> None:
        self.settings = settings
        self.state_dir = Path(state_dir)
        self.files_only = files_only
        self.started_at = time.time()
        self.components: dict[str, Component] = {}
        self.pool = AdapterPool(self.state_dir, lambda: self.pins)
        # Components: None when off or failed (components[name] says why).
        self.rag: HardwareRag | None = None
        self._pins: PinIndex | None = None  # set from the datasheet index when it loads
        self.memory: MemoryStore | None = None
        self.sync: SyncWorker | None = None
        self.watch: WatchRunner | None = None
        self.rag_fingerprint = ""  # of the datasheet files the index was last built from
        self.background = BackgroundJobs(lambda name, why: self.mark(name, False, why))
        self._reload_lock = threading.Lock()
        self._closed = False
        self.watch_captures = 0
        self.watch_captured = threading.Event()  # set after each stored watch capture

    # construction --------------------------------------------------------------------------------

    @classmethod
    def build(cls, settings: Settings, state_dir: Path, *, files_only: bool = False) -> Runtime:
        """Build every component; failures are recorded, never raised (the rest keeps serving), except a
        ``writable_gpio`` entry that does not name one pin: that ConfigError stops the start.

        ``files_only``: open no adapter and run no watch (the configuration still declares them), for a
        report read from the state directory while no daemon runs (a serial port may be another process's).
        """
        rt = cls(settings, state_dir, files_only=files_only)
        private_dir(rt.state_dir)
        build_rag(rt)
        boards = [] if files_only else _boards(settings)
        check_allow_lists(boards, settings.hardware.safety, rt.pins)
        rt.pool.open_all(boards, settings.hardware.safety)
        rt.components["adapters"] = rt.pool.health()
        build_memory(rt)
        build_sync(rt)
        if not files_only:
            build_watches(rt)
        return rt

    def mark(self, name: str, ok: bool, detail: str = "", **extra: JsonValue) -> None:
        """Record a component's health (logged when it is not ok)."""
        self.components[name] = Component(ok, detail, dict(extra))
        if not ok:
            log.warning("%s unavailable: %s", name, detail)
        elif detail:
            log.info("%s: %s", name, detail)

    @property
    def adapters(self) -> dict[str, AdapterSlot]:
        """The adapter slots by adapter name, in configuration order."""
        return self.pool.slots

    @property
    def jobs(self) -> dict[str, JsonObject]:
        """The last outcome of each periodic job (reindex, memory_hygiene, response_cache_prune)."""
        return self.background.results

    @property
    def pins(self) -> PinIndex:
        """The one pin index every resolver uses: the datasheet index's, else the board files and bundled datasheets."""
        return self._pins if self._pins is not None else default_index()

    def use_pins(self, index: PinIndex) -> None:
        """Make `index` the pin index of the runtime and of every open adapter."""
        self._pins = index
        self.pool.use_pins(index)

    def on_watch_capture(self, capture: Capture) -> None:
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
        return self.pool.select(adapter, board)

    @contextlib.contextmanager
    def hardware(self, adapter: str | None = None, board: str | None = None) -> Iterator[AdapterSlot]:
        """Hold one adapter for a bus transaction (waits for one already in flight)."""
        with self.pool.hardware(adapter, board) as slot:
            yield slot

    # background jobs -----------------------------------------------------------------------------

    def start_background(self, stop: threading.Event) -> None:
        """Start the sync worker, watches and the periodic jobs thread; `stop` ends them all."""
        self.background.stop = stop
        if self.sync is not None:
            self.background.spawn("sync", self.sync.run)
        if self.watch is not None:
            self.background.spawn("watch", self.watch.run)
        self.background.spawn("jobs", self.background.periodic(self.reindex_if_changed, self.run_hygiene))

    def run_hygiene(self) -> None:
        """Memory hygiene (archive/purge) and response-cache pruning, when the store offers them."""
        store = self.memory
        if store is None:
            return
        if self.settings.memory.hygiene_enabled:
            self.background.run("memory_hygiene", store.maintenance.hygiene)
        cache = store.response_cache
        if cache is not None:
            self.background.run("response_cache_prune", cache.prune)

    def reindex_if_changed(self) -> bool:
        """Rebuild the datasheet index when files in the datasheet directory changed."""
        directory = self.settings.datasheet_dir()
        if datasheet_fingerprint(directory) == self.rag_fingerprint:
            return False
        log.info("datasheet files changed in %s; re-indexing", directory)
        self.background.run("reindex", lambda: build_rag(self))
        return True

    # reload / close ------------------------------------------------------------------------------

    def reload(self, new: Settings) -> list[str]:
        """Apply a new configuration; returns a list of what changed."""
        with self._reload_lock:
            old, changes = self.settings, []
            self.settings = new
            if (old.datasheet_dir() != new.datasheet_dir()
                    or old.agent.compact_context != new.agent.compact_context):
                build_rag(self)
                changes.append("datasheet index rebuilt")
            changes += self.pool.apply(_boards(old), _boards(new), new.hardware.safety,
                                       safety_changed=old.hardware.safety != new.hardware.safety)
            self.components["adapters"] = self.pool.health()
            running = self.background.started
            if (old.memory, old.kumiho, old.workspace) != (new.memory, new.kumiho, new.workspace):
                self.background.halt("sync")
                self._close_sync()
                self._close_memory()
                build_memory(self)
                build_sync(self)
                if self.sync is not None and running:
                    self.background.spawn("sync", self.sync.run)
                changes.append("memory and sync reopened")
            if changes or old.watch != new.watch:
                # Watches hold adapter slots and the store: rebuild them on any of those changes.
                self.background.halt("watch")
                if self.watch is not None:
                    with contextlib.suppress(Exception):
                        self.watch.close()
                self.watch = None
                build_watches(self)
                if self.watch is not None and running:
                    self.background.spawn("watch", self.watch.run)
                if old.watch != new.watch:
                    changes.append("watches restarted")
            return changes

    def _close_sync(self) -> None:
        sync, self.sync = self.sync, None
        if sync is not None and hasattr(sync, "close"):
            try:
                sync.close()
            except Exception as exc:
                log.warning("closing the sync worker: %s", describe_exc(exc))

    def _close_memory(self) -> None:
        store, self.memory = self.memory, None
        if store is not None and hasattr(store, "close"):
            try:
                store.close()
            except Exception as exc:
                log.warning("closing the memory store: %s", describe_exc(exc))

    def close(self) -> None:
        """Finish in-flight bus transactions, close adapters, stop jobs, commit and close the store."""
        if self._closed:
            return
        self._closed = True
        self.background.signal_all()
        self.pool.close_all()
        self.background.halt_all()
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
        return _status.summary(self)

    def sync_status(self) -> JsonObject:
        """The sync worker's status, or why sync is not running."""
        return _status.sync_status(self)

    def memory_counts(self) -> JsonObject:
        """Counts from the memory store (entries by category and so on), if it offers them."""
        return _status.memory_counts(self)

    def status(self) -> JsonObject:
        """Everything `edge-agent status` and the runtime_status tool show."""
        return _status.status(self)


def _boards(settings: Settings) -> list[BoardConfig]:
    return settings.peripherals.boards if settings.peripherals.enabled else []
