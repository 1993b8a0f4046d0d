"""The link's reader: one thread owns the port's input, frames it into lines and dispatches each one.

Replies go to the request table; a boot banner fails every request in flight (the board reset); noise,
events and replies nobody waits for are counted and skipped. Nothing a device sends can stop the
reader: a line that does not decode, or whose handling fails, counts as one garbled line. When the
port is lost the reader reopens it under the link's reconnect policy. Should the thread still end or
hang (a driver bug, a read that never returns), :meth:`LineReader.check` notices and starts a fresh one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from edge_agent.bus.bridge.protocol import (
    MAX_REPLY_LINE,
    Event,
    FirmwareResetError,
    Garbage,
    Reply,
    decode_line,
    find_frame_start,
    fragment_id,
)
from edge_agent.errors import ProtocolError

if TYPE_CHECKING:
    from edge_agent.bus.bridge.link import Link

log = logging.getLogger(__name__)

#: A reader that has not come round its loop for this long is stalled. One pass takes at most the
#: port's 50 ms read timeout, or the reconnect backoff plus an open() while the board is away.
DEFAULT_STALL_S = 10.0


class LineReader:
    """The reader thread of one link (replaced by a fresh one when it dies or stalls)."""

    def __init__(self, link: Link, *, stall_s: float = DEFAULT_STALL_S) -> None:
        self.link = link
        self.stall_s = stall_s
        self.thread: threading.Thread | None = None
        self._gen = 0  # a reader whose generation is not current leaves its loop
        self._beat = time.monotonic()
        self._error = ""
        self._restart_lock = threading.Lock()

    @property
    def generation(self) -> int:
        return self._gen

    def start(self) -> None:
        """Start a reader thread; one already running leaves its loop at its next pass."""
        link = self.link
        with link._lock:
            self._gen += 1
            gen = self._gen
            self._beat = time.monotonic()
            self._error = ""
        self.thread = threading.Thread(target=self._loop, args=(gen,), name=f"bridge-reader {link.device}",
                                       daemon=True)
        self.thread.start()

    def join(self, timeout: float) -> None:
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=timeout)

    # --- health -----------------------------------------------------------------------------

    def state(self) -> str:
        """``running``, ``stopped`` (link closed), ``dead: <why>``, ``stalled for N s`` or ``not started``."""
        link, thread = self.link, self.thread
        if link.closed or (link._port is None and not link.reconnect.enabled
                           and thread is not None and not thread.is_alive()):
            return "stopped"  # closed, or the port went away with reconnect off
        if thread is None:
            return "not started"
        if not thread.is_alive():
            return f"dead: {self._error or 'the reader thread ended'}"
        idle = time.monotonic() - self._beat
        if idle > self.stall_s:
            return f"stalled for {idle:.0f} s"
        return "running"

    def check(self) -> str:
        """The reader's state; a dead or stalled reader is replaced and the port reopened.

        Returns the state found (before any restart). Without reconnect the link is marked
        disconnected instead, so requests fail at once rather than time out.
        """
        link = self.link
        state = self.state()
        if state in ("running", "stopped", "not started"):
            return state
        with self._restart_lock:
            if self.state() in ("running", "stopped"):
                return state  # another caller restarted it meanwhile
            log.warning("%s: reader %s; reopening %s", link.adapter, state, link.device)
            link._lost(RuntimeError(f"reader {state}"))
            if link.reconnect.enabled and not link.closed:
                with link._lock:
                    link.stats.reader_restarts += 1
                self.start()  # starts with no port: it reopens through the reconnect path
        return state

    # --- the loop ---------------------------------------------------------------------------

    def _loop(self, gen: int) -> None:
        try:
            self._read_lines(gen)
        except BaseException as exc:  # noqa: BLE001 - recorded for health(); the thread must not vanish silently
            self._error = f"{type(exc).__name__}: {exc}"
            log.error("%s: reader stopped: %s", self.link.adapter, self._error)

    def _current(self, gen: int) -> bool:
        return gen == self._gen and not self.link.closed

    def _read_lines(self, gen: int) -> None:
        link = self.link
        buf = bytearray()
        discarding = False
        delays: Iterator[float] | None = None  # the backoff of the current outage
        while self._current(gen):
            self._beat = time.monotonic()
            port = link._port
            if port is None:
                if not link.reconnect.enabled:
                    return
                delays = delays or link.reconnect.delays()
                if link._closed.wait(next(delays)) or not self._current(gen):
                    return
                link._try_reopen(gen)
                buf.clear()
                discarding = False
                continue
            delays = None
            try:
                data = port.read(max(1, min(port.in_waiting, 4096)))
            except Exception as exc:  # noqa: BLE001 - any failure of the port is a lost port
                # TypeError/AttributeError: pyserial's posix port raced with close() (fd gone).
                if not self._current(gen):
                    return
                link._disconnected(port, exc)
                continue
            if not data or not self._current(gen):
                continue
            start = 0
            while True:
                nl = data.find(b"\n", start)
                chunk = data[start:] if nl < 0 else data[start:nl]
                if not discarding:
                    buf += chunk
                    if len(buf) > MAX_REPLY_LINE:
                        # No terminator within the longest legal reply: noise or a runaway sender.
                        # Drop up to the next newline so the next line starts cleanly.
                        buf.clear()
                        discarding = True
                        with link._lock:
                            link.stats.overlong_lines += 1
                        link.requests.note_stray()
                if nl < 0:
                    break
                if discarding:
                    discarding = False
                elif buf:
                    line = bytes(buf)
                    buf.clear()
                    self.handle_line(line)
                start = nl + 1

    # --- one line ---------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> None:
        """Handle one line; whatever goes wrong doing so counts as one garbled line, never more."""
        link = self.link
        try:
            self.on_line(line)
        except Exception as exc:  # noqa: BLE001 - input must not stop the reader
            with link._lock:
                link.stats.reader_errors += 1
            log.warning("%s: could not handle line %r: %s: %s", link.adapter, line[:120], type(exc).__name__, exc)
            link.requests.note_stray()

    def on_line(self, line: bytes) -> None:
        link = self.link
        if not line.strip(b"\r\n \t"):
            return
        frame = decode_line(line)
        if isinstance(frame, Garbage):
            cut = find_frame_start(line)
            if cut is not None:
                self.on_cut_off(line[:cut])
                self.on_line(line[cut:])
                return
        if isinstance(frame, Reply):
            if link.requests.answer(frame) is None:
                log.debug("%s: skipped a reply nobody waits for: %r", link.adapter, line[:120])
                link.requests.note_stray()
            return
        if isinstance(frame, Event) and frame.is_boot:
            self.on_boot(frame)
            return
        assert isinstance(frame, Garbage | Event)
        with link._lock:
            link.stats.garbage_lines += 1
        log.debug("%s: skipped %s line %r", link.adapter, getattr(frame, "reason", "event"), line[:120])
        link.requests.note_stray()

    def on_cut_off(self, fragment: bytes) -> None:
        """A frame that ended without its newline, run into by the next one: fail its request now."""
        link = self.link
        with link._lock:
            link.stats.cut_off_lines += 1
        pending = link.requests.take(fragment_id(fragment))
        log.debug("%s: skipped a cut-off line %r", link.adapter, fragment[:120])
        if pending is not None:
            pending.error = ProtocolError(
                f"{link.adapter}: {pending.cmd}: the reply was cut off before its end of line (the board may have "
                "reset or a byte was lost); it may or may not have taken effect", adapter=link.adapter)
            pending.done.set()
        link.requests.note_stray()

    def on_boot(self, frame: Event) -> None:
        """The firmware's boot banner: the board restarted, so every request in flight is failed."""
        link = self.link
        with link._lock:
            link.stats.resets += 1
            link.last_boot = dict(frame.fields)
        reason = frame.fields.get("reset", "unknown")
        link.requests.fail_all(lambda p: FirmwareResetError(
            f"{link.adapter}: {p.cmd}: the board restarted (reset: {reason}) while the request was in flight; "
            "it may or may not have taken effect, and every pin is back in its reset state", adapter=link.adapter))
        log.warning("%s: firmware restarted (reset: %s)", link.adapter, reason)
