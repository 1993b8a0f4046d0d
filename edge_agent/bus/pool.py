"""The adapter pool: each named adapter, why it is missing if it is, and the lock serialising its bus.

The runtime opens one slot per configured board; the watch runner samples through the same slots
(or wraps an adapter it was handed in one), so every user of a bus takes the same lock and sees the
same open or closed state.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from edge_agent.bus.base import Adapter
from edge_agent.errors import AdapterUnavailableError, EdgeAgentError
from edge_agent.jsontypes import JsonObject

log = logging.getLogger(__name__)


@dataclass
class AdapterSlot:
    """One named adapter: the open adapter (or why it is missing) and the lock serialising its bus.

    A slot reopened by a configuration reload gets its new adapter in place, so a holder reads
    ``slot.adapter`` at each use rather than keeping the adapter itself.
    """

    name: str
    url: str
    board: str | None = None
    adapter: Adapter | None = None
    error: str = ""
    lock: threading.RLock = field(default_factory=threading.RLock)
    closed: bool = False
    #: Opens the adapter again (the runtime sets it). A board that was missing at start-up (unplugged,
    #: or its USB serial device not enumerated yet at boot) is retried when next used, at most every
    #: ``retry_s`` seconds, so plugging it in needs no reload.
    opener: Callable[[], Adapter] | None = None
    retry_s: float = 5.0
    _next_try: float = 0.0

    @classmethod
    def holding(cls, name: str, adapter: Adapter | None) -> AdapterSlot:
        """A slot around an adapter opened elsewhere (a test, a CLI run); None is a missing adapter."""
        if adapter is None:
            return cls(name=name, url=name)
        return cls(name=name, url=str(adapter.url) or name, board=adapter.board, adapter=adapter)

    def usable(self) -> str:
        """'' when the adapter can be used now, else why not."""
        if self.closed:
            return "the runtime is shutting down"
        if self.adapter is None:
            self._try_reopen()
        if self.adapter is None:
            return self.error or "adapter not open"
        if self.adapter.closed:
            return "adapter is closed"
        return ""

    def require(self) -> Adapter:
        """The open adapter; AdapterUnavailableError saying why when the slot is closed or empty.

        Call it with :attr:`lock` held, so the answer stays true for the transaction that follows.
        """
        if self.closed:
            raise AdapterUnavailableError(
                f"adapter {self.name} was closed (the service is stopping or reloaded its configuration); "
                "retry in a moment, and check runtime_status if it persists", adapter=self.url)
        if self.adapter is None:
            self._try_reopen()
        if self.adapter is None:
            raise AdapterUnavailableError(
                f"adapter {self.name} ({self.url or 'no URL'}) is not available: {self.error}; fix the "
                "board connection (the board is opened again when next used) or its [[peripherals.boards]] "
                "entry (then send SIGHUP or restart)",
                adapter=self.url)
        return self.adapter

    def _try_reopen(self) -> None:
        if self.opener is None or self.closed or time.monotonic() < self._next_try:
            return
        with self.lock:
            if self.adapter is not None or self.closed:
                return
            self._next_try = time.monotonic() + self.retry_s
            try:
                self.adapter = self.opener()
            except Exception as exc:  # any failure keeps the slot empty, with the newest reason
                self.error = str(exc) if isinstance(exc, EdgeAgentError) else f"{type(exc).__name__}: {exc}"
                return
            self.error = ""
        log.info("adapter %s (%s) is available now", self.name, self.url)

    def describe(self) -> JsonObject:
        """Name, URL, board and the adapter's health (or why it is missing)."""
        data: JsonObject = {"name": self.name, "url": self.url, "board": self.board}
        if self.adapter is None:
            data.update(ok=False, detail=self.error)
        else:
            try:
                data.update(self.adapter.health())
            except EdgeAgentError as exc:
                data.update(ok=False, detail=str(exc))
        data["name"], data["url"] = self.name, self.url
        return data


__all__ = ["AdapterSlot"]
