"""The serial link to bridge firmware: requests, pipelining, the handshake, and the port's lifecycle.

The link is three parts and the port: the request table (:mod:`.requests`: ids, replies matched to
requests in flight, the in-flight window), the reader (:mod:`.reader`: one thread owns the port's
input, frames lines and dispatches them) and the reconnect policy (:mod:`.reconnect`: whether and how
often a lost port is reopened). Callers block only on their own request, each with its own deadline;
a board that resets or vanishes fails the requests in flight, and an unplugged one is reopened on the
same path with backoff.
"""

from __future__ import annotations

import logging
import threading
import time

import serial

from edge_agent.bus.bridge.port import close_port, open_port
from edge_agent.bus.bridge.protocol import (
    COMMANDS,
    DEFAULT_BAUD,
    MAX_REPLY_LINE,
    PROTOCOL0_COMMANDS,
    PROTOCOL_VERSION,
    FirmwareResetError,
    UnsupportedCommandError,
    check_args,
    encode_request,
    error_for,
)
from edge_agent.bus.bridge.reader import DEFAULT_STALL_S, LineReader
from edge_agent.bus.bridge.reconnect import ReconnectPolicy
from edge_agent.bus.bridge.requests import (
    DEFAULT_MAX_STRAY,
    DEFAULT_WINDOW,
    RX_BUDGET,
    LinkStats,
    Pending,
    RequestTable,
)
from edge_agent.errors import (
    AdapterUnavailableError,
    BusPermissionError,
    BusTimeoutError,
    ProtocolError,
)
from edge_agent.jsontypes import JsonObject, JsonValue

log = logging.getLogger(__name__)


class Link:
    """A request/reply link to bridge firmware on ``device`` (a path or any pyserial URL)."""

    def __init__(
        self,
        device: str,
        *,
        baud: int = DEFAULT_BAUD,
        adapter: str | None = None,
        exclusive: bool = True,
        reconnect: bool | ReconnectPolicy = True,
        window: int = DEFAULT_WINDOW,
        max_stray: int = DEFAULT_MAX_STRAY,
        timeout_scale: float = 1.0,
        settle_s: float = 0.05,
        stall_s: float = DEFAULT_STALL_S,
    ) -> None:
        self.device = device
        self.baud = baud
        self.adapter = adapter or f"bridge://{device}"
        self.exclusive = exclusive
        self.reconnect = reconnect if isinstance(reconnect, ReconnectPolicy) else ReconnectPolicy(enabled=reconnect)
        self.timeout_scale = timeout_scale
        self.settle_s = settle_s
        self.stats = LinkStats()
        self.hello: JsonObject = {}
        self.protocol: int | None = None
        self.last_boot: JsonObject | None = None
        self._port: serial.SerialBase | None = None
        self._lock = threading.Lock()  # request table, port handle, counters
        self._write_lock = threading.Lock()
        self.requests = RequestTable(self._lock, self.stats, adapter=self.adapter, window=window,
                                     max_stray=max_stray)
        self.reader = LineReader(self, stall_s=stall_s)
        self._connected = threading.Event()
        self._closed = threading.Event()
        self._handshake_needed = True
        self._handshake_lock = threading.Lock()
        self._last_disconnect: str = ""

    # --- lifecycle --------------------------------------------------------------------------

    def open(self, *, handshake: bool = True) -> None:
        """Open the port, start the reader and (by default) check the firmware's protocol.

        Raises:
            AdapterUnavailableError: no such device, the port is locked by another process, or no
                bridge firmware answers.
            BusPermissionError: the OS denied access to the device node.
        """
        self._port = self._open_port()
        self._connected.set()
        self.reader.start()
        if self.settle_s:
            # Some boards (Arduino-style) reset when DTR rises on open; give the banner a moment.
            self._closed.wait(self.settle_s)
        if handshake:
            try:
                self._handshake(deadline=time.monotonic() + 2 * COMMANDS["hello"].timeout_s * self.timeout_scale)
            except BaseException:
                self.close()
                raise

    def close(self) -> None:
        """Stop the reader, fail requests in flight and release the port (idempotent)."""
        if self._closed.is_set():
            return
        self._closed.set()
        self.requests.fail_all(lambda p: AdapterUnavailableError(
            f"{self.adapter}: link closed while {p.cmd} was in flight", adapter=self.adapter))
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            close_port(port, exclusive=self.exclusive)
        self.reader.join(timeout=2.0)

    @property
    def connected(self) -> bool:
        """True while the port is open and the link not closed."""
        return self._connected.is_set() and not self._closed.is_set()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran (or an open's handshake failed)."""
        return self._closed.is_set()

    @property
    def window(self) -> int:
        """Requests allowed in flight at once."""
        return self.requests.window

    @property
    def max_stray(self) -> int:
        """Unrelated lines a waiting request tolerates before it fails as a noisy line."""
        return self.requests.max_stray

    def _open_port(self) -> serial.SerialBase:
        return open_port(self.device, baud=self.baud, exclusive=self.exclusive, adapter=self.adapter)

    # --- requests ---------------------------------------------------------------------------

    def request(self, cmd: str, args: JsonObject | None = None, *, timeout_s: float | None = None,
                address: int | None = None) -> JsonValue:
        """Send one command and return its result, raising the mapped error for ``ok: false``."""
        deadline = time.monotonic() + self._timeout_for(cmd, timeout_s)
        if cmd != "hello":
            # Wait out a reconnect first: reopening marks the handshake as needed, and the handshake
            # (not this command) must meet the boot banner a freshly plugged board may still be sending.
            self._wait_connected(cmd, deadline)
            self._ensure_handshake(deadline)
        pending = self.submit(cmd, args, deadline=deadline)
        return self.wait(pending, deadline=deadline, address=address)

    def submit(self, cmd: str, args: JsonObject | None = None, *, deadline: float) -> Pending:
        """Send a request without waiting for its reply (pipelining).

        Every submitted request must be passed to :meth:`wait` exactly once: that is where its
        deadline is enforced and its share of the in-flight window is given back.
        """
        check_args(cmd, args)
        if self.protocol == 0 and cmd not in PROTOCOL0_COMMANDS:
            raise UnsupportedCommandError(
                f"{self.adapter}: the firmware speaks protocol 0 (Revka), which has no {cmd!r}; flash the "
                "firmware_bridge build (docs/firmware.md)", adapter=self.adapter)
        self._wait_connected(cmd, deadline)
        # The leading newline ends whatever partial line noise (or a request cut short by a timeout or
        # an unplug) left in the firmware's buffer; an empty line costs one byte and draws no reply, so
        # every request starts on a clean frame. Too long a request raises before anything is taken.
        pending, line = self.requests.add(cmd, lambda rid: b"\n" + encode_request(rid, cmd, args), deadline=deadline)
        try:
            self._write(line, cmd)
        except BaseException:
            self.requests.drop(pending)
            raise
        return pending

    def wait(self, pending: Pending, *, deadline: float, address: int | None = None) -> JsonValue:
        """Block until ``pending`` is answered or its deadline passes; return the result."""
        try:
            if not pending.done.wait(max(0.0, deadline - time.monotonic())):
                self.check_reader()  # a dead reader is why nothing answers: restart it for the next call
                if self.requests.expire(pending):
                    raise BusTimeoutError(
                        f"{self.adapter}: {pending.cmd}: no reply within the deadline; check that the board is "
                        "powered, runs the bridge firmware, and that the baud rate matches", adapter=self.adapter,
                        address=address)
                pending.done.wait()  # answered (or failed) just as the deadline passed
        finally:
            self.requests.release(pending)
        if pending.error is not None:
            raise pending.error
        reply = pending.reply
        assert reply is not None
        if not reply.ok:
            raise error_for(reply, adapter=self.adapter, cmd=pending.cmd, address=address)
        return reply.result

    def _timeout_for(self, cmd: str, timeout_s: float | None) -> float:
        if timeout_s is not None:
            return timeout_s
        spec = COMMANDS.get(cmd)
        base = spec.timeout_s if spec else 1.0
        # At low baud rates a full-size request and reply take real time on the wire:
        # 10 bits per byte (start + 8 data + stop).
        wire_s = (512 + MAX_REPLY_LINE) * 10 / self.baud
        return (base + wire_s) * self.timeout_scale

    def _wait_connected(self, cmd: str, deadline: float) -> None:
        if self._closed.is_set():
            raise AdapterUnavailableError(f"{self.adapter}: link is closed; open the adapter again",
                                          adapter=self.adapter)
        if not self.reconnect.enabled and not self._connected.is_set():
            raise AdapterUnavailableError(
                f"{self.adapter}: {cmd}: {self.device} went away ({self._last_disconnect}) and reconnect is off; "
                "open the adapter again", adapter=self.adapter)
        if not self._connected.wait(max(0.0, deadline - time.monotonic())) or self._closed.is_set():
            raise AdapterUnavailableError(
                f"{self.adapter}: {cmd}: {self.device} is not connected ({self._last_disconnect or 'port gone'}); "
                "reconnecting in the background: plug the board back in or check the cable", adapter=self.adapter)

    def _write(self, line: bytes, cmd: str) -> None:
        with self._write_lock:
            port = self._port
            if port is None:
                raise AdapterUnavailableError(f"{self.adapter}: {cmd}: port is not open", adapter=self.adapter)
            try:
                port.write(line)
            except (serial.SerialException, OSError) as exc:
                self._disconnected(port, exc)
                raise AdapterUnavailableError(f"{self.adapter}: {cmd}: writing to {self.device} failed: {exc}",
                                              adapter=self.adapter) from exc

    # --- handshake --------------------------------------------------------------------------

    def _ensure_handshake(self, deadline: float) -> None:
        if not self._handshake_needed:
            return
        with self._handshake_lock:
            if self._handshake_needed:
                self._handshake(deadline)

    def _handshake(self, deadline: float) -> None:
        """Ask ``hello``; protocol-0 firmware answers "Unknown command", which selects compat mode."""
        # A boot banner may interrupt the first try (the board resets when the port opens).
        for attempt in range(2):
            pending = self.submit("hello", None, deadline=deadline)
            try:
                result = self.wait(pending, deadline=deadline)
            except FirmwareResetError:
                if attempt == 0:
                    continue
                raise
            except UnsupportedCommandError:
                self.protocol, self.hello = 0, {}
                self._handshake_needed = False
                log.info("%s: firmware speaks protocol 0; only %s available", self.adapter,
                         ", ".join(sorted(PROTOCOL0_COMMANDS)))
                return
            except BusTimeoutError as exc:
                raise AdapterUnavailableError(
                    f"{self.adapter}: no bridge firmware answered on {self.device}; flash firmware_bridge "
                    "(`make firmware`, docs/firmware.md) and check the baud rate", adapter=self.adapter) from exc
            protocol = result.get("protocol") if isinstance(result, dict) else None
            if not isinstance(result, dict) or not isinstance(protocol, int) or isinstance(protocol, bool):
                raise ProtocolError(f"{self.adapter}: hello reply {result!r} has no protocol number",
                                    adapter=self.adapter)
            if protocol != PROTOCOL_VERSION:
                raise ProtocolError(
                    f"{self.adapter}: firmware speaks protocol {protocol}, this edge-agent speaks "
                    f"{PROTOCOL_VERSION}; flash the matching firmware_bridge build", adapter=self.adapter)
            self.protocol, self.hello = protocol, result
            self._handshake_needed = False
            return

    # --- disconnect / reconnect -----------------------------------------------------------------

    def _disconnected(self, port: serial.SerialBase, exc: BaseException) -> None:
        """The port failed (read or write error, unplug): drop it, fail the requests in flight."""
        lost = port  # kept apart from the identity check below, which narrows `port` to the attribute's type
        with self._lock:
            if self._port is not port:
                return  # already handled
            self._port = None
            self.stats.disconnects += 1
        self._connected.clear()
        self._last_disconnect = str(exc)
        try:
            lost.close()
        except (OSError, serial.SerialException, TypeError, AttributeError):
            pass
        self.requests.fail_all(lambda p: AdapterUnavailableError(
            f"{self.adapter}: {p.cmd}: {self.device} went away ({exc}); reconnecting in the background",
            adapter=self.adapter))
        log.warning("%s: port lost: %s", self.adapter, exc)

    def _lost(self, exc: BaseException) -> None:
        """Treat the port as lost (the reader died or stalled), whether or not it is still open."""
        port = self._port
        if port is not None:
            self._disconnected(port, exc)
        else:
            self._last_disconnect = str(exc)
            self._connected.clear()

    def _try_reopen(self, gen: int) -> None:
        try:
            port = self._open_port()
        except (AdapterUnavailableError, BusPermissionError) as exc:
            log.debug("%s: reopen failed: %s", self.adapter, exc)
            return
        with self._lock:
            if self._closed.is_set() or gen != self.reader.generation:
                port.close()  # closed meanwhile, or this reader was replaced while it opened the port
                return
            self._port = port
            self.stats.reconnects += 1
        self._handshake_needed = True  # another board, or another firmware, may be there now
        self._connected.set()
        log.info("%s: reconnected to %s", self.adapter, self.device)

    # --- info -------------------------------------------------------------------------------

    def reader_state(self) -> str:
        """``running``, ``stopped`` (link closed), ``dead: <why>`` or ``stalled for N s``."""
        return self.reader.state()

    def check_reader(self) -> str:
        """The reader's state; a dead or stalled reader is replaced and the port reopened (see
        :meth:`LineReader.check`)."""
        return self.reader.check()

    def health(self) -> JsonObject:
        """Link state and counters; a dead or stalled reader is reported and replaced."""
        reader = self.check_reader()
        with self._lock:
            counters = dict(vars(self.stats))
            in_flight = len(self.requests.pending)
        return {
            "connected": self.connected and reader == "running",
            "reader": reader,
            "device": self.device,
            "baud": self.baud,
            "protocol": self.protocol,
            "firmware": self.hello.get("firmware"),
            "in_flight": in_flight,
            "last_boot": self.last_boot,
            **counters,
        }


__all__ = ["DEFAULT_WINDOW", "RX_BUDGET", "Link", "LinkStats", "Pending"]
