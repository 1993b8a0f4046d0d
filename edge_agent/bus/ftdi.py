"""``ftdi://ftdi:232h/1[?mode=i2c&i2c_hz=100000&cs_count=1]``: FTDI FT232H / FT2232H / FT4232H via pyftdi.

The URL without our options goes to pyftdi as is. One MPSSE interface is either an I2C or an SPI
controller (``mode=i2c``, the default, or ``mode=spi``); free pins of that interface are GPIO lines
named ``AD0``-``AD7`` and ``AC0``-``AC7`` (bit 0-15). For I2C, AD1 and AD2 must be tied together
(SDA out and in) and the bus needs external pull-ups: the FT232H has none. pyftdi's exceptions and
pyusb's errors never leave this module.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar, cast

from pyftdi.ftdi import FtdiError
from pyftdi.i2c import I2cController, I2cIOError, I2cNackError, I2cTimeoutError
from pyftdi.spi import SpiController
from usb.core import USBError

from edge_agent.bus.base import Adapter, Direction, I2CBus, ProbeMethod, Pull, SPIDevice
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.url import AdapterURL
from edge_agent.errors import (
    AdapterUnavailableError,
    BusError,
    BusTimeoutError,
    I2CNackError,
    InvalidAdapterURL,
    InvalidAddressError,
)

log = logging.getLogger(__name__)

OPTIONS = ("mode", "i2c_hz", "cs_count")


def _pin_name(bit: int) -> str:
    return f"AD{bit}" if bit < 8 else f"AC{bit - 8}"


_T = TypeVar("_T")


class GpioController(Protocol):
    """What this backend uses of either pyftdi controller: its spare GPIO lines and closing it."""

    @property
    def gpio_all_pins(self) -> int: ...

    def read_gpio(self, with_output: bool = False) -> int: ...

    def write_gpio(self, value: int) -> None: ...

    def set_gpio_direction(self, pins: int, direction: int) -> None: ...

    def close(self) -> None: ...

    def terminate(self) -> None: ...


class I2cHandle(GpioController, Protocol):
    """What this backend uses of pyftdi's ``I2cController`` (mode=i2c)."""

    def read(self, address: int, readlen: int = 1) -> bytes: ...

    def write(self, address: int, out: bytes) -> None: ...

    def exchange(self, address: int, out: bytes, readlen: int = 0) -> bytes: ...

    def poll(self, address: int, write: bool = False) -> bool: ...


class SpiPortHandle(Protocol):
    """What this backend uses of a pyftdi ``SpiPort`` (one chip select)."""

    mode: int

    def set_mode(self, mode: int) -> None: ...

    def set_frequency(self, frequency: float) -> None: ...

    def exchange(self, out: bytes, duplex: bool = False) -> bytes: ...


class SpiHandle(GpioController, Protocol):
    """What this backend uses of pyftdi's ``SpiController`` (mode=spi)."""

    def get_port(self, cs: int, freq: float | None = None, mode: int = 0) -> SpiPortHandle: ...


class FtdiAdapter(Adapter):
    """An FTDI MPSSE interface run as I2C or SPI controller, plus its spare GPIO lines."""

    scheme = "ftdi"

    def __init__(self, url: AdapterURL, *, name: str | None, board: str | None, safety: SafetyPolicy,
                 mode: str, i2c_hz: int, cs_count: int) -> None:
        super().__init__(url, name=name, board=board, safety=safety)
        self.mode, self.i2c_hz, self.cs_count = mode, i2c_hz, cs_count
        self._ctrl: I2cHandle | SpiHandle | None = None
        self._hw_lock = threading.RLock()
        self._gpio_dir = 0
        self._gpio_out = 0
        self.controller()  # open now so a missing device fails at open, not at first use

    def controller(self) -> I2cHandle | SpiHandle:
        """The configured pyftdi controller, (re)opened on demand."""
        if self.closed:
            raise AdapterUnavailableError(f"{self.url}: adapter is closed", adapter=self.url)
        with self._hw_lock:
            if self._ctrl is None:
                ctrl: I2cHandle | SpiHandle
                try:
                    if self.mode == "i2c":
                        i2c = I2cController()
                        # NACKs are answers here (scans, EEPROM polling): do not let pyftdi retry them.
                        i2c.set_retry_count(1)
                        i2c.configure(self.parsed_url.base, frequency=float(self.i2c_hz))
                        ctrl = i2c
                    else:
                        spi = SpiController(cs_count=self.cs_count)
                        spi.configure(self.parsed_url.base)
                        ctrl = spi
                except (FtdiError, USBError, ValueError, OSError) as exc:
                    raise AdapterUnavailableError(
                        f"{self.url}: cannot open the FTDI device: {exc}; check the USB connection, the URL "
                        "(`python -m pyftdi.ftdi` lists devices) and udev permissions", adapter=self.url) from None
                except Exception as exc:  # noqa: BLE001 - pyusb backends raise assorted types
                    if type(exc).__module__.split(".")[0] in ("pyftdi", "usb"):
                        raise AdapterUnavailableError(f"{self.url}: cannot open the FTDI device: {exc}",
                                                      adapter=self.url) from None
                    raise
                self._ctrl = ctrl
                if self._gpio_dir:
                    self._restore_gpio()
            return self._ctrl

    def _drop(self) -> None:
        ctrl, self._ctrl = self._ctrl, None
        if ctrl is not None:
            try:
                ctrl.close()
            except Exception:  # noqa: BLE001 - the device may be gone already
                pass

    def i2c_call(self, operation: str, fn: Callable[[I2cHandle], _T], address: int | None = None) -> _T:
        """:meth:`call` with the I2C controller (an adapter opened with mode=i2c holds one)."""
        return self.call(operation, lambda c: fn(cast(I2cHandle, c)), address)

    def spi_call(self, operation: str, fn: Callable[[SpiHandle], _T]) -> _T:
        """:meth:`call` with the SPI controller (an adapter opened with mode=spi holds one)."""
        return self.call(operation, lambda c: fn(cast(SpiHandle, c)))

    def call(self, operation: str, fn: Callable[[I2cHandle | SpiHandle], _T], address: int | None = None) -> _T:
        """Run ``fn(controller)`` turning pyftdi/pyusb errors into ours."""
        with self._hw_lock:
            ctrl = self.controller()
            try:
                return fn(ctrl)
            except I2cNackError:
                raise I2CNackError(f"{self.url}: {operation}: target 0x{address or 0:02X} did not acknowledge",
                                   adapter=self.url, address=address) from None
            except I2cTimeoutError as exc:
                raise BusTimeoutError(f"{self.url}: {operation} timed out: {exc}", adapter=self.url,
                                      address=address) from None
            except I2cIOError as exc:
                raise BusError(f"{self.url}: {operation} failed: {exc}", adapter=self.url, address=address) from None
            except (FtdiError, USBError) as exc:
                self._drop()  # reopen cleanly on the next call
                raise AdapterUnavailableError(f"{self.url}: {operation}: the FTDI device stopped answering ({exc}); "
                                              "reconnect it and retry", adapter=self.url, address=address) from None

    # ports ----------------------------------------------------------------------------------------
    def _i2c_buses(self) -> list[int]:
        return [0] if self.mode == "i2c" else []

    def _open_i2c(self, bus: int) -> I2CBus:
        return FtdiI2C(self, bus, frequency_hz=self.i2c_hz)

    def _spi_buses(self) -> list[tuple[int, int]]:
        return [(0, cs) for cs in range(self.cs_count)] if self.mode == "spi" else []

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        return FtdiSPI(self, bus, cs, mode=mode, speed_hz=speed_hz)

    # GPIO ------------------------------------------------------------------------------------------
    def _gpio_mask(self) -> int:
        return int(self.call("list GPIO lines", lambda c: c.gpio_all_pins))

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        text = (pin.name if pin is not None else str(raw)).upper()
        if text.isdigit():
            bit = int(text)
        elif text[:2] in ("AD", "AC") and text[2:].isdigit() and int(text[2:]) < 8:
            bit = int(text[2:]) + (8 if text[:2] == "AC" else 0)
        else:
            bit = -1
        mask = self._gpio_mask()
        if bit < 0 or not mask >> bit & 1:
            free = ", ".join(_pin_name(b) for b in range(16) if mask >> b & 1) or "(none)"
            raise InvalidAddressError(f"{self.url}: {raw!r} is not a free GPIO line in {self.mode} mode; free: {free}",
                                      adapter=self.url)
        return bit

    def _restore_gpio(self) -> None:
        ctrl = self._ctrl
        assert ctrl is not None
        ctrl.set_gpio_direction(self._gpio_mask_all(ctrl), self._gpio_dir)
        if self._gpio_dir:
            ctrl.write_gpio(self._gpio_out & self._gpio_dir)

    @staticmethod
    def _gpio_mask_all(ctrl: GpioController) -> int:
        return int(ctrl.gpio_all_pins)

    def _gpio_read(self, line: Any) -> int:
        value = self.call("read GPIO", lambda c: c.read_gpio(with_output=True))
        return 1 if int(value) >> line & 1 else 0

    def _gpio_write(self, line: Any, value: int) -> None:
        bit = 1 << line
        self._gpio_out = self._gpio_out | bit if value else self._gpio_out & ~bit

        def apply(c: GpioController) -> None:
            if not self._gpio_dir & bit:
                self._gpio_dir |= bit
                c.set_gpio_direction(self._gpio_mask_all(c), self._gpio_dir)
            c.write_gpio(self._gpio_out & self._gpio_dir)

        self.call("write GPIO", apply)

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        if pull != "none":
            raise InvalidAddressError(f"{self.url}: FTDI GPIO lines have no internal pulls; use pull='none' "
                                      "and an external resistor", adapter=self.url)
        bit = 1 << line
        self._gpio_dir = self._gpio_dir | bit if direction == "out" else self._gpio_dir & ~bit
        self.call("set GPIO direction", lambda c: c.set_gpio_direction(self._gpio_mask_all(c), self._gpio_dir))

    def _extra_capabilities(self) -> dict[str, Any]:
        mask = self._gpio_mask()
        return {"mode": self.mode, "gpio_lines": [_pin_name(b) for b in range(16) if mask >> b & 1]}

    def _health(self) -> dict[str, Any]:
        self.controller()
        return {"mode": self.mode}

    def _release(self) -> None:
        with self._hw_lock:
            ctrl, self._ctrl = self._ctrl, None
            if ctrl is not None:
                try:
                    ctrl.terminate()
                except Exception:  # noqa: BLE001 - best effort on close
                    pass


class FtdiI2C(I2CBus):
    """I2C through pyftdi's I2cController."""

    # pyftdi caps the read-back of one exchange at PAYLOAD_MAX_LENGTH / 3 - 1 = 0xFF00 / 3 - 1 bytes
    # (each byte read costs three MPSSE commands: clock in, ACK/NACK out, flush).
    max_transfer = 0xFF00 // 3 - 1

    @property
    def _ftdi(self) -> FtdiAdapter:
        adapter = self.adapter
        assert isinstance(adapter, FtdiAdapter)
        return adapter

    def _read(self, address: int, n: int) -> bytes:
        return bytes(self._ftdi.i2c_call("I2C read", lambda c: c.read(address, readlen=n), address))

    def _write(self, address: int, data: bytes) -> None:
        self._ftdi.i2c_call("I2C write", lambda c: c.write(address, data), address)

    def _write_read(self, address: int, data: bytes, n: int) -> bytes:
        # exchange() writes, then re-addresses for reading without a STOP: a repeated START.
        return bytes(self._ftdi.i2c_call("I2C write-then-read", lambda c: c.exchange(address, data, readlen=n),
                                         address))

    def _probe(self, address: int, method: ProbeMethod) -> bool:
        # poll() sends only the address byte (R or W) and reports the ACK bit.
        return bool(self._ftdi.i2c_call("probe", lambda c: c.poll(address, write=method == "quick"), address))


class FtdiSPI(SPIDevice):
    """One chip select of pyftdi's SpiController."""

    max_transfer = 65536

    def _transfer(self, data: bytes) -> bytes:
        a = self.adapter
        assert isinstance(a, FtdiAdapter)

        def xfer(c: SpiHandle) -> bytes:
            port = c.get_port(self.cs, freq=float(self.speed_hz), mode=self.mode)
            if port.mode != self.mode:
                port.set_mode(self.mode)
            port.set_frequency(float(self.speed_hz))
            return bytes(port.exchange(data, duplex=True))

        return a.spi_call(f"SPI transfer on CS{self.cs}", xfer)


def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> FtdiAdapter:
    """Backend hook: open ``ftdi://...`` (the URL without our options is pyftdi's)."""
    url.check_options(OPTIONS)
    if not url.target:
        raise InvalidAdapterURL(f"{url}: give the pyftdi device, e.g. ftdi://ftdi:232h/1 or ftdi://::FT1234/1")
    mode = url.choice_option("mode", "i2c", ("i2c", "spi"))
    return FtdiAdapter(url, name=name, board=board, safety=safety, mode=mode,
                       i2c_hz=url.int_option("i2c_hz", 100_000, minimum=10_000, maximum=3_400_000),
                       cs_count=url.int_option("cs_count", 1, minimum=1, maximum=5))
