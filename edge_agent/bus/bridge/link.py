"""The serial link to bridge firmware: framing, request ids, pipelining, resync and reconnect.

One reader thread owns the port's input. It splits bytes into lines (bounded), matches replies to
requests in flight by id, skips and counts everything else, fails requests in flight when the
board resets (boot banner) or the port vanishes, and reopens the same path with backoff after an
unplug. Callers block only on their own request, each with its own deadline.

Nothing a device sends can stop the reader: a line that does not decode, or whose handling fails,
is counted and skipped like noise. Should the thread still end or hang (a driver bug, a read that
never returns), ``health()`` and a timed-out request notice it and start a fresh reader on a
reopened port.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import serial

from edge_agent.bus.bridge.protocol import (
    COMMANDS,
    DEFAULT_BAUD,
    MAX_REPLY_LINE,
    PROTOCOL0_COMMANDS,
    PROTOCOL_VERSION,
    Event,
    FirmwareResetError,
    Garbage,
    Reply,
    UnsupportedCommandError,
    check_args,
    decode_line,
    encode_request,
    error_for,
    find_frame_start,
    fragment_id,
)
from edge_agent.errors import (
    AdapterUnavailableError,
    BusPermissionError,
    BusTimeoutError,
    NextStep,
    ProtocolError,
)
from edge_agent.holders import describe_holders

log = logging.getLogger(__name__)

#: Requests in flight at once. The firmware serves lines one at a time from a 1024-byte receive
#: ring (see RX_BUDGET for the byte limit).
DEFAULT_WINDOW = 8
#: Request bytes allowed unanswered at once: three quarters of the firmware's 1024-byte receive
#: ring, so eight small requests pipeline freely but three 128-byte SPI payloads do not pile up.
RX_BUDGET = 768
#: Lines that are not the awaited reply tolerated while one request waits (noise bound).
DEFAULT_MAX_STRAY = 32
BACKOFF_FIRST_S = 0.1
BACKOFF_MAX_S = 2.0
#: A reader that has not come round its loop for this long is stalled. One pass takes at most the
#: port's 50 ms read timeout, or the reconnect backoff plus an open() while the board is away.
DEFAULT_STALL_S = 10.0


_BUSY_HINT = ("Stop that process; if it is `edge-agent run` for another state directory, pass that "
              "--state so the command goes through it, or give the boards separate ports")


@dataclass
class _Pending:
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


class Link:
    """A request/reply link to bridge firmware on ``device`` (a path or any pyserial URL)."""

    def __init__(
        self,
        device: str,
        *,
        baud: int = DEFAULT_BAUD,
        adapter: str | None = None,
        exclusive: bool = True,
        reconnect: bool = True,
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
        self.reconnect = reconnect
        self.max_stray = max_stray
        self.timeout_scale = timeout_scale
        self.settle_s = settle_s
        self.stats = LinkStats()
        self.hello: dict[str, Any] = {}
        self.protocol: int | None = None
        self.last_boot: dict[str, Any] | None = None
        self._next_id = 1
        self._port: serial.SerialBase | None = None
        self._lock = threading.Lock()  # pending table, port handle, counters
        self._write_lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self.window = window
        self._flow = threading.Condition(self._lock)  # guards the two counters below
        self._in_flight = 0
        self._bytes_in_flight = 0
        self._connected = threading.Event()
        self._closed = threading.Event()
        self._reader: threading.Thread | None = None
        self.stall_s = stall_s
        self._reader_gen = 0  # a reader whose generation is not current leaves its loop
        self._reader_beat = time.monotonic()
        self._reader_error = ""
        self._restart_lock = threading.Lock()
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
        self._start_reader()
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
        self._fail_all(lambda p: AdapterUnavailableError(f"{self.adapter}: link closed while {p.cmd} was in flight",
                                                         adapter=self.adapter))
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            if self.exclusive:
                _set_tty_exclusive(port, on=False)
            try:
                port.close()
            except (OSError, serial.SerialException):
                pass
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=2.0)

    @property
    def connected(self) -> bool:
        """True while the port is open and the link not closed."""
        return self._connected.is_set() and not self._closed.is_set()

    def _open_port(self) -> serial.SerialBase:
        try:
            port = serial.serial_for_url(
                self.device, baudrate=self.baud, timeout=0.05, write_timeout=2.0, exclusive=self.exclusive,
                do_not_open=True,
            )
            port.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            text = str(exc)
            if getattr(exc, "errno", None) == errno.EBUSY:
                raise AdapterUnavailableError(
                    f"{self.adapter}: {self.device} is in use by another process (opened exclusively): "
                    f"{describe_holders(self.device)}. {_BUSY_HINT}", adapter=self.adapter) from exc
            # pyserial wraps the open(2) failure in SerialException but keeps its errno.
            if isinstance(exc, PermissionError) or getattr(exc, "errno", None) in (errno.EACCES, errno.EPERM):
                raise BusPermissionError(
                    f"{self.adapter}: permission denied opening {self.device}; add the user to the 'dialout' "
                    "group (or install the udev rules from systemd/)", adapter=self.adapter) from exc
            if "exclusively lock" in text or "Resource temporarily unavailable" in text:
                raise AdapterUnavailableError(
                    f"{self.adapter}: {self.device} is in use by another process (it holds the port lock): "
                    f"{describe_holders(self.device)}. {_BUSY_HINT}", adapter=self.adapter) from exc
            if getattr(exc, "errno", None) == errno.ENOENT:
                # The usual case in the field: the board is unplugged, or came back under another name
                # (ttyACM1 after a replug while ttyACM0 was still held).
                raise AdapterUnavailableError(
                    f"{self.adapter}: {self.device} does not exist: the board is not plugged in, or it enumerated "
                    "under another device name", adapter=self.adapter,
                    hint=NextStep("to see attached boards", command="edge-agent bridge list")) from exc
            raise AdapterUnavailableError(
                f"{self.adapter}: cannot open {self.device}: {text}", adapter=self.adapter,
                hint=NextStep("to see attached boards", command="edge-agent bridge list")) from exc
        if self.exclusive:
            _set_tty_exclusive(port)
        return port

    # --- requests ---------------------------------------------------------------------------

    def request(self, cmd: str, args: dict[str, Any] | None = None, *, timeout_s: float | None = None,
                address: int | None = None) -> Any:
        """Send one command and return its result, raising the mapped error for ``ok: false``."""
        deadline = time.monotonic() + self._timeout_for(cmd, timeout_s)
        if cmd != "hello":
            # Wait out a reconnect first: reopening marks the handshake as needed, and the handshake
            # (not this command) must meet the boot banner a freshly plugged board may still be sending.
            self._wait_connected(cmd, deadline)
            self._ensure_handshake(deadline)
        pending = self.submit(cmd, args, deadline=deadline)
        return self.wait(pending, deadline=deadline, address=address)

    def submit(self, cmd: str, args: dict[str, Any] | None = None, *, deadline: float) -> _Pending:
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
        with self._flow:
            rid = str(self._next_id)
            self._next_id += 1
            # The leading newline ends whatever partial line noise (or a request cut short by a
            # timeout or an unplug) left in the firmware's buffer; an empty line costs one byte and
            # draws no reply, so every request starts on a clean frame.
            line = b"\n" + encode_request(rid, cmd, args)  # ProtocolError if too long: nothing taken yet
            n = len(line)

            # Flow control: at most `window` requests and RX_BUDGET bytes unanswered, so a burst never
            # overruns the firmware's receive ring (one request alone is always allowed).
            def room() -> bool:
                return self._in_flight == 0 or (self._in_flight < self.window
                                                 and self._bytes_in_flight + n <= RX_BUDGET)

            if not self._flow.wait_for(room, timeout=max(0.0, deadline - time.monotonic())):
                raise BusTimeoutError(
                    f"{self.adapter}: {cmd}: {self._in_flight} earlier requests ({self._bytes_in_flight} bytes) "
                    "are still unanswered", adapter=self.adapter)
            self._in_flight += 1
            self._bytes_in_flight += n
            pending = _Pending(rid, cmd, nbytes=n)
            self._pending[rid] = pending
            self.stats.requests += 1
        try:
            self._write(line, cmd)
        except BaseException:
            with self._flow:
                self._pending.pop(rid, None)
            self._release(pending)
            raise
        return pending

    def wait(self, pending: _Pending, *, deadline: float, address: int | None = None) -> Any:
        """Block until ``pending`` is answered or its deadline passes; return the result."""
        try:
            if not pending.done.wait(max(0.0, deadline - time.monotonic())):
                self.check_reader()  # a dead reader is why nothing answers: restart it for the next call
                with self._flow:
                    timed_out = self._pending.pop(pending.id, None) is not None
                    if timed_out:
                        self.stats.timeouts += 1
                if timed_out:
                    raise BusTimeoutError(
                        f"{self.adapter}: {pending.cmd}: no reply within the deadline; check that the board is "
                        "powered, runs the bridge firmware, and that the baud rate matches", adapter=self.adapter,
                        address=address)
                pending.done.wait()  # answered (or failed) just as the deadline passed
        finally:
            self._release(pending)
        if pending.error is not None:
            raise pending.error
        reply = pending.reply
        assert reply is not None
        if not reply.ok:
            raise error_for(reply, adapter=self.adapter, cmd=pending.cmd, address=address)
        return reply.result

    def _release(self, pending: _Pending) -> None:
        with self._flow:
            if pending.released:
                return
            pending.released = True
            self._in_flight -= 1
            self._bytes_in_flight -= pending.nbytes
            self._flow.notify_all()

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
        if not self.reconnect and not self._connected.is_set():
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
            if not isinstance(result, dict) or not isinstance(result.get("protocol"), int):
                raise ProtocolError(f"{self.adapter}: hello reply {result!r} has no protocol number",
                                    adapter=self.adapter)
            if result["protocol"] != PROTOCOL_VERSION:
                raise ProtocolError(
                    f"{self.adapter}: firmware speaks protocol {result['protocol']}, this edge-agent speaks "
                    f"{PROTOCOL_VERSION}; flash the matching firmware_bridge build", adapter=self.adapter)
            self.protocol, self.hello = result["protocol"], result
            self._handshake_needed = False
            return

    # --- reader -----------------------------------------------------------------------------

    def _start_reader(self) -> None:
        with self._lock:
            self._reader_gen += 1
            gen = self._reader_gen
            self._reader_beat = time.monotonic()
            self._reader_error = ""
        self._reader = threading.Thread(target=self._read_loop, args=(gen,), name=f"bridge-reader {self.device}",
                                        daemon=True)
        self._reader.start()

    def _read_loop(self, gen: int) -> None:
        try:
            self._read_lines(gen)
        except BaseException as exc:  # noqa: BLE001 - recorded for health(); the thread must not vanish silently
            self._reader_error = f"{type(exc).__name__}: {exc}"
            log.error("%s: reader stopped: %s", self.adapter, self._reader_error)

    def _current(self, gen: int) -> bool:
        return gen == self._reader_gen and not self._closed.is_set()

    def _read_lines(self, gen: int) -> None:
        buf = bytearray()
        discarding = False
        backoff = BACKOFF_FIRST_S
        while self._current(gen):
            self._reader_beat = time.monotonic()
            port = self._port
            if port is None:
                if not self.reconnect:
                    return
                if self._closed.wait(backoff) or not self._current(gen):
                    return
                backoff = min(backoff * 2, BACKOFF_MAX_S)
                self._try_reopen(gen)
                buf.clear()
                discarding = False
                continue
            backoff = BACKOFF_FIRST_S
            try:
                data = port.read(max(1, min(port.in_waiting, 4096)))
            except Exception as exc:  # noqa: BLE001 - any failure of the port is a lost port
                # TypeError/AttributeError: pyserial's posix port raced with close() (fd gone).
                if not self._current(gen):
                    return
                self._disconnected(port, exc)
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
                        with self._lock:
                            self.stats.overlong_lines += 1
                        self._note_stray()
                if nl < 0:
                    break
                if discarding:
                    discarding = False
                elif buf:
                    line = bytes(buf)
                    buf.clear()
                    self._handle_line(line)
                start = nl + 1

    def _handle_line(self, line: bytes) -> None:
        """Handle one line; whatever goes wrong doing so counts as one garbled line, never more."""
        try:
            self._on_line(line)
        except Exception as exc:  # noqa: BLE001 - input must not stop the reader
            with self._lock:
                self.stats.reader_errors += 1
            log.warning("%s: could not handle line %r: %s: %s", self.adapter, line[:120], type(exc).__name__, exc)
            self._note_stray()

    def _on_line(self, line: bytes) -> None:
        if not line.strip(b"\r\n \t"):
            return
        frame = decode_line(line)
        if isinstance(frame, Garbage):
            cut = find_frame_start(line)
            if cut is not None:
                self._on_cut_off(line[:cut])
                self._on_line(line[cut:])
                return
        if isinstance(frame, Reply):
            key = None if frame.id is None else str(frame.id)
            with self._lock:
                pending = self._pending.pop(key, None) if key is not None else None
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
            else:
                log.debug("%s: skipped a reply nobody waits for: %r", self.adapter, line[:120])
                self._note_stray()
            return
        if isinstance(frame, Event) and frame.is_boot:
            self._on_boot(frame)
            return
        assert isinstance(frame, Garbage | Event)
        with self._lock:
            self.stats.garbage_lines += 1
        log.debug("%s: skipped %s line %r", self.adapter, getattr(frame, "reason", "event"), line[:120])
        self._note_stray()

    def _on_cut_off(self, fragment: bytes) -> None:
        """A frame that ended without its newline, run into by the next one: fail its request now."""
        rid = fragment_id(fragment)
        with self._lock:
            self.stats.cut_off_lines += 1
            pending = self._pending.pop(rid, None) if rid is not None else None
        log.debug("%s: skipped a cut-off line %r", self.adapter, fragment[:120])
        if pending is not None:
            pending.error = ProtocolError(
                f"{self.adapter}: {pending.cmd}: the reply was cut off before its end of line (the board may have "
                "reset or a byte was lost); it may or may not have taken effect", adapter=self.adapter)
            pending.done.set()
        self._note_stray()

    def _note_stray(self) -> None:
        """Count a skipped line against every waiting request; fail those past the noise bound."""
        failed: list[_Pending] = []
        with self._lock:
            for p in list(self._pending.values()):
                p.strays += 1
                if p.strays > self.max_stray:
                    failed.append(self._pending.pop(p.id))
        for p in failed:
            p.error = ProtocolError(
                f"{self.adapter}: {p.cmd}: more than {self.max_stray} unrelated or garbled lines arrived while "
                "waiting for the reply; the line is too noisy (check the cable, baud rate, and that nothing else "
                "writes to the port)", adapter=self.adapter)
            p.done.set()

    def _on_boot(self, frame: Event) -> None:
        with self._lock:
            self.stats.resets += 1
            self.last_boot = dict(frame.fields)
        reason = frame.fields.get("reset", "unknown")
        self._fail_all(lambda p: FirmwareResetError(
            f"{self.adapter}: {p.cmd}: the board restarted (reset: {reason}) while the request was in flight; "
            "it may or may not have taken effect, and every pin is back in its reset state", adapter=self.adapter))
        log.warning("%s: firmware restarted (reset: %s)", self.adapter, reason)

    def _fail_all(self, make_error: Any) -> None:
        with self._lock:
            pending = list(self._pending.values())
            self._pending.clear()
        for p in pending:
            p.error = make_error(p)
            p.done.set()

    # --- disconnect / reconnect -----------------------------------------------------------------

    def _disconnected(self, port: serial.SerialBase, exc: BaseException) -> None:
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
        self._fail_all(lambda p: AdapterUnavailableError(
            f"{self.adapter}: {p.cmd}: {self.device} went away ({exc}); reconnecting in the background",
            adapter=self.adapter))
        log.warning("%s: port lost: %s", self.adapter, exc)

    def _try_reopen(self, gen: int) -> None:
        try:
            port = self._open_port()
        except (AdapterUnavailableError, BusPermissionError) as exc:
            log.debug("%s: reopen failed: %s", self.adapter, exc)
            return
        with self._lock:
            if self._closed.is_set() or gen != self._reader_gen:
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
        reader = self._reader
        if self._closed.is_set() or (self._port is None and not self.reconnect
                                     and reader is not None and not reader.is_alive()):
            return "stopped"  # closed, or the port went away with reconnect off
        if reader is None:
            return "not started"
        if not reader.is_alive():
            return f"dead: {self._reader_error or 'the reader thread ended'}"
        idle = time.monotonic() - self._reader_beat
        if idle > self.stall_s:
            return f"stalled for {idle:.0f} s"
        return "running"

    def check_reader(self) -> str:
        """The reader's state; a dead or stalled reader is replaced and the port reopened.

        Returns the state found (before any restart). Without ``reconnect`` the link is marked
        disconnected instead, so requests fail at once rather than time out.
        """
        state = self.reader_state()
        if state in ("running", "stopped", "not started"):
            return state
        with self._restart_lock:
            if self.reader_state() in ("running", "stopped"):
                return state  # another caller restarted it meanwhile
            log.warning("%s: reader %s; reopening %s", self.adapter, state, self.device)
            port = self._port
            if port is not None:
                self._disconnected(port, RuntimeError(f"reader {state}"))
            else:
                self._last_disconnect = f"reader {state}"
                self._connected.clear()
            if self.reconnect and not self._closed.is_set():
                with self._lock:
                    self.stats.reader_restarts += 1
                self._start_reader()  # starts with no port: it reopens through the reconnect path
        return state

    def health(self) -> dict[str, Any]:
        """Link state and counters; a dead or stalled reader is reported and replaced."""
        reader = self.check_reader()
        with self._lock:
            counters = dict(vars(self.stats))
            in_flight = len(self._pending)
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


def _set_tty_exclusive(port: serial.SerialBase, on: bool = True) -> None:
    """Put a real tty in (or out of) exclusive mode, TIOCEXCL/TIOCNXCL, on top of pyserial's flock.

    flock only stops programs that also take the lock (other edge-agent processes); TIOCEXCL makes
    the kernel refuse any further open() of the device with EBUSY (terminal programs, a second
    runtime), except for root. The flag outlives our descriptor if someone else still holds the
    tty, so it is cleared again before closing.
    """
    fd = getattr(port, "fd", None)
    if not isinstance(fd, int):
        return  # loop://, socket:// and other URL handlers have no tty
    try:
        import fcntl
        import termios

        fcntl.ioctl(fd, termios.TIOCEXCL if on else termios.TIOCNXCL)
    except (ImportError, OSError, AttributeError) as exc:  # not a tty, gone, or not POSIX
        log.debug("TIOCEXCL/TIOCNXCL not applied: %s", exc)


__all__ = ["DEFAULT_WINDOW", "RX_BUDGET", "Link", "LinkStats"]
