"""One I2C bus of an adapter (:class:`I2CBus`), the port a driver holds for one target (:class:`I2CDevice`),
and the i2cdetect-style scan report and grid."""

from __future__ import annotations

import abc
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from edge_agent.bus.checks import (
    I2C_LAST_ADDRESS,
    I2C_SCAN_FIRST,
    ProbeMethod,
    ProbeState,
    as_bytes,
    check_address,
    check_length,
    check_register,
)
from edge_agent.errors import AdapterUnavailableError, BusBusyError, BusError, I2CNackError

if TYPE_CHECKING:
    from edge_agent.bus.adapter import Adapter


def _register_bytes(register: int, width: int) -> bytes:
    # Multi-byte register (word) addresses go most significant byte first on the wire (24C32 and up).
    return register.to_bytes(width, "big")


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
        self.adapter.safety.check_i2c(self._where, self.bus, address, payload)
        self._write(address, payload)

    def write_read(self, address: int, data: bytes | bytearray | list[int], n: int) -> bytes:
        """Write ``data`` then read ``n`` bytes with a repeated START (no STOP in between).

        A one-byte ``data`` is a register pointer and counts as a read. Longer ``data`` may store values
        in the target (register, value, ...), so the safety policy checks every register it can store into.
        """
        self._check_open()
        check_address(address, self._where)
        payload = as_bytes(data, self._where)
        check_length(len(payload), self.max_transfer, self._where, "write", address)
        check_length(n, self.max_transfer, self._where, "read", address)
        self.adapter.safety.check_i2c(self._where, self.bus, address, payload, then_read=True)
        return self._write_read(address, payload, n)

    def read_register(self, address: int, register: int, n: int = 1, *, register_width: int = 1) -> bytes:
        """Read ``n`` bytes starting at ``register`` (pointer write, repeated START, read).

        A two-byte pointer is a read on parts that take one (24C32 and up) but stores the second byte
        in a part with 8-bit registers, so the safety policy checks ``register_width=2`` like a write unless
        the allow-list says the part at ``address`` has two-byte register addresses.
        """
        self._check_open()
        check_address(address, self._where)
        check_register(register, register_width, self._where, address)
        check_length(n, self.max_transfer, self._where, "read", address)
        pointer = _register_bytes(register, register_width)
        self.adapter.safety.check_i2c(self._where, self.bus, address, pointer, then_read=True)
        try:
            return self._write_read(address, pointer, n)
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
        wire = _register_bytes(register, register_width) + payload
        self.adapter.safety.check_i2c(self._where, self.bus, address, wire)
        try:
            self._write(address, wire)
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

