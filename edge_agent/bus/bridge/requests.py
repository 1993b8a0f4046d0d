"""The link's request table: request ids, replies matched to requests in flight, and flow control.

A request takes an id and a share of the in-flight window when it is sent and gives both back when
its caller has its answer (or its deadline passed). The window bounds requests and bytes unanswered
at once, so a burst never overruns the firmware's receive ring. Lines that answer nobody count
against every waiting request; one that has waited through too many is failed as a noisy line.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from edge_agent.bus.bridge.protocol import Reply
from edge_agent.errors import BusTimeoutError, ProtocolError

#: Requests in flight at once. The firmware serves lines one at a time from a 1024-byte receive
#: ring (see RX_BUDGET for the byte limit).
DEFAULT_WINDOW = 8
#: Request bytes allowed unanswered at once: three quarters of the firmware's 1024-byte receive
#: ring, so eight small requests pipeline freely but three 128-byte SPI payloads do not pile up.
RX_BUDGET = 768
#: Lines that are not the awaited reply tolerated while one request waits (noise bound).
DEFAULT_MAX_STRAY = 32


@dataclass
class Pending:
    """One request in flight: what was asked, and its reply or error once the reader has it."""

    id: str
    cmd: str
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None
    error: Exception | None = None
    strays: int = 0
    nbytes: int = 0
    released: bool = False


@dataclass
class LinkStats:
    """Counters reported by ``health()``."""

    requests: int = 0
    replies: int = 0
    timeouts: int = 0
    garbage_lines: int = 0
    stray_replies: int = 0
    late_replies: int = 0
    error_frames_without_id: int = 0
    overlong_lines: int = 0
    resets: int = 0
    disconnects: int = 0
    reconnects: int = 0
    cut_off_lines: int = 0
    reader_errors: int = 0
    reader_restarts: int = 0


class RequestTable:
    """Requests in flight by id, under the link's lock (which also guards ``stats``). Thread-safe."""

    def __init__(self, lock: threading.Lock, stats: LinkStats, *, adapter: str, window: int = DEFAULT_WINDOW,
                 max_stray: int = DEFAULT_MAX_STRAY) -> None:
        self.lock = lock
        self.stats = stats
        self.adapter = adapter
        self.window = window
        self.max_stray = max_stray
        self.pending: dict[str, Pending] = {}
        self._next_id = 1
        self._flow = threading.Condition(lock)  # guards the two counters below
        self._in_flight = 0
        self._bytes_in_flight = 0

    def add(self, cmd: str, encode: Callable[[str], bytes], *, deadline: float) -> tuple[Pending, bytes]:
        """Take the next id, encode the request line with it and wait for room in the window.

        Returns the pending entry (registered, its share of the window taken) and the line to send;
        BusTimeoutError when no room frees up before ``deadline``. If ``encode`` raises, nothing is taken.
        """
        with self._flow:
            rid = str(self._next_id)
            self._next_id += 1
            line = encode(rid)
            n = len(line)

            # One request alone is always allowed, however large.
            def room() -> bool:
                return self._in_flight == 0 or (self._in_flight < self.window
                                                 and self._bytes_in_flight + n <= RX_BUDGET)

            if not self._flow.wait_for(room, timeout=max(0.0, deadline - time.monotonic())):
                raise BusTimeoutError(
                    f"{self.adapter}: {cmd}: {self._in_flight} earlier requests ({self._bytes_in_flight} bytes) "
                    "are still unanswered", adapter=self.adapter)
            self._in_flight += 1
            self._bytes_in_flight += n
            pending = Pending(rid, cmd, nbytes=n)
            self.pending[rid] = pending
            self.stats.requests += 1
        return pending, line

    def release(self, pending: Pending) -> None:
        """Give back the request's share of the window (once; later calls do nothing)."""
        with self._flow:
            if pending.released:
                return
            pending.released = True
            self._in_flight -= 1
            self._bytes_in_flight -= pending.nbytes
            self._flow.notify_all()

    def drop(self, pending: Pending) -> None:
        """Forget a request that was never sent (its write failed)."""
        with self._flow:
            self.pending.pop(pending.id, None)
        self.release(pending)

    def expire(self, pending: Pending) -> bool:
        """Forget a request whose deadline passed; False when its answer arrived meanwhile."""
        with self._flow:
            timed_out = self.pending.pop(pending.id, None) is not None
            if timed_out:
                self.stats.timeouts += 1
        return timed_out

    def take(self, rid: str | None) -> Pending | None:
        """Remove and return the request with this id, if one is waiting."""
        with self.lock:
            return self.pending.pop(rid, None) if rid is not None else None

    def answer(self, frame: Reply) -> Pending | None:
        """Hand a reply to the request it answers; None (counted) when nobody waits for it."""
        key = None if frame.id is None else str(frame.id)
        with self.lock:
            pending = self.pending.pop(key, None) if key is not None else None
            if pending is not None:
                self.stats.replies += 1
            elif frame.id is None:
                self.stats.error_frames_without_id += 1
            elif key is not None and key.isascii() and key.isdigit() and int(key) < self._next_id:
                self.stats.late_replies += 1  # its request timed out, or a duplicate reply
            else:
                self.stats.stray_replies += 1
        if pending is not None:
            pending.reply = frame
            pending.done.set()
        return pending

    def note_stray(self) -> None:
        """Count a skipped line against every waiting request; fail those past the noise bound."""
        failed: list[Pending] = []
        with self.lock:
            for p in list(self.pending.values()):
                p.strays += 1
                if p.strays > self.max_stray:
                    failed.append(self.pending.pop(p.id))
        for p in failed:
            p.error = ProtocolError(
                f"{self.adapter}: {p.cmd}: more than {self.max_stray} unrelated or garbled lines arrived while "
                "waiting for the reply; the line is too noisy (check the cable, baud rate, and that nothing else "
                "writes to the port)", adapter=self.adapter)
            p.done.set()

    def fail_all(self, make_error: Callable[[Pending], Exception]) -> None:
        """Fail every request in flight with the error ``make_error`` builds for it."""
        with self.lock:
            pending = list(self.pending.values())
            self.pending.clear()
        for p in pending:
            p.error = make_error(p)
            p.done.set()

    def __len__(self) -> int:
        with self.lock:
            return len(self.pending)
