"""``bridge://DEVICE[?baud=...]``: a microcontroller running firmware_bridge, over serial.

DEVICE is a serial device path (``/dev/ttyACM0``, a ``/dev/serial/by-id/...`` link), any pyserial
URL (``loop://``, ``socket://host:port``, ``rfc2217://...``) or ``auto`` (the one attached board
found by USB VID:PID). Options: ``baud`` (default 115200), ``timeout_scale`` (multiplies every
per-command timeout), ``exclusive`` (lock the port, default true), ``reconnect`` (reopen after an
unplug, default true), ``handshake`` (check the protocol with ``hello`` at open, default true).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeGuard

from edge_agent.bus.base import Adapter, Direction, I2CBus, Pull, ScanReport, SPIDevice, check_address
from edge_agent.bus.bridge.link import Link
from edge_agent.bus.bridge.protocol import (
    DEFAULT_BAUD,
    MAX_DATA,
    PROTOCOL0_COMMANDS,
    UnsupportedCommandError,
    from_hex,
    parse_capabilities,
    to_hex,
)
from edge_agent.errors import AdapterUnavailableError, InvalidAdapterURL, ProtocolError
from edge_agent.jsontypes import JsonObject, JsonValue

if TYPE_CHECKING:
    from edge_agent.bus.safety import SafetyPolicy
    from edge_agent.bus.url import AdapterURL

OPTIONS = ("baud", "timeout_scale", "exclusive", "reconnect", "handshake")
#: Firmware SPI clock range (PROTOCOL.md: 1000..8000000 Hz; SPI1 runs from the 16 MHz PCLK2 / 2).
SPI_MIN_HZ, SPI_MAX_HZ = 1_000, 8_000_000


class BridgeI2CBus(I2CBus):
    """I2C1 of the board, driven through the firmware's i2c_* commands."""

    max_transfer = MAX_DATA

    def __init__(self, adapter: BridgeAdapter, bus: int) -> None:
        super().__init__(adapter, bus, frequency_hz=100_000)
        self._link = adapter.link

    def scan(self, first: int = 0x03, last: int = 0x77) -> list[int]:
        """Addresses that acknowledge. One ``i2c_scan`` round trip covers 0x08-0x77 (the firmware
        probes the way ``scan_method`` does); 0x03-0x07, if asked for, are probed one by one."""
        self._check_open()
        check_address(first, self._where)
        check_address(last, self._where)
        if self._link.protocol == 0:
            raise UnsupportedCommandError(f"{self._where}: protocol-0 firmware has no I2C", adapter=self._where)
        result = self._link.request("i2c_scan")
        if not isinstance(result, list) or not all(_is_address(a) for a in result):
            raise ProtocolError(f"{self._where}: i2c_scan returned {str(result)[:80]!r}, expected a list of 7-bit "
                                "addresses; the firmware and this driver disagree on the protocol (flash the "
                                "matching firmware_bridge build)", adapter=self._where)
        found = [a for a in result if _is_address(a) and first <= a <= last]
        for address in [*range(first, min(last, 0x07) + 1)]:
            if self._probe(address, "quick"):
                found.append(address)
        return sorted(found)

    def scan_report(self, first: int = 0x08, last: int = 0x77) -> ScanReport:
        """The firmware owns its bus alone: nothing is ever busy."""
        return ScanReport(self.scan(first, last), [])

    def _read(self, address: int, n: int) -> bytes:
        result = self._link.request("i2c_read", {"addr": address, "len": n}, address=address)
        return self._checked(from_hex(result, adapter=self._where, cmd="i2c_read"), n)

    def _write(self, address: int, data: bytes) -> None:
        self._link.request("i2c_write", {"addr": address, "data": to_hex(data)}, address=address)

    def _write_read(self, address: int, data: bytes, n: int) -> bytes:
        result = self._link.request("i2c_write_read", {"addr": address, "data": to_hex(data), "len": n},
                                    address=address)
        return self._checked(from_hex(result, adapter=self._where, cmd="i2c_write_read"), n)

    def _checked(self, data: bytes, n: int) -> bytes:
        if len(data) != n:
            raise ProtocolError(f"{self._where}: asked for {n} bytes, firmware returned {len(data)}",
                                adapter=self._where)
        return data


def _is_address(value: JsonValue) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0x7F


def _wire_pin(line: Hashable) -> str | int:
    """A GPIO line as the firmware takes it: the board's pin name, or an Arduino number for protocol 0."""
    return line if isinstance(line, str | int) else str(line)


class BridgeSPIDevice(SPIDevice):
    """SPI1 of the board with chip select D10 (cs 0) driven by the firmware around each transfer."""

    max_transfer = MAX_DATA

    def __init__(self, adapter: BridgeAdapter, bus: int, cs: int, *, mode: int, speed_hz: int) -> None:
        super().__init__(adapter, bus, cs, mode=mode, speed_hz=speed_hz)
        self._link = adapter.link

    def _transfer(self, data: bytes) -> bytes:
        hz = max(SPI_MIN_HZ, min(self.speed_hz, SPI_MAX_HZ))
        result = self._link.request("spi_transfer", {"data": to_hex(data), "mode": self.mode, "hz": hz})
        out = from_hex(result, adapter=self.adapter.url, cmd="spi_transfer")
        if len(out) != len(data):
            raise ProtocolError(f"{self.adapter.url}: SPI transfer of {len(data)} bytes returned {len(out)}",
                                adapter=self.adapter.url)
        return out


class BridgeAdapter(Adapter):
    """A board running firmware_bridge: I2C bus 1, SPI 1.0, GPIO by pin name, ADC."""

    scheme = "bridge"

    def __init__(self, url: AdapterURL, link: Link, *, name: str | None, board: str | None,
                 safety: SafetyPolicy) -> None:
        super().__init__(url, name=name, board=board, safety=safety)
        self.link = link
        if self.board is None and link.hello.get("board"):
            from edge_agent.pins import list_boards

            # Pin names resolve through the board the firmware reports, when boards/ knows it.
            if str(link.hello["board"]) in list_boards():
                self.board = str(link.hello["board"])

    # ports -------------------------------------------------------------------------------------
    def _i2c_buses(self) -> list[int]:
        return [] if self.link.protocol == 0 else [1]

    def _open_i2c(self, bus: int) -> I2CBus:
        return BridgeI2CBus(self, bus)

    def _spi_buses(self) -> list[tuple[int, int]]:
        return [] if self.link.protocol == 0 else [(1, 0)]

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        return BridgeSPIDevice(self, bus, cs, mode=mode, speed_hz=speed_hz)

    # GPIO ----------------------------------------------------------------------------------------
    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        # The firmware resolves names itself; send the board's canonical chip name when the pin
        # resolver knows the board (so aliases like "red_led" work), else what the caller gave.
        if pin is not None:
            if self.link.protocol == 0:
                # Protocol-0 firmware only understands Arduino integers.
                number: Hashable = pin.number if pin.number is not None else pin.name
                return number
            name: Hashable = pin.name
            return name
        return raw

    def _gpio_read(self, line: Any) -> int:
        result = self.link.request("gpio_read", {"pin": _wire_pin(line)})
        if result not in ("0", "1", 0, 1):
            raise ProtocolError(f"{self.url}: gpio_read returned {result!r}, expected \"0\" or \"1\"", adapter=self.url)
        return int(result)

    def _gpio_write(self, line: Any, value: int) -> None:
        self.link.request("gpio_write", {"pin": _wire_pin(line), "value": value})

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        self.link.request("gpio_mode", {"pin": _wire_pin(line), "mode": direction, "pull": pull})

    def adc_read(self, pin: str | int) -> int:
        """One 12-bit ADC conversion (0-4095) on an analog-capable pin (A0-A5)."""
        self._check_open()
        name, line = self.resolve_pin(pin)
        # The firmware switches the pad to analog mode for the conversion, which stops a driven output:
        # for the safety policy that is a mode change, so a write.
        self._check_gpio(line, f"switch GPIO {name} to analog input for an ADC conversion", pin)
        result = self.link.request("adc_read", {"pin": _wire_pin(line)})
        if not isinstance(result, int) or isinstance(result, bool):
            raise ProtocolError(f"{self.url}: adc_read returned {result!r}, expected an integer", adapter=self.url)
        return result

    def ping(self) -> None:
        """One ``ping`` round trip; raises if the firmware does not answer ``pong``."""
        self._check_open()
        result = self.link.request("ping")
        if result != "pong":
            raise ProtocolError(f"{self.url}: ping answered {result!r}, expected 'pong'", adapter=self.url)

    # info ----------------------------------------------------------------------------------------
    def firmware_capabilities(self) -> JsonObject:
        """The firmware's own capabilities object (protocol 0 and 1 both answer this)."""
        self._check_open()
        return parse_capabilities(self.link.request("capabilities"))

    def _extra_capabilities(self) -> dict[str, Any]:
        return {
            "protocol": self.link.protocol,
            "firmware": self.link.hello.get("firmware"),
            "commands": self.link.hello.get("cmds", sorted(PROTOCOL0_COMMANDS)),
            "max_transfer": MAX_DATA,
            "adc": self.link.protocol != 0,
        }

    def _health(self) -> dict[str, Any]:
        state = self.link.health()  # replaces a dead or stalled reader
        if state["reader"] != "running":
            raise AdapterUnavailableError(f"{self.url}: the link's reader was {state['reader']}; reopening "
                                          f"{self.link.device}", adapter=self.url)
        self.ping()
        return self.link.health()

    def _release(self) -> None:
        self.link.close()


def _device_from(url: AdapterURL) -> str:
    target = url.target
    if not target:
        raise InvalidAdapterURL(
            f"{url}: bridge:// needs a serial device, e.g. bridge:///dev/ttyACM0, bridge://loop:// or bridge://auto")
    if target == "auto":
        from edge_agent.bus.bridge.discovery import find_one

        return find_one().device
    return target


def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> Adapter:
    """Backend hook for the registry: open the serial link and check the firmware's protocol."""
    url.check_options(OPTIONS)
    baud = url.int_option("baud", DEFAULT_BAUD, minimum=300, maximum=4_000_000)
    raw_scale = url.options.get("timeout_scale", "1")
    try:
        scale = float(raw_scale)
    except ValueError:
        raise InvalidAdapterURL(f"{url}: option timeout_scale={raw_scale!r} is not a number") from None
    if not 0.1 <= scale <= 100:
        raise InvalidAdapterURL(f"{url}: option timeout_scale={scale} is outside 0.1..100")
    link = Link(
        _device_from(url),
        baud=baud,
        adapter=str(url),
        exclusive=url.bool_option("exclusive", True),
        reconnect=url.bool_option("reconnect", True),
        timeout_scale=scale,
    )
    link.open(handshake=url.bool_option("handshake", True))
    return BridgeAdapter(url, link, name=name, board=board, safety=safety)
