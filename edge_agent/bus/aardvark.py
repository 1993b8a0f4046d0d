"""``aardvark://[PORT_OR_SERIAL][?bitrate_khz=100&pullups=1&power=0&config=spi+i2c]``: Total Phase Aardvark.

The handle is opened once and held (reserved) until ``close()``; if the adapter is unplugged the
next call reopens it by serial number. Every aardvark_py return value is checked: negative library
codes and the I2C status of the ``*_ext`` calls become our errors, naming the operation, and no
vendor code leaves this module. ``write_read`` is one bus transaction with a repeated START
(``aa_i2c_write_read``; with an older library, a write with ``AA_I2C_NO_STOP`` then a read).

The 6 pins of the SPI and I2C groups double as GPIO lines (SCL, SDA, MISO, SCK, MOSI, SS) when the
``config`` option frees them: ``spi+i2c`` (default, no GPIO), ``gpio+i2c`` (SPI pins are GPIO),
``spi+gpio`` (I2C pins are GPIO), ``gpio`` (all six).
"""

from __future__ import annotations

import logging
import threading
from array import array
from collections.abc import Hashable
from typing import Any, TypeVar

import aardvark_py as aa

from edge_agent.bus.base import Adapter, Direction, I2CBus, ProbeMethod, Pull, SPIDevice
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.url import AdapterURL
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusError,
    I2CNackError,
    InvalidAdapterURL,
    InvalidAddressError,
)

log = logging.getLogger(__name__)

OPTIONS = ("bitrate_khz", "pullups", "power", "config")
CONFIGS = {
    "spi+i2c": aa.AA_CONFIG_SPI_I2C,
    "gpio+i2c": aa.AA_CONFIG_GPIO_I2C,
    "spi+gpio": aa.AA_CONFIG_SPI_GPIO,
    "gpio": aa.AA_CONFIG_GPIO_ONLY,
}
GPIO_BITS = {"SCL": aa.AA_GPIO_SCL, "SDA": aa.AA_GPIO_SDA, "MISO": aa.AA_GPIO_MISO, "SCK": aa.AA_GPIO_SCK,
             "MOSI": aa.AA_GPIO_MOSI, "SS": aa.AA_GPIO_SS}
_I2C_PINS = ("SCL", "SDA")
_SPI_PINS = ("MISO", "SCK", "MOSI", "SS")
#: Library codes meaning the USB link is gone: reopen on the next call.
_GONE = {aa.AA_COMMUNICATION_ERROR, aa.AA_UNABLE_TO_OPEN, aa.AA_UNABLE_TO_LOAD_DRIVER}
#: The Aardvark's I2C buffer: transfers are limited to 64 KiB - 1 by the 16-bit length field.
MAX_TRANSFER = 65535


def status_text(code: int) -> str:
    """The library's text for a status code (falls back to the number)."""
    try:
        text = aa.aa_status_string(code)
    except Exception:  # noqa: BLE001 - the string table is best effort
        text = None
    return f"{text or 'unknown status'} (code {code})"


_T = TypeVar("_T")


class AardvarkAdapter(Adapter):
    """One Aardvark, opened by port number or serial number, handle held."""

    scheme = "aardvark"

    def __init__(self, url: AdapterURL, *, name: str | None, board: str | None, safety: SafetyPolicy,
                 port: int | None, serial: int | None, bitrate_khz: int, pullups: bool, power: bool,
                 config: str) -> None:
        super().__init__(url, name=name, board=board, safety=safety)
        self._want_port, self._want_serial = port, serial
        self.bitrate_khz, self.pullups, self.power, self.config = bitrate_khz, pullups, power, config
        self._handle: int | None = None
        self.serial: int | None = None
        self._hw_lock = threading.RLock()
        self._gpio_dir = 0
        self._gpio_out = 0
        self._gpio_pull = 0
        self._spi_setup: tuple[int, int] | None = None
        self.actual_bitrate_khz = bitrate_khz
        self._connect()

    # status checking -----------------------------------------------------------------------------
    def _fail(self, code: int, operation: str, address: int | None = None) -> BusError:
        if code in _GONE:
            self._drop_handle()
            return AdapterUnavailableError(f"{self.url}: {operation} failed: {status_text(code)}; the Aardvark "
                                           "was unplugged or is unreachable; reconnect it (the next call reopens it)",
                                           adapter=self.url, address=address)
        if code == aa.AA_I2C_NOT_ENABLED or code == aa.AA_SPI_NOT_ENABLED or code == aa.AA_GPIO_NOT_AVAILABLE:
            return InvalidAddressError(f"{self.url}: {operation} failed: {status_text(code)}; this port is not "
                                       f"enabled by config={self.config}", adapter=self.url, address=address)
        return BusError(f"{self.url}: {operation} failed: {status_text(code)}", adapter=self.url, address=address)

    def ok(self, result: _T, operation: str, address: int | None = None) -> _T:
        """Return ``result`` unless it is (or starts with) a negative library code, which raises."""
        code = result[0] if isinstance(result, tuple) else result
        if isinstance(code, int) and code < 0:
            raise self._fail(code, operation, address)
        return result

    def i2c_status(self, status: int, operation: str, address: int) -> None:
        """Raise for a non-zero AardvarkI2cStatus from an ``*_ext`` call."""
        if status == aa.AA_I2C_STATUS_OK:
            return
        if status < 0:
            raise self._fail(status, operation, address)
        if status in (aa.AA_I2C_STATUS_SLA_NACK, aa.AA_I2C_STATUS_DATA_NACK):
            what = "address" if status == aa.AA_I2C_STATUS_SLA_NACK else "a data byte"
            raise I2CNackError(f"{self.url}: {operation}: target 0x{address:02X} did not acknowledge {what}",
                               adapter=self.url, address=address)
        if status in (aa.AA_I2C_STATUS_BUS_LOCKED, aa.AA_I2C_STATUS_ARB_LOST):
            why = "SDA or SCL held low (bus locked)" if status == aa.AA_I2C_STATUS_BUS_LOCKED else "arbitration lost"
            raise BusBusyError(f"{self.url}: {operation} with 0x{address:02X}: {why}; check wiring and pull-ups, "
                               "or power-cycle the target", adapter=self.url, address=address)
        raise BusError(f"{self.url}: {operation} with 0x{address:02X}: I2C status {status} (bus error)",
                       adapter=self.url, address=address)

    # handle ------------------------------------------------------------------------------------------
    def _connect(self) -> int:
        with self._hw_lock:
            if self._handle is not None:
                return self._handle
            result = aa.aa_find_devices_ext(16, 16)
            if isinstance(result, int) or result[0] < 0:
                code = result if isinstance(result, int) else result[0]
                raise AdapterUnavailableError(
                    f"{self.url}: no Aardvark found: {status_text(code)}; plug it in and check the udev rule "
                    "(99-totalphase.rules) and that the aardvark library matches this CPU", adapter=self.url)
            count, ports, ids = result
            pairs = list(zip(ports[:count], ids[:count], strict=False))
            chosen = self._choose(pairs)
            port = chosen[0]
            if port & aa.AA_PORT_NOT_FREE:
                raise AdapterUnavailableError(f"{self.url}: the Aardvark on port {port & 0x7FFF} is in use by "
                                              "another program", adapter=self.url)
            handle = aa.aa_open(port)
            if handle <= 0:
                raise AdapterUnavailableError(f"{self.url}: opening Aardvark port {port} failed: "
                                              f"{status_text(handle)}", adapter=self.url)
            self._handle, self.serial = handle, chosen[1]
            try:
                self._configure(handle)
            except BusError:
                self._drop_handle()
                raise
            return int(handle)

    def _choose(self, pairs: list[tuple[int, int]]) -> tuple[int, int]:
        if not pairs:
            raise AdapterUnavailableError(f"{self.url}: no Aardvark is connected; plug one in and check "
                                          "`lsusb` for 0403:e0d0", adapter=self.url)
        if self._want_serial is not None:
            for p in pairs:
                if p[1] == self._want_serial:
                    return p
            raise AdapterUnavailableError(f"{self.url}: no Aardvark with serial {_serial_text(self._want_serial)}; "
                                          f"connected: {', '.join(_serial_text(s) for _, s in pairs)}",
                                          adapter=self.url)
        if self._want_port is not None:
            for p in pairs:
                if p[0] & 0x7FFF == self._want_port:
                    return p
            raise AdapterUnavailableError(f"{self.url}: no Aardvark on port {self._want_port}; connected ports: "
                                          f"{', '.join(str(p & 0x7FFF) for p, _ in pairs)}", adapter=self.url)
        if len(pairs) > 1:
            raise InvalidAdapterURL(f"{self.url}: {len(pairs)} Aardvarks are connected; name one by serial, e.g. "
                                    f"aardvark://{_serial_text(pairs[0][1])}")
        return pairs[0]

    def _configure(self, h: int) -> None:
        # Defaults as the adapter boots: I2C and SPI both enabled, 100 kHz; the pull-ups (2.2 kOhm) and
        # target power are opt-in because they fight a board's own pull-ups / supply.
        self.ok(aa.aa_configure(h, CONFIGS[self.config]), "configure")
        self.ok(aa.aa_i2c_pullup(h, aa.AA_I2C_PULLUP_BOTH if self.pullups else aa.AA_I2C_PULLUP_NONE),
                "set I2C pull-ups")
        status = aa.aa_target_power(h, 0x03 if self.power else 0x00)
        # Hardware before v2 cannot switch target power; that only matters when power was asked for.
        if self.power or not (isinstance(status, int) and status == aa.AA_INCOMPATIBLE_DEVICE):
            self.ok(status, "set target power")
        if self.config in ("spi+i2c", "gpio+i2c"):
            self.actual_bitrate_khz = self.ok(aa.aa_i2c_bitrate(h, self.bitrate_khz), "set I2C bitrate")
        self._spi_setup = None
        if self._gpio_dir:
            self.ok(aa.aa_gpio_direction(h, self._gpio_dir), "restore GPIO directions")
            self.ok(aa.aa_gpio_set(h, self._gpio_out), "restore GPIO outputs")

    def handle(self) -> int:
        """The open handle, reopening after an unplug."""
        if self.closed:
            raise AdapterUnavailableError(f"{self.url}: adapter is closed", adapter=self.url)
        return self._handle if self._handle is not None else self._connect()

    def _drop_handle(self) -> None:
        h, self._handle = self._handle, None
        if h is not None:
            try:
                aa.aa_close(h)
            except Exception:  # noqa: BLE001 - the device may already be gone
                pass

    # ports -------------------------------------------------------------------------------------------
    def _i2c_buses(self) -> list[int]:
        return [0] if self.config in ("spi+i2c", "gpio+i2c") else []

    def _open_i2c(self, bus: int) -> I2CBus:
        return AardvarkI2C(self, bus, frequency_hz=self.actual_bitrate_khz * 1000)

    def _spi_buses(self) -> list[tuple[int, int]]:
        return [(0, 0)] if self.config in ("spi+i2c", "spi+gpio") else []

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        return AardvarkSPI(self, bus, cs, mode=mode, speed_hz=speed_hz)

    def _gpio_pins(self) -> tuple[str, ...]:
        return {"spi+i2c": (), "gpio+i2c": _SPI_PINS, "spi+gpio": _I2C_PINS, "gpio": _I2C_PINS + _SPI_PINS}[self.config]

    def _has_gpio(self) -> bool:
        return bool(self._gpio_pins())

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        name = (pin.name if pin is not None else str(raw)).upper()
        if name not in self._gpio_pins():
            free = ", ".join(self._gpio_pins()) or "none (use config=gpio+i2c, spi+gpio or gpio)"
            raise InvalidAddressError(f"{self.url}: {raw!r} is not a GPIO line with config={self.config}; "
                                      f"GPIO lines: {free}", adapter=self.url)
        bit: Hashable = GPIO_BITS[name]
        return bit

    def _gpio_read(self, line: Any) -> int:
        with self._hw_lock:
            value = self.ok(aa.aa_gpio_get(self.handle()), "read GPIO")
        return 1 if value & line else 0

    def _gpio_write(self, line: Any, value: int) -> None:
        with self._hw_lock:
            h = self.handle()
            self._gpio_out = self._gpio_out | line if value else self._gpio_out & ~line
            self.ok(aa.aa_gpio_set(h, self._gpio_out), "set GPIO outputs")
            if not self._gpio_dir & line:
                self._gpio_dir |= line
                self.ok(aa.aa_gpio_direction(h, self._gpio_dir), "set GPIO direction")

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        if pull == "down":
            raise InvalidAddressError(f"{self.url}: Aardvark GPIO lines have pull-ups only; use pull='up' or 'none'",
                                      adapter=self.url)
        with self._hw_lock:
            h = self.handle()
            self._gpio_dir = self._gpio_dir | line if direction == "out" else self._gpio_dir & ~line
            self.ok(aa.aa_gpio_direction(h, self._gpio_dir), "set GPIO direction")
            self._gpio_pull = self._gpio_pull | line if pull == "up" else self._gpio_pull & ~line
            self.ok(aa.aa_gpio_pullup(h, self._gpio_pull), "set GPIO pull-ups")

    def _extra_capabilities(self) -> dict[str, Any]:
        return {"gpio_lines": list(self._gpio_pins()), "config": self.config, "max_transfer": MAX_TRANSFER}

    def _health(self) -> dict[str, Any]:
        with self._hw_lock:
            h = self.handle()
            unique = self.ok(aa.aa_unique_id(h), "read serial number")
        return {"serial": _serial_text(unique), "bitrate_khz": self.actual_bitrate_khz}

    def _release(self) -> None:
        with self._hw_lock:
            self._drop_handle()


class AardvarkI2C(I2CBus):
    """The Aardvark's I2C controller port."""

    max_transfer = MAX_TRANSFER

    @property
    def _aa(self) -> AardvarkAdapter:
        adapter = self.adapter
        assert isinstance(adapter, AardvarkAdapter)
        return adapter

    def _read(self, address: int, n: int) -> bytes:
        a = self._aa
        with a._hw_lock:
            status, data, num = a.ok(aa.aa_i2c_read_ext(a.handle(), address, aa.AA_I2C_NO_FLAGS, n), "I2C read",
                                     address)
        a.i2c_status(status, "I2C read", address)
        if num != n:
            raise BusError(f"{a.url}: I2C read from 0x{address:02X} returned {num} of {n} bytes",
                           adapter=a.url, address=address)
        return bytes(data)

    def _write(self, address: int, data: bytes) -> None:
        a = self._aa
        with a._hw_lock:
            status, num = a.ok(aa.aa_i2c_write_ext(a.handle(), address, aa.AA_I2C_NO_FLAGS, array("B", data)),
                               "I2C write", address)
        a.i2c_status(status, "I2C write", address)
        if num != len(data):
            raise BusError(f"{a.url}: I2C write to 0x{address:02X} sent {num} of {len(data)} bytes",
                           adapter=a.url, address=address)

    def _write_read(self, address: int, data: bytes, n: int) -> bytes:
        a = self._aa
        with a._hw_lock:
            h = a.handle()
            if hasattr(aa, "aa_i2c_write_read"):
                ret, num_written, in_data, num_read = a.ok(
                    aa.aa_i2c_write_read(h, address, aa.AA_I2C_NO_FLAGS, array("B", data), n),
                    "I2C write-then-read", address)
                # The status packs (read status << 8) | write status.
                a.i2c_status(ret & 0xFF, "I2C write-then-read (write phase)", address)
                a.i2c_status(ret >> 8, "I2C write-then-read (read phase)", address)
            else:  # pragma: no cover - libraries before 5.40 lack the combined call
                status, num_written = a.ok(aa.aa_i2c_write_ext(h, address, aa.AA_I2C_NO_STOP, array("B", data)),
                                           "I2C write (no stop)", address)
                a.i2c_status(status, "I2C write (no stop)", address)
                status, in_data, num_read = a.ok(aa.aa_i2c_read_ext(h, address, aa.AA_I2C_NO_FLAGS, n),
                                                 "I2C read after repeated start", address)
                a.i2c_status(status, "I2C read after repeated start", address)
        if num_written != len(data) or num_read != n:
            raise BusError(f"{a.url}: I2C write-then-read with 0x{address:02X} moved {num_written}/{len(data)} "
                           f"and {num_read}/{n} bytes", adapter=a.url, address=address)
        return bytes(in_data)

    def _probe(self, address: int, method: ProbeMethod) -> bool:
        try:
            if method == "read":
                self._read(address, 1)
            else:
                self._write(address, b"")  # a zero-length write is the Aardvark's quick command
        except I2CNackError:
            return False
        return True


class AardvarkSPI(SPIDevice):
    """The Aardvark's SPI controller port (one chip select, SS)."""

    max_transfer = MAX_TRANSFER

    def _transfer(self, data: bytes) -> bytes:
        a = self.adapter
        assert isinstance(a, AardvarkAdapter)
        with a._hw_lock:
            h = a.handle()
            setup = (self.mode, self.speed_hz)
            if a._spi_setup != setup:
                # CPOL = mode bit 1, CPHA = mode bit 0; MSB first as most parts expect.
                a.ok(aa.aa_spi_configure(h, self.mode >> 1, self.mode & 1, aa.AA_SPI_BITORDER_MSB), "configure SPI")
                a.ok(aa.aa_spi_bitrate(h, max(1, self.speed_hz // 1000)), "set SPI bitrate")
                a.ok(aa.aa_spi_master_ss_polarity(h, aa.AA_SPI_SS_ACTIVE_LOW), "set SS polarity")
                a._spi_setup = setup
            count, data_in = a.ok(aa.aa_spi_write(h, array("B", data), len(data)), "SPI transfer")
        if count != len(data):
            raise BusError(f"{a.url}: SPI transfer moved {count} of {len(data)} bytes", adapter=a.url)
        return bytes(data_in)


def _serial_text(unique_id: int) -> str:
    # Aardvark serial numbers print as NNNN-NNNNNN; the API gives the 10 digits as one integer.
    digits = f"{unique_id:010d}"
    return f"{digits[:4]}-{digits[4:]}"


def _parse_target(url: AdapterURL) -> tuple[int | None, int | None]:
    target = url.target.strip("/")
    if not target:
        return None, None
    digits = target.replace("-", "")
    if not digits.isdigit():
        raise InvalidAdapterURL(f"{url}: the target must be a port number (0-15) or a serial like 2237-170206")
    value = int(digits)
    return (value, None) if len(digits) <= 2 and "-" not in target else (None, value)


def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> AardvarkAdapter:
    """Backend hook: open ``aardvark://``."""
    url.check_options(OPTIONS)
    port, serial = _parse_target(url)
    return AardvarkAdapter(
        url, name=name, board=board, safety=safety, port=port, serial=serial,
        bitrate_khz=url.int_option("bitrate_khz", 100, minimum=1, maximum=800),
        pullups=url.bool_option("pullups", False),
        power=url.bool_option("power", False),
        config=_config_option(url),
    )


def _config_option(url: AdapterURL) -> str:
    # A literal '+' in a query string decodes to a space, so accept "gpio+i2c" written either way.
    raw = url.options.get("config", "spi+i2c").strip().replace(" ", "+")
    if raw not in CONFIGS:
        raise InvalidAdapterURL(f"{url}: option config={raw!r} must be one of {', '.join(CONFIGS)}")
    return raw
