"""The adapter pool: one slot per configured board, opened at build, picked per call, closed on reload.

Every bus transaction runs under its slot's lock, so a shutdown or reload waits for the transaction in
flight and never closes a device under it. A board missing at start-up keeps its slot (with the
reason) and is opened again when next used.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from edge_agent.bus.pool import AdapterSlot
from edge_agent.config import BoardConfig, SafetyConfig
from edge_agent.errors import AdapterUnavailableError, ConfigError
from edge_agent.pins import PinIndex
from edge_agent.runtime.components import Component, describe_exc

if TYPE_CHECKING:
    from edge_agent.bus.base import Adapter

log = logging.getLogger(__name__)


class AdapterPool:
    """The adapter slots by adapter name, in configuration order."""

    def __init__(self, state_dir: Path, pins: Callable[[], PinIndex]) -> None:
        self.state_dir = state_dir
        self._pins = pins  # the runtime's current pin index, read when an adapter opens
        self.slots: dict[str, AdapterSlot] = {}

    def open_slot(self, entry: BoardConfig, safety: SafetyConfig) -> AdapterSlot:
        """A slot for one ``[[peripherals.boards]]`` entry; an adapter that fails to open leaves the reason."""
        name = entry.adapter_name
        try:
            url = entry.adapter_url()
        except ConfigError as exc:
            return AdapterSlot(name, "", entry.board, error=str(exc))
        slot = AdapterSlot(name, url, entry.board)

        def opener() -> Adapter:
            from edge_agent.bus import open_adapter

            # writable_gpio is resolved here, once, with the index the runtime uses now
            adapter = open_adapter(url, name=name, board=entry.board, safety=safety, pins=self._pins())
            adapter.use_pins(self._pins())
            attach = getattr(adapter, "attach_state", None)
            if callable(attach):  # a simulated board continues where the last process left it
                attach(self.state_dir)
            return adapter

        try:
            slot.adapter = opener()
        except Exception as exc:
            slot.error = describe_exc(exc)
            log.warning("adapter %s (%s) unavailable: %s", name, url, slot.error)
        slot.opener = opener
        return slot

    def open_all(self, entries: list[BoardConfig], safety: SafetyConfig) -> None:
        for entry in entries:
            slot = self.open_slot(entry, safety)
            self.slots[slot.name] = slot

    def apply(self, old: list[BoardConfig], new: list[BoardConfig], safety: SafetyConfig, *,
              safety_changed: bool) -> list[str]:
        """Close the slots whose entry changed or went, open the new ones; returns what changed."""
        old_entries = {b.adapter_name: b for b in old}
        new_entries = {b.adapter_name: b for b in new}
        changes = []
        for name in list(self.slots):
            if name not in new_entries or new_entries[name] != old_entries.get(name) or safety_changed:
                self.close_slot(self.slots.pop(name))
                changes.append(f"adapter {name} closed")
        for name, entry in new_entries.items():
            if name not in self.slots:
                self.slots[name] = self.open_slot(entry, safety)
                changes.append(f"adapter {name} opened")
        return changes

    def health(self) -> Component:
        """Recounted at each status: a board missing at start-up opens when it is next used."""
        ok = sum(1 for s in self.slots.values() if s.adapter is not None)
        return Component(ok == len(self.slots), f"{ok}/{len(self.slots)} open")

    def use_pins(self, index: PinIndex) -> None:
        """Give every open adapter the runtime's pin index."""
        for slot in list(self.slots.values()):
            with slot.lock:
                if slot.adapter is not None:
                    slot.adapter.use_pins(index)

    def select(self, adapter: str | None = None, board: str | None = None) -> AdapterSlot:
        """Pick a configured adapter by adapter name or board id; with neither, the only (or first) one."""
        if not self.slots:
            raise AdapterUnavailableError(
                "no boards are configured; add a [[peripherals.boards]] entry to edge-agent.toml "
                "(e.g. board = \"nucleo-f401re\", transport = \"sim\")")
        names = ", ".join(f"{s.name} ({s.board})" for s in self.slots.values())
        if adapter:
            slot = self.slots.get(adapter) or next(
                (s for s in self.slots.values() if s.url == adapter), None)
            if slot is None:
                raise AdapterUnavailableError(f"no adapter named {adapter!r}; configured: {names}",
                                              adapter=adapter)
            if board and slot.board != board.lower():
                raise AdapterUnavailableError(
                    f"adapter {adapter!r} is board {slot.board!r}, not {board!r}; configured: {names}",
                    adapter=adapter)
        elif board:
            matches = [s for s in self.slots.values() if s.board == board.strip().lower()]
            if not matches:
                raise AdapterUnavailableError(f"no configured adapter is a {board!r} board; configured: {names}")
            if len(matches) > 1:
                raise AdapterUnavailableError(
                    f"several adapters are {board!r} boards ({', '.join(s.name for s in matches)}); "
                    "pass `adapter` to pick one")
            slot = matches[0]
        else:
            slot = next(iter(self.slots.values()))
        return slot

    @contextlib.contextmanager
    def hardware(self, adapter: str | None = None, board: str | None = None) -> Iterator[AdapterSlot]:
        """Hold one adapter for a bus transaction (waits for one already in flight)."""
        slot = self.select(adapter, board)
        with slot.lock:
            slot.require()
            yield slot

    def close_slot(self, slot: AdapterSlot) -> None:
        with slot.lock:  # waits for the transaction in flight
            slot.closed = True
            if slot.adapter is not None:
                try:
                    slot.adapter.close()
                except Exception as exc:
                    log.warning("closing adapter %s: %s", slot.name, describe_exc(exc))

    def close_all(self) -> None:
        for slot in list(self.slots.values()):
            self.close_slot(slot)


def check_allow_lists(entries: list[BoardConfig], safety: SafetyConfig, pins: PinIndex) -> None:
    """Resolve every writable_gpio entry before anything opens: one that names no pin, or several, stops the
    start with a ConfigError (a policy must not depend on the order datasheets are read in)."""
    from edge_agent.bus.gpio_grants import resolve_boards

    boards = []
    for entry in entries:
        try:
            boards.append((entry.adapter_name, entry.adapter_url(), entry.board))
        except ConfigError:
            continue  # a malformed entry is reported by its slot
    resolve_boards(safety, boards, pins)
