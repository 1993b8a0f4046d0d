"""The two implementations of :class:`~edge_agent.services.core.Resources`.

* :class:`RuntimeResources`: inside a running runtime (the daemon, ``edge-agent mcp`` without a
  daemon, tests): its adapter slots, each serialising its bus, its open memory store, its datasheet
  and pin index. A URL the runtime does not serve is opened for one action, one user at a time.
* :class:`DirectResources`: one command in a process of its own while no daemon serves the state
  directory: it opens only what the action needs (the one adapter, the store) and closes it after.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from edge_agent.errors import AdapterUnavailableError, ComponentUnavailable, EdgeAgentError
from edge_agent.jsontypes import JsonValue
from edge_agent.services.results import JSON, WriteRecord

if TYPE_CHECKING:
    from edge_agent.bus.base import Adapter
    from edge_agent.bus.pool import AdapterSlot
    from edge_agent.config import BoardConfig, Settings
    from edge_agent.memory import MemoryStore
    from edge_agent.memory.response_cache import ResponseCache
    from edge_agent.pins import PinIndex
    from edge_agent.rag import HardwareRag
    from edge_agent.sync import SyncWorker

log = logging.getLogger(__name__)


class ComponentLike(Protocol):
    """One part of the runtime as its status reports it."""

    ok: bool
    detail: str
    extra: dict[str, JsonValue]


class RuntimeLike(Protocol):
    """What the actions use of :class:`edge_agent.runtime.Runtime` (which sits above)."""

    settings: Settings
    state_dir: Path
    memory: MemoryStore | None
    rag: HardwareRag | None
    sync: SyncWorker | None
    #: True for a runtime built over the files only (no adapter opened, no watch run): `edge-agent status`
    #: without a daemon.
    files_only: bool

    @property
    def components(self) -> Mapping[str, ComponentLike]: ...

    def status(self) -> Mapping[str, object]: ...

    def sync_status(self) -> Mapping[str, object]: ...

    @property
    def adapters(self) -> dict[str, AdapterSlot]: ...

    @property
    def pins(self) -> PinIndex: ...

    def slot(self, adapter: str | None = None, board: str | None = None) -> AdapterSlot: ...

    def require_memory(self) -> MemoryStore: ...

    def require_rag(self) -> HardwareRag: ...


def open_memory_store(state: Path, settings: Settings, *, workspace: str | None = None) -> MemoryStore:
    """The memory store as the daemon opens it: with [kumiho] enabled, captures also go to the sync outbox."""
    from edge_agent.memory import MemoryStore

    sink = None
    if settings.kumiho.enabled:
        from edge_agent.sync import OutboxSink

        sink = OutboxSink(settings, state)
    return MemoryStore.open(state, settings, capture_sink=sink, workspace=workspace)


def attach_sim_state(adapter: Adapter, state_dir: Path) -> None:
    """Give a simulated board its state file in the state directory (other adapters are left alone)."""
    attach = getattr(adapter, "attach_state", None)
    if callable(attach) and getattr(adapter, "scheme", "") == "sim":
        attach(state_dir)


def open_url(settings: Settings, state_dir: Path, url: str, name: str | None, board: str | None, *,
             pins: PinIndex | None = None) -> Adapter:
    """Open the adapter at ``url`` under the configured safety policy (``pins``: the index to resolve with).

    The policy's writable_gpio entries are resolved as the adapter opens, with ``pins`` or, without it, the
    configured datasheets' index (built only if an entry is not a board-file name).
    """
    from edge_agent.bus import open_adapter

    def datasheet_pins() -> PinIndex:
        from edge_agent.rag import pin_index_for

        return pin_index_for(settings.datasheet_dir())

    adapter = open_adapter(url, name=name, safety=settings.hardware.safety, board=board,
                           pins=pins if pins is not None else datasheet_pins)
    attach_sim_state(adapter, state_dir)
    if pins is not None and adapter.board:
        adapter.use_pins(pins)
    return adapter


def pick_board(boards: list[BoardConfig], adapter: str | None, board: str | None) -> BoardConfig:
    """The configured board an action means: by adapter name, else by board id, else the first one (the
    same choice, in the same words, as :meth:`edge_agent.runtime.Runtime.slot` makes among its slots)."""
    names = ", ".join(f"{b.adapter_name} ({b.board})" for b in boards) or "(none configured)"
    if not boards:
        raise AdapterUnavailableError(
            "no boards are configured; add a [[peripherals.boards]] entry to edge-agent.toml "
            "(e.g. board = \"nucleo-f401re\", transport = \"sim\")")
    if adapter:
        found = next((b for b in boards if b.adapter_name == adapter), None)
        if found is None:
            raise AdapterUnavailableError(f"no adapter named {adapter!r}; configured: {names}",
                                          adapter=adapter)
        if board and found.board != board.strip().lower():
            raise AdapterUnavailableError(f"adapter {adapter!r} is board {found.board!r}, not {board!r}; "
                                          f"configured: {names}", adapter=adapter)
        return found
    if board:
        matches = [b for b in boards if b.board == board.strip().lower()]
        if not matches:
            raise AdapterUnavailableError(f"no configured adapter is a {board!r} board; configured: {names}")
        if len(matches) > 1:
            raise AdapterUnavailableError(f"several adapters are {board!r} boards "
                                          f"({', '.join(b.adapter_name for b in matches)}); pass `adapter` to pick one")
        return matches[0]
    return boards[0]


class _Base:
    """What both implementations share: the response cache folder, the write record."""

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    @property
    def state_dir(self) -> Path:
        raise NotImplementedError

    def store(self, workspace: str | None = None) -> contextlib.AbstractContextManager[MemoryStore]:
        raise NotImplementedError

    @contextlib.contextmanager
    def _own_store(self, workspace: str | None) -> Iterator[MemoryStore]:
        store = open_memory_store(self.state_dir, self.settings, workspace=workspace)
        try:
            yield store
        finally:
            store.close()

    @contextlib.contextmanager
    def _own_cache(self, workspace: str | None) -> Iterator[ResponseCache]:
        from edge_agent.memory.response_cache import ResponseCache
        from edge_agent.memory.store import effective_workspace, memory_dir

        cache = ResponseCache.open(memory_dir(self.state_dir, effective_workspace(self.settings, workspace)),
                                   self.settings)
        try:
            yield cache
        finally:
            cache.close()

    def record_write(self, action: str, slot: AdapterSlot, title: str, args: JSON) -> WriteRecord | None:
        if not self.settings.server.record_hardware_writes or self.settings.memory.backend == "none":
            return None
        from edge_agent.memory import Capture

        text = json.dumps(args)
        cap = Capture(
            type="command_execution", title=title, importance=0.2,
            content=f"{action} on adapter {slot.name} ({slot.url}, board {slot.board}): {text}",
            tags=("hardware-write", action), metadata={"tool": action, "adapter": slot.name, "adapter_url": slot.url,
                                                      "board": slot.board or "", "args": text})
        try:
            with self.store(None) as store:
                stored = store.captures.record_capture(cap)
        except EdgeAgentError as exc:  # the write happened; say the record did not, do not fail the call
            log.warning("%s: the write succeeded but its capture was not stored: %s", action, exc)
            return WriteRecord(stored=False, error=str(exc))
        return WriteRecord(stored=True, capture_id=stored.id, entry_id=stored.entry_id)


class RuntimeResources(_Base):
    """Actions inside a runtime: its adapter slots (one transaction at a time each) and its store."""

    def __init__(self, runtime: RuntimeLike) -> None:
        self.runtime = runtime
        self._transient: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def state_dir(self) -> Path:
        return self.runtime.state_dir

    @property
    def pins(self) -> PinIndex:
        return self.runtime.pins

    @contextlib.contextmanager
    def hardware(self, adapter: str | None = None, board: str | None = None, url: str | None = None, *,
                 pins: bool = False) -> Iterator[AdapterSlot]:
        from edge_agent.bus.pool import AdapterSlot

        rt = self.runtime
        if url and not adapter:
            served = next((s for s in rt.adapters.values() if s.url == url), None)
            if served is None:
                # A URL the runtime does not serve: opened for this action only, one user at a time.
                with self._guard:
                    lock = self._transient.setdefault(url, threading.Lock())
                with lock, open_url(self.settings, self.state_dir, url, None, board, pins=rt.pins) as opened:
                    yield AdapterSlot.holding(url, opened)
                return
            adapter = served.name
            board = None
        slot = rt.slot(adapter, board)
        with slot.lock:
            slot.require()
            yield slot

    def _held(self, workspace: str | None) -> MemoryStore | None:
        """The runtime's open store when ``workspace`` resolves to its workspace, else None."""
        from edge_agent.memory.store import effective_workspace

        memory = self.runtime.memory
        if memory is not None and effective_workspace(self.settings, workspace) == memory.workspace:
            return memory
        return None

    @contextlib.contextmanager
    def store(self, workspace: str | None = None) -> Iterator[MemoryStore]:
        if (memory := self._held(workspace)) is not None:
            yield memory
            return
        if self.runtime.memory is None and workspace is None:
            self.runtime.require_memory()  # raises with the reason the store is unavailable
        with self._own_store(workspace) as store:
            yield store

    @contextlib.contextmanager
    def cache(self, workspace: str | None = None) -> Iterator[ResponseCache]:
        """The open store's response cache (one connection, one hot tier), else one opened for this call."""
        if (memory := self._held(workspace)) is not None:
            try:
                shared = memory.response_cache
            except EdgeAgentError:
                shared = None
            if shared is not None:
                yield shared
                return
        with self._own_cache(workspace) as cache:
            yield cache

    @contextlib.contextmanager
    def datasheets(self) -> Iterator[HardwareRag]:
        yield self.runtime.require_rag()  # the runtime's one index, rebuilt when the files change

    def record_write(self, action: str, slot: AdapterSlot, title: str, args: JSON) -> WriteRecord | None:
        if self.runtime.memory is None and self.settings.server.record_hardware_writes:
            return None  # the store is not running: nothing to record into (runtime_status says why)
        return super().record_write(action, slot, title, args)


class DirectResources(_Base):
    """One command in this process: opens what the action needs and closes it afterwards.

    With ``keep``, a store, a response cache and the datasheet index are opened on first use and kept until
    :meth:`close` (a process that runs many actions, such as the agent's chat, without a daemon). An index
    that cannot be opened stays unavailable for the life of the object, with the same reason each time.
    """

    def __init__(self, settings: Settings, state_dir: Path, *, keep: bool = False) -> None:
        self._settings, self._state_dir = settings, Path(state_dir)
        self._pins: PinIndex | None = None
        self._keep = keep
        self._kept_lock = threading.Lock()
        self._stores: dict[str | None, MemoryStore] = {}
        self._caches: dict[str | None, ResponseCache] = {}
        self._rag: HardwareRag | ComponentUnavailable | None = None

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def state_dir(self) -> Path:
        return self._state_dir

    @property
    def runtime(self) -> RuntimeLike | None:
        return None  # a command in its own process: no runtime runs here

    @property
    def pins(self) -> PinIndex:
        """Board files plus the pin names of the configured datasheets (built on first use)."""
        if self._pins is None:
            from edge_agent.rag import pin_index_for

            self._pins = pin_index_for(self.settings.datasheet_dir())
        return self._pins

    def choose(self, adapter: str | None, board: str | None, url: str | None) -> tuple[str, str | None, str | None]:
        """(url, adapter name, board) of what the action means."""
        if url and not adapter:
            return url, None, board
        entry = pick_board(self.settings.peripherals.boards, adapter, board)
        chosen = entry.adapter_url()
        return chosen, entry.adapter_name, None if chosen.startswith("sim://") else entry.board

    @contextlib.contextmanager
    def hardware(self, adapter: str | None = None, board: str | None = None, url: str | None = None, *,
                 pins: bool = False) -> Iterator[AdapterSlot]:
        from edge_agent.bus.pool import AdapterSlot

        url, name, board = self.choose(adapter, board, url)
        with open_url(self.settings, self.state_dir, url, name, board, pins=self.pins if pins else None) as opened:
            yield AdapterSlot.holding(name or url, opened)

    def store(self, workspace: str | None = None) -> contextlib.AbstractContextManager[MemoryStore]:
        if not self._keep:
            return self._own_store(workspace)
        with self._kept_lock:
            kept = self._stores.get(workspace)
            if kept is None:
                kept = self._stores[workspace] = open_memory_store(self.state_dir, self.settings,
                                                                   workspace=workspace)
        return contextlib.nullcontext(kept)

    def cache(self, workspace: str | None = None) -> contextlib.AbstractContextManager[ResponseCache]:
        if not self._keep:
            return self._own_cache(workspace)
        from edge_agent.memory.response_cache import ResponseCache
        from edge_agent.memory.store import effective_workspace, memory_dir

        if self.settings.memory.backend != "none":  # the kept store's cache: one connection, one hot tier
            with self.store(workspace) as store:
                try:
                    shared = store.response_cache
                except EdgeAgentError:
                    shared = None
            if shared is not None:
                return contextlib.nullcontext(shared)
        with self._kept_lock:
            kept = self._caches.get(workspace)
            if kept is None:
                folder = memory_dir(self.state_dir, effective_workspace(self.settings, workspace))
                kept = self._caches[workspace] = ResponseCache.open(folder, self.settings)
        return contextlib.nullcontext(kept)

    def _load_rag(self) -> HardwareRag:
        from edge_agent.rag import HardwareRag

        try:
            return HardwareRag.load(self.settings.datasheet_dir(), index_dir=self.state_dir / "rag",
                                    compact=self.settings.agent.compact_context)
        except (EdgeAgentError, OSError) as exc:
            raise ComponentUnavailable("the datasheet index", str(exc)) from exc

    @contextlib.contextmanager
    def datasheets(self) -> Iterator[HardwareRag]:
        if self._keep:
            with self._kept_lock:
                if self._rag is None:
                    try:
                        self._rag = self._load_rag()
                    except ComponentUnavailable as exc:
                        log.warning("datasheets left out: %s", exc)
                        self._rag = exc
            if isinstance(self._rag, ComponentUnavailable):
                raise self._rag
            yield self._rag
            return
        rag = self._load_rag()
        try:
            yield rag
        finally:
            rag.close()

    def close(self) -> None:
        """Close what ``keep`` kept open (nothing otherwise)."""
        with self._kept_lock:
            opened: list[MemoryStore | ResponseCache | HardwareRag] = [*self._stores.values(), *self._caches.values()]
            if self._rag is not None and not isinstance(self._rag, ComponentUnavailable):
                opened.append(self._rag)
            self._stores, self._caches, self._rag = {}, {}, None
        for part in opened:
            try:
                part.close()
            except (EdgeAgentError, OSError) as exc:
                log.warning("closing %s: %s", type(part).__name__, exc)


__all__ = ["DirectResources", "RuntimeLike", "RuntimeResources", "attach_sim_state", "open_memory_store",
           "open_url", "pick_board"]
