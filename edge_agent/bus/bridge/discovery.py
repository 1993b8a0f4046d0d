"""Find attached bridge boards by USB VID:PID (pyserial's port enumeration)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Protocol

from serial.tools import list_ports

from edge_agent.errors import AdapterUnavailableError
from edge_agent.jsontypes import JsonObject

#: USB IDs of debug probes and USB-serial chips that carry a bridge board's UART. ST-LINK/V2-1
#: (NUCLEO-64 boards such as the F401RE) enumerates as 0483:374B; STLINK-V3 variants as
#: 374E/374F/3753/3754. A NUCLEO-F411RE also shows 374B, so the board name is only a guess.
KNOWN_USB_IDS: dict[tuple[int, int], tuple[str, str]] = {
    (0x0483, 0x374B): ("ST-LINK/V2-1", "nucleo-f401re"),
    (0x0483, 0x374E): ("STLINK-V3E", "nucleo"),
    (0x0483, 0x374F): ("STLINK-V3", "nucleo"),
    (0x0483, 0x3752): ("ST-LINK/V2-1 (no mass storage)", "nucleo"),
    (0x0483, 0x3753): ("STLINK-V3 (dual VCP)", "nucleo"),
    (0x0483, 0x3754): ("STLINK-V3 (no mass storage)", "nucleo"),
    (0x2341, 0x0043): ("Arduino Uno R3 (ATmega16U2)", "arduino-uno"),
    (0x2341, 0x0001): ("Arduino Uno (ATmega8U2)", "arduino-uno"),
    (0x2E8A, 0x0005): ("Raspberry Pi Pico (MicroPython CDC)", "rpi-pico"),
    (0x10C4, 0xEA60): ("Silicon Labs CP210x", "esp32-devkitc"),
    (0x1A86, 0x7523): ("WCH CH340", "esp32-devkitc"),
}


@dataclass(frozen=True)
class FoundPort:
    """A serial port whose USB ID matches a known bridge board or probe."""

    device: str
    vid: int
    pid: int
    probe: str
    board_guess: str
    serial_number: str | None
    description: str

    @property
    def usb_id(self) -> str:
        """VID:PID as lower-case hex, as lsusb prints it."""
        return f"{self.vid:04x}:{self.pid:04x}"

    @property
    def url(self) -> str:
        """The bridge:// URL that opens this port."""
        return f"bridge://{self.device}"

    def as_dict(self) -> JsonObject:
        """A JSON-ready record."""
        return {**asdict(self), "usb_id": self.usb_id, "url": self.url}


class PortInfo(Protocol):
    """What discovery reads of a serial port (pyserial's ``ListPortInfo`` has it)."""

    @property
    def device(self) -> str: ...
    @property
    def vid(self) -> int | None: ...
    @property
    def pid(self) -> int | None: ...
    @property
    def serial_number(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...


def find_ports(ports: Iterable[PortInfo] | None = None) -> list[FoundPort]:
    """Attached ports with a known VID:PID, sorted by device path.

    ``ports`` defaults to ``serial.tools.list_ports.comports()``; anything with ``device``, ``vid``,
    ``pid``, ``serial_number`` and ``description`` attributes works (tests pass their own).
    """
    found = []
    for p in list_ports.comports() if ports is None else ports:
        if p.vid is None or p.pid is None:
            continue
        known = KNOWN_USB_IDS.get((p.vid, p.pid))
        if known is None:
            continue
        found.append(FoundPort(p.device, p.vid, p.pid, known[0], known[1], p.serial_number, p.description or ""))
    return sorted(found, key=lambda f: f.device)


def find_one(ports: Iterable[PortInfo] | None = None) -> FoundPort:
    """The single attached board, for ``bridge://auto``; an error if there are none or several."""
    found = find_ports(ports)
    if not found:
        raise AdapterUnavailableError(
            "bridge://auto: no board with a known USB ID is attached; plug it in, or give the device "
            "path (bridge:///dev/ttyACM0)", adapter="bridge://auto")
    if len(found) > 1:
        listed = ", ".join(f"{f.device} ({f.usb_id} {f.probe})" for f in found)
        raise AdapterUnavailableError(
            f"bridge://auto: several boards are attached ({listed}); name one, e.g. bridge://{found[0].device}",
            adapter="bridge://auto")
    return found[0]
