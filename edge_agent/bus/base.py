"""The adapter API every bus backend implements: ``Adapter`` hands out ``I2CBus`` and ``SPIDevice`` ports
and drives GPIO lines.

Public methods validate arguments and apply the safety policy once, here; backends implement narrow
``_``-prefixed hooks and raise only errors from :mod:`edge_agent.errors` (no errno, vendor status
code or vendor exception crosses a backend boundary).

Backend hook (what :func:`edge_agent.bus.registry.open_adapter` calls): every backend module, built in
(``edge_agent.bus.sim``, ``.linux``, ``.aardvark``, ``.ftdi``) or plugged in (``edge_agent.bus.bridge``),
exposes a module-level function::

    def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> Adapter

which checks ``url.options`` with :meth:`AdapterURL.check_options` (unknown options are rejected by
name), opens the device and returns an :class:`Adapter` subclass instance. Vendor packages are
imported at the top of that backend module only, so a missing extra surfaces as ``ImportError``
when the registry imports it and becomes :class:`~edge_agent.errors.BackendUnavailable`.

A subclass implements:

* ``_i2c_buses() -> list[int]`` and ``_open_i2c(bus) -> I2CBus`` (an :class:`I2CBus` subclass
  implementing ``_read``, ``_write``, ``_write_read``, ``_probe``, ``_release``);
* ``_spi_buses() -> list[tuple[int, int]]`` and ``_open_spi(bus, cs, mode, speed_hz) -> SPIDevice``
  (implementing ``_transfer``, ``_release``);
* ``_gpio_line(pin, raw)``, ``_gpio_read(line)``, ``_gpio_write(line, value)``,
  ``_gpio_mode(line, direction, pull)``;
* ``_health() -> dict`` and ``_release()``.

Any hook may raise ``NotImplementedError`` for a port the adapter lacks; the base turns that into an
:class:`~edge_agent.errors.InvalidAddressError` that says which ports exist.
"""

from __future__ import annotations

import abc
import logging
import threading
import time
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Self

from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusError,
    I2CNackError,
    InvalidAddressError,
    PinError,
    echo,
)

if TYPE_CHECKING:
    from edge_agent.bus.safety import SafetyPolicy
    from edge_agent.bus.url import AdapterURL
    from edge_agent.pins import PinIndex

log = logging.getLogger(__name__)

Direction = Literal["in", "out"]
Pull = Literal["up", "down", "none"]
ProbeMethod = Literal["read", "quick"]
#: What a scan learns about one address: it acknowledged, it did not, or a kernel driver owns it
#: (i2cdetect's "UU": not probed, since the driver may be mid-transaction with it).
ProbeState = Literal["ack", "nack", "busy"]

#: 7-bit addresses a scan or a transaction may use; 0x00-0x02 and 0x78-0x7F are reserved by the
#: I2C specification (general call, CBUS, HS-mode controller codes, 10-bit prefix).
I2C_FIRST_ADDRESS = 0x03
I2C_LAST_ADDRESS = 0x77
#: Scans start here, as i2cdetect does: 0x03 is reserved for future use and 0x04-0x07 are the HS-mode
#: controller codes, so nothing should answer there and probing them is pointless.
I2C_SCAN_FIRST = 0x08
#: SMBus block transfers carry at most 32 data bytes (SMBus 3.x, I2C_SMBUS_BLOCK_MAX).
SMBUS_BLOCK_MAX = 32
#: A pin name longer than this is refused before any lookup (the longest real alias is far shorter).
MAX_PIN_CHARS = 100
#: Spellings remembered per adapter ('PA5', 'pa5', 'D13' ...); the oldest is forgotten beyond this.
PIN_CACHE_SIZE = 256
SPI_MODES = (0, 1, 2, 3)


class ReadOnlyPinError(InvalidAddressError):
    """The pin exists but cannot be driven (an input-only line such as a push button)."""

    def __init__(self, message: str, *, adapter: str, pin: str) -> None:
        super().__init__(message, adapter=adapter)
        self.pin = pin


# --- validation helpers ---------------------------------------------------------------------------


def check_address(address: int, adapter: str) -> int:
    """Return ``address`` if it is a usable 7-bit target address, else raise InvalidAddressError."""
    if not isinstance(address, int) or isinstance(address, bool):
        raise InvalidAddressError(f"{adapter}: I2C address {address!r} is not an integer", adapter=adapter)
    if not I2C_FIRST_ADDRESS <= address <= I2C_LAST_ADDRESS:
        hint = " (10-bit addressing is not supported)" if 0x78 <= address <= 0x3FF else ""
        raise InvalidAddressError(
            f"{adapter}: I2C address 0x{address:02X} is outside the 7-bit range 0x03-0x77{hint}; "
            "7-bit addresses exclude the R/W bit (an 8-bit 0xEC is 0x76)",
            adapter=adapter,
            address=address,
        )
    return address


def check_length(n: int, maximum: int, adapter: str, what: str, address: int | None = None) -> int:
    """Return ``n`` if ``0 < n <= maximum``, else raise InvalidAddressError naming the limit."""
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= maximum:
        raise InvalidAddressError(
            f"{adapter}: {what} length {n!r} must be an integer between 1 and {maximum}",
            adapter=adapter,
            address=address,
        )
    return n


def check_register(register: int, width: int, adapter: str, address: int) -> int:
    """Return ``register`` if it fits ``width`` bytes, else raise InvalidAddressError."""
    if width not in (1, 2):
        raise InvalidAddressError(f"{adapter}: register_width must be 1 or 2, not {width!r}", adapter=adapter)
    top = (1 << (8 * width)) - 1
    if not isinstance(register, int) or isinstance(register, bool) or not 0 <= register <= top:
        raise InvalidAddressError(
            f"{adapter}: register {register!r} does not fit {width} byte(s) (0x00-0x{top:X})",
            adapter=adapter,
            address=address,
        )
    return register


def as_bytes(data: bytes | bytearray | memoryview | list[int] | tuple[int, ...], adapter: str) -> bytes:
    """Coerce ``data`` to bytes, raising InvalidAddressError for values outside 0-255."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, int | str):  # bytes(5) would silently mean five zero bytes
        raise InvalidAddressError(f"{adapter}: data must be bytes or a list of integers 0-255, got {data!r}",
                                  adapter=adapter)
    try:
        return bytes(data)
    except (TypeError, ValueError):
        raise InvalidAddressError(f"{adapter}: data must be bytes or integers 0-255, got {data!r}",
                                  adapter=adapter) from None


def _register_bytes(register: int, width: int) -> bytes:
    # Multi-byte register (word) addresses go most significant byte first on the wire (24C32 and up).
    return register.to_bytes(width, "big")


# --- I2C --------------------------------------------------------------------------------------------


class I2CBus(abc.ABC):
    """One I2C bus of an adapter, in controller mode; targets are addressed per call."""

    #: Largest read or write the backend moves in one transaction.
    max_transfer: int = 4096

    def __init__(self, adapter: Adapter, bus: int, *, frequency_hz: int = 100_000) -> None:
        self.adapter = adapter
        self.bus = bus
        self._frequency_hz = frequency_hz
        self._closed = False
        #: Held by drivers across multi-transaction sequences (trigger, poll, read) so threads sharing
        #: the bus do not interleave them; each single transaction is atomic in the backend already.
        self.lock = threading.RLock()

    @property
    def frequency_hz(self) -> int:
        """The SCL clock this bus runs at, in Hz."""
        return self._frequency_hz

    @property
    def _where(self) -> str:
        return self.adapter.url

    def _check_open(self) -> None:
        if self._closed or self.adapter.closed:
            raise AdapterUnavailableError(
                f"{self._where}: I2C bus {self.bus} is closed; open the adapter again", adapter=self._where
            )

    def scan(self, first: int = I2C_SCAN_FIRST, last: int = I2C_LAST_ADDRESS) -> list[int]:
        """Return the 7-bit addresses that acknowledge, probing the way i2cdetect does.

        EEPROMs (0x50-0x5F) and the 0x30-0x37 range are probed with a one-byte read because a quick
        write can corrupt some write-protect latches (AT24RF08) there; everything else gets an SMBus
        quick write, since a read can have side effects (clearing status or FIFO registers).
        Addresses a kernel driver owns are not probed and not listed (see :meth:`scan_report`).
        """
        return self.scan_report(first, last).found

    def scan_report(self, first: int = I2C_SCAN_FIRST, last: int = I2C_LAST_ADDRESS) -> ScanReport:
        """Like :meth:`scan`, also naming the addresses a kernel driver owns (``UU``, never probed)."""
        self._check_open()
        check_address(first, self._where)
        check_address(last, self._where)
        report = ScanReport([], [])
        for address in range(first, last + 1):
            state = self._probe_state(address, scan_method(address))
            if state == "ack":
                report.found.append(address)
            elif state == "busy":
                report.busy.append(address)
        return report

    def probe(self, address: int) -> bool:
        """True when ``address`` acknowledges (same probe as ``scan``).

        Raises:
            BusBusyError: a kernel driver owns the address; it is not probed.
        """
        self._check_open()
        check_address(address, self._where)
        state = self._probe_state(address, scan_method(address))
        if state == "busy":
            raise BusBusyError(f"{self._where}: address 0x{address:02X} on bus {self.bus} is in use by a kernel "
                               "driver (i2cdetect shows it as UU); it was not probed", adapter=self._where,
                               address=address)
        return state == "ack"

    def read(self, address: int, n: int) -> bytes:
        """Read ``n`` bytes from target ``address`` (START, address+R, n bytes, STOP)."""
        self._check_open()
        check_address(address, self._where)
        check_length(n, self.max_transfer, self._where, "read", address)
        return self._read(address, n)

    def write(self, address: int, data: bytes | bytearray | list[int]) -> None:
        """Write ``data`` to target ``address``; the first byte is usually a register number."""
        self._check_open()
        check_address(address, self._where)
        payload = as_bytes(data, self._where)
        check_length(len(payload), self.max_transfer, self._where, "write", address)
        self.adapter.safety.check_i2c_write(self._where, self.bus, address, payload[0])
        self._write(address, payload)

    def write_read(self, address: int, data: bytes | bytearray | list[int], n: int) -> bytes:
        """Write ``data`` then read ``n`` bytes with a repeated START (no STOP in between).

        A one-byte ``data`` is a register pointer and counts as a read. Longer ``data`` may store values
        in the target (register, value, ...), so the safety policy checks it like a write.
        """
        self._check_open()
        check_address(address, self._where)
        payload = as_bytes(data, self._where)
        check_length(len(payload), self.max_transfer, self._where, "write", address)
        check_length(n, self.max_transfer, self._where, "read", address)
        if len(payload) > 1:
            self.adapter.safety.check_i2c_write(self._where, self.bus, address, payload[0], len(payload) - 1)
        return self._write_read(address, payload, n)

    def read_register(self, address: int, register: int, n: int = 1, *, register_width: int = 1) -> bytes:
        """Read ``n`` bytes starting at ``register`` (pointer write, repeated START, read).

        A two-byte pointer is a read on parts that take one (24C32 and up) but stores the second byte
        in a part with 8-bit registers, so the safety policy checks ``register_width=2`` like a write.
        """
        self._check_open()
        check_address(address, self._where)
        check_register(register, register_width, self._where, address)
        check_length(n, self.max_transfer, self._where, "read", address)
        if register_width > 1:
            self.adapter.safety.check_i2c_write(self._where, self.bus, address, register, 1)
        try:
            return self._write_read(address, _register_bytes(register, register_width), n)
        except BusError as exc:
            if exc.register is None:
                exc.register = register
            raise

    def write_register(
        self, address: int, register: int, data: bytes | bytearray | list[int], *, register_width: int = 1
    ) -> None:
        """Write ``data`` starting at ``register`` in one transaction."""
        self._check_open()
        check_address(address, self._where)
        check_register(register, register_width, self._where, address)
        payload = as_bytes(data, self._where)
        check_length(len(payload) + register_width, self.max_transfer, self._where, "write", address)
        self.adapter.safety.check_i2c_write(self._where, self.bus, address, register, len(payload))
        try:
            self._write(address, _register_bytes(register, register_width) + payload)
        except BusError as exc:
            if exc.register is None:
                exc.register = register
            raise

    def device(self, address: int) -> I2CDevice:
        """A port bound to one target address."""
        return I2CDevice(self, check_address(address, self._where))

    def close(self) -> None:
        """Release the bus (idempotent)."""
        if not self._closed:
            self._closed = True
            self._release()

    # hooks -------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _read(self, address: int, n: int) -> bytes: ...

    @abc.abstractmethod
    def _write(self, address: int, data: bytes) -> None: ...

    @abc.abstractmethod
    def _write_read(self, address: int, data: bytes, n: int) -> bytes: ...

    def _probe_state(self, address: int, method: ProbeMethod) -> ProbeState:
        """Probe one address; backends that can tell a driver-owned address override this."""
        return "ack" if self._probe(address, method) else "nack"

    def _probe(self, address: int, method: ProbeMethod) -> bool:
        """Default probe on top of read/write; backends with an SMBus quick command override it."""
        try:
            if method == "read":
                self._read(address, 1)
            else:
                self._write(address, b"")
        except I2CNackError:
            return False
        return True

    def _release(self) -> None:  # noqa: B027 - optional hook
        """Free backend resources of this bus."""


@dataclass(frozen=True)
class ScanReport:
    """One bus scan: addresses that acknowledged, and those a kernel driver owns (not probed)."""

    found: list[int]
    busy: list[int]


def scan_method(address: int) -> ProbeMethod:
    """The i2cdetect default probe for an address: a read for 0x30-0x37 and 0x50-0x5F, else quick write."""
    return "read" if 0x30 <= address <= 0x37 or 0x50 <= address <= 0x5F else "quick"


class I2CDevice:
    """An I2C port bound to one target address (what drivers hold)."""

    __slots__ = ("bus", "address")

    def __init__(self, bus: I2CBus, address: int) -> None:
        self.bus, self.address = bus, address

    def read(self, n: int) -> bytes:
        """Read ``n`` bytes from the target."""
        return self.bus.read(self.address, n)

    def write(self, data: bytes | bytearray | list[int]) -> None:
        """Write ``data`` to the target."""
        self.bus.write(self.address, data)

    def write_read(self, data: bytes | bytearray | list[int], n: int) -> bytes:
        """Write then read with a repeated START."""
        return self.bus.write_read(self.address, data, n)

    def read_register(self, register: int, n: int = 1, *, register_width: int = 1) -> bytes:
        """Read ``n`` bytes starting at ``register``."""
        return self.bus.read_register(self.address, register, n, register_width=register_width)

    def write_register(self, register: int, data: bytes | bytearray | list[int], *, register_width: int = 1) -> None:
        """Write ``data`` starting at ``register``."""
        self.bus.write_register(self.address, register, data, register_width=register_width)


def scan_grid_cells(found: Iterable[int], busy: Iterable[int] = (), first: int = I2C_SCAN_FIRST,
                    last: int = I2C_LAST_ADDRESS) -> list[list[str]]:
    """The i2cdetect table as eight rows (0x00-0x70) of 16 cells: "76" answered, "UU" owned by a kernel
    driver and not probed, "--" no answer, "" outside the scanned range."""
    present, owned = set(found), set(busy)
    rows = []
    for row in range(0, 0x80, 16):
        cells = []
        for a in range(row, row + 16):
            if a < first or a > last:
                cells.append("")
            elif a in owned:
                cells.append("UU")
            elif a in present:
                cells.append(f"{a:02x}")
            else:
                cells.append("--")
        rows.append(cells)
    return rows


def format_scan_grid(found: list[int] | set[int], first: int = I2C_SCAN_FIRST, last: int = I2C_LAST_ADDRESS,
                     busy: list[int] | set[int] | tuple[int, ...] = ()) -> str:
    """Render scan results as the familiar i2cdetect 16-column grid ("--" = no answer, "UU" = owned by a
    kernel driver and not probed, blank = outside the range)."""
    lines = ["     " + " ".join(f"{c:2x}" for c in range(16))]
    for i, cells in enumerate(scan_grid_cells(found, busy, first, last)):
        lines.append(f"{i * 16:02x}: " + " ".join(c or "  " for c in cells))
    return "\n".join(lines)


# --- SPI --------------------------------------------------------------------------------------------


class SPIDevice(abc.ABC):
    """One SPI chip select of an adapter, in controller mode, with a fixed mode and clock."""

    max_transfer: int = 4096

    def __init__(self, adapter: Adapter, bus: int, cs: int, *, mode: int, speed_hz: int) -> None:
        self.adapter = adapter
        self.bus, self.cs, self.mode, self.speed_hz = bus, cs, mode, speed_hz
        self._closed = False

    def transfer(self, data: bytes | bytearray | list[int]) -> bytes:
        """Clock ``data`` out on MOSI while reading as many bytes from MISO (full duplex, CS held)."""
        where = self.adapter.url
        if self._closed or self.adapter.closed:
            raise AdapterUnavailableError(f"{where}: SPI {self.bus}.{self.cs} is closed; open the adapter again",
                                          adapter=where)
        payload = as_bytes(data, where)
        check_length(len(payload), self.max_transfer, where, "SPI transfer")
        self.adapter.safety.check_spi(where, self.bus, self.cs)
        return self._transfer(payload)

    def close(self) -> None:
        """Release the device (idempotent)."""
        if not self._closed:
            self._closed = True
            self._release()

    @abc.abstractmethod
    def _transfer(self, data: bytes) -> bytes: ...

    def _release(self) -> None:  # noqa: B027 - optional hook
        """Free backend resources of this chip select."""


# --- adapter ----------------------------------------------------------------------------------------


class Adapter(abc.ABC):
    """What an adapter URL names: hands out I2C buses and SPI devices, and drives GPIO lines."""

    #: URL scheme of this backend.
    scheme: str = ""

    def __init__(self, url: AdapterURL, *, name: str | None, board: str | None, safety: SafetyPolicy) -> None:
        self.parsed_url = url
        self.url: str = str(url)
        self.name: str = name or self.url
        self.board: str | None = board
        self.safety = safety
        self.closed = False
        self._lock = threading.RLock()
        self._i2c: dict[int, I2CBus] = {}
        self._spi: dict[tuple[int, int, int, int], SPIDevice] = {}
        self._pins: dict[str | int, tuple[str, Hashable]] = {}
        self._gpio_allowed: frozenset[str] | None = None
        self._pin_index: PinIndex | None = None  # None: the default index (board files and bundled datasheets)
        # What this adapter last did to or saw on each GPIO line (canonical name -> mode/level/at), so a
        # status view can show levels without touching the bus: on Linux, reading a line requests it as
        # an input, which would release an output the agent is driving.
        self._gpio_seen: dict[str, dict[str, Any]] = {}

    # context manager -------------------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url!r} name={self.name!r} board={self.board!r}>"

    def _check_open(self) -> None:
        if self.closed:
            raise AdapterUnavailableError(f"{self.url}: adapter is closed; open it again with its URL",
                                          adapter=self.url)

    # ports -----------------------------------------------------------------------------------
    def i2c(self, bus: int | str | None = None) -> I2CBus:
        """The I2C bus ``bus`` (an int, or a board name like "i2c1"); None means the first bus."""
        self._check_open()
        buses = self._i2c_buses()
        if not buses:
            raise InvalidAddressError(f"{self.url}: this adapter has no I2C bus", adapter=self.url)
        number = buses[0] if bus is None else _bus_number(bus, "i2c", self.url)
        if number not in buses:
            raise InvalidAddressError(
                f"{self.url}: I2C bus {bus!r} does not exist; available: {', '.join(map(str, buses))}",
                adapter=self.url,
            )
        with self._lock:
            port = self._i2c.get(number)
            if port is None or port._closed:
                port = self._i2c[number] = self._open_i2c(number)
        return port

    def spi(self, bus: int | str | None = None, cs: int = 0, *, mode: int = 0, speed_hz: int = 1_000_000) -> SPIDevice:
        """The SPI device on ``bus`` (None = first bus) and chip select ``cs`` with ``mode`` 0-3."""
        self._check_open()
        devices = self._spi_buses()
        if not devices:
            raise InvalidAddressError(f"{self.url}: this adapter has no SPI bus", adapter=self.url)
        number = devices[0][0] if bus is None else _bus_number(bus, "spi", self.url)
        if (number, cs) not in devices:
            listed = ", ".join(f"{b}.{c}" for b, c in devices)
            raise InvalidAddressError(
                f"{self.url}: SPI bus.cs {number}.{cs} does not exist; available: {listed}", adapter=self.url
            )
        if mode not in SPI_MODES:
            raise InvalidAddressError(f"{self.url}: SPI mode {mode!r} must be 0, 1, 2 or 3", adapter=self.url)
        if not isinstance(speed_hz, int) or not 1_000 <= speed_hz <= 100_000_000:
            raise InvalidAddressError(
                f"{self.url}: SPI speed_hz {speed_hz!r} must be between 1_000 and 100_000_000", adapter=self.url
            )
        key = (number, cs, mode, speed_hz)
        with self._lock:
            port = self._spi.get(key)
            if port is None or port._closed:
                port = self._spi[key] = self._open_spi(number, cs, mode, speed_hz)
        return port

    # GPIO ------------------------------------------------------------------------------------
    def use_pins(self, index: PinIndex | None) -> None:
        """Resolve pin names with this pin index from now on (None: the default index of the board files and
        the bundled datasheets)."""
        with self._lock:
            self._pin_index = index
            self._pins.clear()
            self._gpio_allowed = None

    def resolve_pin(self, pin: str | int) -> tuple[str, Hashable]:
        """Map a pin name, alias or number to (canonical name, backend line id), via the pin resolver."""
        if isinstance(pin, bool) or not isinstance(pin, str | int):
            raise InvalidAddressError(f"{self.url}: pin {echo(repr(pin))} must be a name or a number",
                                      adapter=self.url)
        if isinstance(pin, str) and len(pin) > MAX_PIN_CHARS:
            raise InvalidAddressError(f"{self.url}: pin name {echo(pin)} is longer than {MAX_PIN_CHARS} "
                                      "characters; use the board's pin name or an alias", adapter=self.url)
        hit = self._pins.get(pin)
        if hit is not None:
            return hit
        record = None
        if self.board:
            from edge_agent.pins import resolve

            record = resolve(self.board, pin, self._pin_index)
            name = record.name
        else:
            name = str(pin)
        line = self._gpio_line(record, pin)
        with self._lock:
            while len(self._pins) >= PIN_CACHE_SIZE:  # forget the oldest spelling
                self._pins.pop(next(iter(self._pins)))
            self._pins[pin] = (name, line)
        return name, line

    def gpio_read(self, pin: str | int) -> int:
        """Read the level (0 or 1) of a GPIO line."""
        self._check_open()
        name, line = self.resolve_pin(pin)
        value = self._gpio_read(line)
        self._note_gpio(name, level=value)
        return value

    def gpio_write(self, pin: str | int, value: int) -> None:
        """Drive a GPIO line to ``value`` (0 or 1), making it an output if it is not one."""
        self._check_open()
        if value not in (0, 1) or isinstance(value, float):
            raise InvalidAddressError(f"{self.url}: GPIO value {value!r} must be 0 or 1", adapter=self.url)
        name, line = self.resolve_pin(pin)
        self._check_gpio_write(name, pin)
        self._gpio_write(line, int(value))
        self._note_gpio(name, mode="out", level=int(value))

    def gpio_mode(self, pin: str | int, direction: Direction, pull: Pull = "none") -> None:
        """Set a GPIO line's direction ("in"/"out") and pull ("up"/"down"/"none")."""
        self._check_open()
        if direction not in ("in", "out"):
            raise InvalidAddressError(f"{self.url}: direction {direction!r} must be 'in' or 'out'",
                                      adapter=self.url)
        if pull not in ("up", "down", "none"):
            raise InvalidAddressError(f"{self.url}: pull {pull!r} must be 'up', 'down' or 'none'", adapter=self.url)
        name, line = self.resolve_pin(pin)
        if direction == "out":  # an output drives the wire: same policy as a write
            self._check_gpio_write(name, pin)
        self._gpio_mode(line, direction, pull)
        self._note_gpio(name, mode=direction, pull=pull)

    def _note_gpio(self, name: str, **fields: Any) -> None:
        entry = self._gpio_seen.setdefault(name, {})
        entry.update(fields, at=time.time())

    def gpio_states(self) -> dict[str, dict[str, Any]]:
        """Known state of each GPIO line by canonical name: ``mode`` ("in"/"out"), ``level``, ``pull``.

        Made from what this adapter drove or read (no bus traffic), overlaid with what the backend can
        observe without side effects (:meth:`_gpio_observe`). Lines never touched are absent.
        """
        states = {name: dict(entry) for name, entry in list(self._gpio_seen.items())}
        for name, seen in self._gpio_observe().items():
            states.setdefault(name, {}).update(seen)
        return states

    def gpio_writable(self, pin: str | int) -> bool:
        """Whether the safety policy lets this adapter drive ``pin`` (a check only: nothing is written)."""
        from edge_agent.errors import ConfigError, EdgeAgentError

        try:
            name, _ = self.resolve_pin(pin)
            self._check_gpio_write(name, pin)
        except (ConfigError, EdgeAgentError):
            return False
        return True

    def _check_gpio_write(self, name: str, given: str | int) -> None:
        policy = self.safety
        if policy.writes_open:
            return
        if self._gpio_allowed is None:
            self._gpio_allowed = frozenset(self._resolve_allowed_gpio(policy.gpio_entries()))
        policy.check_gpio_write(self.url, name, given, self._gpio_allowed)

    def _resolve_allowed_gpio(self, entries: tuple[str, ...]) -> set[str]:
        from edge_agent.errors import ConfigError

        names: set[str] = set()
        for entry in entries:
            if entry == "*":
                names.add("*")
                continue
            try:
                names.add(self.resolve_pin(int(entry) if entry.isdigit() else entry)[0])
            except PinError as exc:
                raise ConfigError(f"{self.safety.key_path('writable_gpio')}: {exc}") from None
        return names

    # info ------------------------------------------------------------------------------------
    def capabilities(self) -> dict[str, Any]:
        """What this adapter offers: buses, chip selects, GPIO, limits."""
        try:
            spi = [f"{b}.{c}" for b, c in self._spi_buses()]
        except NotImplementedError:
            spi = []
        return {
            "scheme": self.scheme,
            "url": self.url,
            "name": self.name,
            "board": self.board,
            "i2c": self._i2c_buses(),
            "spi": spi,
            "gpio": self._has_gpio(),
            "ten_bit_addresses": False,
            "writes": self.safety.describe(),
            **self._extra_capabilities(),
        }

    def health(self) -> dict[str, Any]:
        """A small status record: {"ok", "url", "name", ...backend details}."""
        if self.closed:
            return {"ok": False, "url": self.url, "name": self.name, "detail": "closed"}
        try:
            detail = self._health()
        except BusError as exc:
            return {"ok": False, "url": self.url, "name": self.name, "detail": str(exc)}
        return {"ok": True, "url": self.url, "name": self.name, **detail}

    def close(self) -> None:
        """Release every port and the device (idempotent)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            ports: list[I2CBus | SPIDevice] = [*self._i2c.values(), *self._spi.values()]
            self._i2c.clear()
            self._spi.clear()
        for port in ports:
            try:
                port.close()
            except BusError as exc:  # closing must not mask the others
                log.warning("%s: closing a port failed: %s", self.url, exc)
        self._release()

    # hooks -------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _i2c_buses(self) -> list[int]: ...

    @abc.abstractmethod
    def _open_i2c(self, bus: int) -> I2CBus: ...

    def _spi_buses(self) -> list[tuple[int, int]]:
        return []

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        raise InvalidAddressError(f"{self.url}: this adapter has no SPI bus", adapter=self.url)

    def _has_gpio(self) -> bool:
        return True

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        """Backend line id for a resolved ``edge_agent.pins.Pin`` (or None without a board) and the given name."""
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _gpio_read(self, line: Any) -> int:
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _gpio_observe(self) -> dict[str, dict[str, Any]]:
        """Line states the backend can see without changing them (a simulator's model); none by default."""
        return {}

    def _gpio_write(self, line: Any, value: int) -> None:
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        raise InvalidAddressError(f"{self.url}: this adapter has no GPIO lines", adapter=self.url)

    def _extra_capabilities(self) -> dict[str, Any]:
        return {}

    def _health(self) -> dict[str, Any]:
        return {}

    def _release(self) -> None:  # noqa: B027 - optional hook
        """Free the device handle."""


def _bus_number(bus: int | str, kind: str, adapter: str) -> int:
    if isinstance(bus, int) and not isinstance(bus, bool):
        return bus
    if isinstance(bus, str):
        text = bus.strip().lower().removeprefix(kind).removeprefix("-")
        if text.isdigit():
            return int(text)
    raise InvalidAddressError(f"{adapter}: {kind.upper()} bus {bus!r} must be a number like 1 or a name like "
                              f"'{kind}1'", adapter=adapter)
