"""``linux://[?i2c=1&spi=0.0&gpiochip=0&board=rpi-4b]``: the host's own buses (Raspberry Pi and friends).

I2C goes through smbus2 on ``/dev/i2c-N``. Which transfers an adapter can do is read from its
functionality bits (``I2C_FUNCS``): where it has ``I2C_FUNC_I2C`` transfers use ``I2C_RDWR`` (plain I2C
messages, so ``write_read`` is one transaction with a repeated START and reads are not limited to the
32-byte SMBus block size); an SMBus-only adapter (i2c-stub, several USB and bit-banged controllers)
answers ``I2C_RDWR`` with EOPNOTSUPP, so there the same operations go out as the SMBus transfer whose
bytes on the wire are the same (receive byte, send byte, byte data, word data, I2C block of at most 32
bytes), and anything SMBus cannot express (a plain read of several bytes, a 16-bit register address)
is refused with a sentence saying so. ``bus info`` shows the path each bus uses.
Scans use the SMBus quick and read-byte commands the way i2cdetect does: each address is claimed with
I2C_SLAVE (never I2C_SLAVE_FORCE), and one a kernel driver owns (an RTC, a HAT EEPROM) answers EBUSY,
is reported as busy ("UU") and is not probed. A probe that fails with EREMOTEIO, ENXIO or ENODEV means
nothing answered at that address (controllers differ in which one they return); only a missing device
file means the interface is off. SPI goes through spidev on
``/dev/spidevB.C``. GPIO goes through gpiozero's lgpio pin factory on ``/dev/gpiochipN`` (the Pi 5's
header is on the RP1 chip, which lgpio finds; there is no ``/dev/gpiomem`` there; ``gpiochip=`` names the chip
by number or by label, e.g. ``gpiochip=pinctrl-rp1``, see gpiochip.py), or through the
factory named by ``GPIOZERO_PIN_FACTORY`` when that is set (``mock`` in tests).

Kernel errno values never leave this module: EREMOTEIO/ENXIO become I2CNackError, ETIMEDOUT
BusTimeoutError, EBUSY/EAGAIN BusBusyError, EACCES/EPERM BusPermissionError, ENODEV/ENOENT/ESHUTDOWN
AdapterUnavailableError (the device file is closed and reopened on the next call), anything else
BusError with the errno kept in the message.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import gpiozero
import smbus2
import spidev

from edge_agent.bus import gpiochip
from edge_agent.bus.base import (
    SMBUS_BLOCK_MAX,
    Adapter,
    Direction,
    I2CBus,
    ProbeMethod,
    ProbeState,
    Pull,
    SPIDevice,
)
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.url import AdapterURL
from edge_agent.errors import (
    AdapterUnavailableError,
    BackendUnavailable,
    BusBusyError,
    BusError,
    BusPermissionError,
    BusTimeoutError,
    I2CNackError,
    InvalidAdapterURL,
    InvalidAddressError,
)

log = logging.getLogger(__name__)

OPTIONS = ("i2c", "spi", "gpiochip", "board")
# spidev's default buffer (/sys/module/spidev/parameters/bufsiz) is 4096 bytes per transfer.
SPIDEV_BUFSIZ = 4096
_NACK = {errno.EREMOTEIO, errno.ENXIO}
_GONE = {errno.ENODEV, errno.ENOENT, errno.ESHUTDOWN}
#: What a probe's transfer returns when no target answers, by controller: EREMOTEIO (i2c-bcm2835 and
#: most), ENXIO (several SoC and USB controllers), ENODEV (i2c-stub and some SMBus hosts).
_PROBE_EMPTY = _NACK | {errno.ENODEV}
_UNSUPPORTED = {errno.EOPNOTSUPP, errno.ENOTSUP}  # the same number on Linux; named both ways

# Adapter functionality bits as the I2C_FUNCS ioctl reports them (include/uapi/linux/i2c.h).
I2C_FUNC_I2C = 0x00000001
I2C_FUNC_SMBUS_QUICK = 0x00010000
I2C_FUNC_SMBUS_READ_BYTE = 0x00020000
I2C_FUNC_SMBUS_WRITE_BYTE = 0x00040000
I2C_FUNC_SMBUS_READ_BYTE_DATA = 0x00080000
I2C_FUNC_SMBUS_WRITE_BYTE_DATA = 0x00100000
I2C_FUNC_SMBUS_READ_WORD_DATA = 0x00200000
I2C_FUNC_SMBUS_WRITE_WORD_DATA = 0x00400000
I2C_FUNC_SMBUS_READ_I2C_BLOCK = 0x04000000
I2C_FUNC_SMBUS_WRITE_I2C_BLOCK = 0x08000000


def map_oserror(exc: OSError, where: str, operation: str, address: int | None = None,
                path: Path | None = None) -> BusError:
    """Turn a kernel errno into our error tree (the errno stays in the message); ``path`` is the device
    file an open failed on, so a permission error can name the group that owns it."""
    code = exc.errno or 0
    name = errno.errorcode.get(code, str(code))
    addr = "" if address is None else f" target 0x{address:02X}"
    if code in _NACK:
        return I2CNackError(f"{where}: {operation}:{addr} did not acknowledge ({name})",
                            adapter=where, address=address)
    if code == errno.ETIMEDOUT:
        return BusTimeoutError(f"{where}: {operation}:{addr} timed out ({name}); a target may be "
                               "stretching SCL or the bus lacks pull-ups", adapter=where, address=address)
    if code in (errno.EBUSY, errno.EAGAIN):
        return BusBusyError(f"{where}: {operation}:{addr} bus busy or arbitration lost ({name}); retry, or "
                            "check that no other process or kernel driver holds it", adapter=where, address=address)
    if code in (errno.EACCES, errno.EPERM):
        advice = gpiochip.group_advice(path) if path is not None else (
            "add the user to the i2c/spi/gpio group or run under the edge-agent service")
        return BusPermissionError(f"{where}: {operation}: permission denied ({name}); {advice}", adapter=where,
                                  address=address)
    if code in _GONE:
        return AdapterUnavailableError(f"{where}: {operation}: the device is gone ({name}); check that the "
                                       "interface is enabled (raspi-config, dtparam=i2c_arm=on / dtparam=spi=on)",
                                       adapter=where, address=address)
    return BusError(f"{where}: {operation}:{addr} failed ({name}: {exc.strerror})", adapter=where, address=address)


def _bus_frequency(bus: int) -> int:
    # The device tree records the controller's clock as a big-endian u32 (clock-frequency property).
    path = Path(f"/sys/class/i2c-adapter/i2c-{bus}/of_node/clock-frequency")
    try:
        return int.from_bytes(path.read_bytes()[:4], "big")
    except OSError:
        return 100_000


class LinuxI2C(I2CBus):
    """``/dev/i2c-N`` through smbus2; the file stays open and is reopened after the device vanishes."""

    max_transfer = 8192  # I2C_RDWR message length is a u16; keep well inside kernel buffer limits

    def __init__(self, adapter: LinuxAdapter, bus: int) -> None:
        super().__init__(adapter, bus, frequency_hz=_bus_frequency(bus))
        self._smbus: smbus2.SMBus | None = None
        self._lock = threading.Lock()
        self._smbus_only = False  # set when the adapter lacks I2C_FUNC_I2C or refuses I2C_RDWR

    def _dev(self) -> smbus2.SMBus:
        if self._smbus is None:
            try:
                self._smbus = smbus2.SMBus(self.bus)
            except FileNotFoundError:
                # The one failure that means the interface is off (or the number is wrong).
                found = sorted(p.name for p in gpiochip.DEV_DIR.glob("i2c-*") if p.name[4:].isdigit())
                raise AdapterUnavailableError(
                    f"{self._where}: there is no /dev/i2c-{self.bus}: that I2C interface is off or the bus number "
                    f"is wrong (buses here: {', '.join(found) or 'none'}); on a Pi enable it with raspi-config or "
                    "dtparam=i2c_arm=on in config.txt, and load i2c-dev", adapter=self._where) from None
            except OSError as exc:
                raise map_oserror(exc, self._where, f"open /dev/i2c-{self.bus}",
                                  path=gpiochip.DEV_DIR / f"i2c-{self.bus}") from None
            if not self._smbus.funcs & I2C_FUNC_I2C:
                self._smbus_only = True
        return self._smbus

    def _drop(self) -> None:
        dev, self._smbus = self._smbus, None
        if dev is not None:
            try:
                dev.close()
            except OSError:
                pass

    def transfer_path(self) -> str:
        """Which transfers this bus uses: plain I2C messages, or SMBus transfers (with the functionality bits)."""
        with self._lock:
            funcs = self._dev().funcs
        if self._smbus_only:
            return f"smbus (I2C_FUNCS 0x{funcs:08X}: no plain I2C messages; reads of at most 32 bytes per register)"
        return f"i2c (I2C_RDWR; I2C_FUNCS 0x{funcs:08X})"

    def _uses_smbus(self) -> bool:
        with self._lock:
            self._dev()
            return self._smbus_only

    def _rdwr(self, address: int, operation: str, *msgs: smbus2.i2c_msg) -> bool:
        """One I2C_RDWR call; False when the adapter turned out not to support it (then use SMBus)."""
        with self._lock:
            dev = self._dev()
            try:
                dev.i2c_rdwr(*msgs)
            except OSError as exc:
                if exc.errno in _UNSUPPORTED:
                    log.warning("%s: the adapter refuses plain I2C messages (%s); using SMBus transfers",
                                self._where, errno.errorcode.get(exc.errno or 0))
                    self._smbus_only = True
                    return False
                raise self._error(exc, operation, address) from None
        return True

    def _read(self, address: int, n: int) -> bytes:
        if not self._uses_smbus():
            msg = smbus2.i2c_msg.read(address, n)
            if self._rdwr(address, "read", msg):
                return bytes(msg)
        if n == 1 and self._has(I2C_FUNC_SMBUS_READ_BYTE):
            return bytes([self._smbus_call(address, "SMBus receive byte", lambda d: d.read_byte(address))])
        raise self._cannot(address, f"a plain read of {n} bytes", "read from a register instead (--register), "
                           "which goes out as an SMBus block read of up to 32 bytes")

    def _write(self, address: int, data: bytes) -> None:
        if not data:
            self._probe_quick(address)
            return
        if not self._uses_smbus() and self._rdwr(address, "write", smbus2.i2c_msg.write(address, data)):
            return
        self._smbus_write(address, data)

    def _write_read(self, address: int, data: bytes, n: int) -> bytes:
        if not self._uses_smbus():
            # Two messages in one I2C_RDWR call: the kernel issues a repeated START between them.
            rd = smbus2.i2c_msg.read(address, n)
            if self._rdwr(address, "write-then-read", smbus2.i2c_msg.write(address, data), rd):
                return bytes(rd)
        if not data:
            return self._read(address, n)
        if len(data) != 1:
            raise self._cannot(address, f"a write of {len(data)} bytes followed by a read",
                               "SMBus reads take a one-byte register; 16-bit register addresses need plain I2C")
        reg = data[0]
        # Each SMBus transfer below puts the same bytes on the wire as the I2C write-then-read would.
        if n <= SMBUS_BLOCK_MAX and self._has(I2C_FUNC_SMBUS_READ_I2C_BLOCK):
            return bytes(self._smbus_call(address, "SMBus block read",
                                          lambda d: d.read_i2c_block_data(address, reg, n)))
        if n == 1 and self._has(I2C_FUNC_SMBUS_READ_BYTE_DATA):
            return bytes([self._smbus_call(address, "SMBus read byte", lambda d: d.read_byte_data(address, reg))])
        if n == 2 and self._has(I2C_FUNC_SMBUS_READ_WORD_DATA):
            word = self._smbus_call(address, "SMBus read word", lambda d: d.read_word_data(address, reg))
            return bytes([word & 0xFF, word >> 8])  # SMBus words travel low byte first
        raise self._cannot(address, f"a register read of {n} bytes",
                           f"read at most {SMBUS_BLOCK_MAX} bytes per register read" if n > SMBUS_BLOCK_MAX
                           else "the adapter offers no SMBus read of that size")

    def _smbus_write(self, address: int, data: bytes) -> None:
        if len(data) == 1 and self._has(I2C_FUNC_SMBUS_WRITE_BYTE):
            self._smbus_call(address, "SMBus send byte", lambda d: d.write_byte(address, data[0]))
        elif len(data) == 2 and self._has(I2C_FUNC_SMBUS_WRITE_BYTE_DATA):
            self._smbus_call(address, "SMBus write byte", lambda d: d.write_byte_data(address, data[0], data[1]))
        elif 2 <= len(data) <= SMBUS_BLOCK_MAX + 1 and self._has(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK):
            self._smbus_call(address, "SMBus block write",
                             lambda d: d.write_i2c_block_data(address, data[0], list(data[1:])))
        elif len(data) == 3 and self._has(I2C_FUNC_SMBUS_WRITE_WORD_DATA):
            self._smbus_call(address, "SMBus write word",
                             lambda d: d.write_word_data(address, data[0], data[1] | data[2] << 8))
        else:
            raise self._cannot(address, f"a write of {len(data)} bytes",
                               f"write a register and at most {SMBUS_BLOCK_MAX} data bytes at a time")

    def _has(self, bit: int) -> bool:
        with self._lock:
            return bool(self._dev().funcs & bit)

    def _cannot(self, address: int, what: str, instead: str) -> InvalidAddressError:
        return InvalidAddressError(f"{self._where}: /dev/i2c-{self.bus} is an SMBus-only adapter (no plain I2C "
                                   f"messages) and cannot do {what}; {instead}", adapter=self._where, address=address)

    def _smbus_call(self, address: int, operation: str, fn: Callable[[smbus2.SMBus], _T]) -> _T:
        with self._lock:
            dev = self._dev()
            if not self._claim(dev, address):
                raise BusBusyError(f"{self._where}: target 0x{address:02X} on /dev/i2c-{self.bus} belongs to a "
                                   "kernel driver (i2cdetect shows it as UU); use it through that driver, or "
                                   "unbind it first", adapter=self._where, address=address)
            try:
                return fn(dev)
            except OSError as exc:
                raise self._error(exc, operation, address) from None

    def _error(self, exc: OSError, operation: str, address: int) -> BusError:
        """The bus error for a failed transfer; call with the lock held.

        ENODEV is what i2c-stub and some SMBus hosts answer when no target acknowledges: while the device
        file still opens, it is a NACK; only when the file is gone is the interface off (reopen next time).
        """
        if exc.errno == errno.ENODEV and self._device_file_present():
            return I2CNackError(f"{self._where}: {operation}: target 0x{address:02X} did not acknowledge (ENODEV)",
                                adapter=self._where, address=address)
        err = map_oserror(exc, self._where, operation, address)
        if isinstance(err, AdapterUnavailableError):
            self._drop()  # reopen cleanly on the next call
        return err

    def _probe_quick(self, address: int) -> None:
        with self._lock:
            dev = self._dev()
            try:
                dev.write_quick(address, force=True)
            except OSError as exc:
                raise map_oserror(exc, self._where, "quick write", address) from None

    def _probe(self, address: int, method: ProbeMethod) -> bool:
        return self._probe_state(address, method) == "ack"

    def _probe_state(self, address: int, method: ProbeMethod) -> ProbeState:
        with self._lock:
            dev = self._dev()
            if not self._claim(dev, address):
                return "busy"
            # i2cdetect's choice when the adapter lacks the command the address would get.
            if method == "read" and not dev.funcs & I2C_FUNC_SMBUS_READ_BYTE:
                method = "quick"
            elif method == "quick" and not dev.funcs & I2C_FUNC_SMBUS_QUICK:
                method = "read"
            try:
                if method == "read":
                    dev.read_byte(address, force=False)
                else:
                    dev.write_quick(address, force=False)
            except OSError as exc:
                if exc.errno in _PROBE_EMPTY and self._device_file_present():
                    return "nack"
                raise self._error(exc, "probe", address) from None
        return "ack"

    def _claim(self, dev: smbus2.SMBus, address: int) -> bool:
        """Point the open device at ``address``; False when a kernel driver has bound it (call with the lock held).

        I2C_SLAVE, not _FORCE: i2c-dev refuses an address a kernel driver holds with EBUSY, and that address
        must not be touched (the driver may be mid-transaction). smbus2 issues the ioctl, and remembers the
        address, in its _set_address.
        """
        try:
            dev._set_address(address, force=False)  # type: ignore[attr-defined]  # private, absent from the stub
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                return False
            raise self._error(exc, "claim address", address) from None
        return True

    def _device_file_present(self) -> bool:
        """Whether /dev/i2c-N can still be opened (an ENODEV from a probe is then an empty address)."""
        try:
            smbus2.SMBus(self.bus).close()
        except OSError:
            return False
        return True

    def smbus_block_read(self, address: int, register: int, n: int) -> bytes:
        """SMBus "read I2C block data" (at most 32 bytes), for adapters without plain I2C support."""
        if not 1 <= n <= SMBUS_BLOCK_MAX:
            raise InvalidAddressError(f"{self._where}: SMBus block reads carry 1-{SMBUS_BLOCK_MAX} bytes, not {n}",
                                      adapter=self._where, address=address)
        with self._lock:
            try:
                return bytes(self._dev().read_i2c_block_data(address, register, n, force=True))
            except OSError as exc:
                raise map_oserror(exc, self._where, "SMBus block read", address) from None

    def _release(self) -> None:
        self._drop()


_T = TypeVar("_T")


class SpiHandle(Protocol):
    """What this backend uses of an open ``spidev.SpiDev`` (the C extension ships no types)."""

    mode: int
    max_speed_hz: int

    def open(self, bus: int, device: int) -> None: ...

    def xfer2(self, values: list[int]) -> list[int]: ...

    def close(self) -> None: ...


class GpioPin(Protocol):
    """What this backend uses of a gpiozero pin (``factory.pin(n)``): its level, function and pull."""

    state: float
    function: str
    pull: str

    def close(self) -> None: ...


class PinFactory(Protocol):
    """What this backend uses of a gpiozero pin factory (lgpio's, or the one GPIOZERO_PIN_FACTORY names)."""

    def pin(self, spec: int) -> GpioPin: ...

    def close(self) -> None: ...


class LinuxSPI(SPIDevice):
    """``/dev/spidevB.C`` through spidev."""

    max_transfer = 64 * 1024

    def __init__(self, adapter: LinuxAdapter, bus: int, cs: int, *, mode: int, speed_hz: int) -> None:
        super().__init__(adapter, bus, cs, mode=mode, speed_hz=speed_hz)
        self._dev: SpiHandle | None = None

    def _open(self) -> SpiHandle:
        if self._dev is None:
            dev: SpiHandle = spidev.SpiDev()
            try:
                dev.open(self.bus, self.cs)
                dev.mode = self.mode
                dev.max_speed_hz = self.speed_hz
            except OSError as exc:
                try:
                    dev.close()
                except OSError:
                    pass
                raise map_oserror(exc, self.adapter.url, f"open /dev/spidev{self.bus}.{self.cs}",
                                  path=gpiochip.DEV_DIR / f"spidev{self.bus}.{self.cs}") from None
            self._dev = dev
        return self._dev

    def _transfer(self, data: bytes) -> bytes:
        dev = self._open()
        out = bytearray()
        try:
            # spidev refuses transfers larger than its buffer; split them, keeping CS asserted between
            # chunks is not possible through xfer2, so devices that need >4 KiB frames need bufsiz raised.
            for i in range(0, len(data), SPIDEV_BUFSIZ):
                out += bytes(dev.xfer2(list(data[i:i + SPIDEV_BUFSIZ])))
        except OSError as exc:
            err = map_oserror(exc, self.adapter.url, f"SPI transfer on {self.bus}.{self.cs}")
            if isinstance(err, AdapterUnavailableError):
                self._release()
            raise err from None
        return bytes(out)

    def _release(self) -> None:
        dev, self._dev = self._dev, None
        if dev is not None:
            try:
                dev.close()
            except OSError:
                pass


class LinuxAdapter(Adapter):
    """The host's I2C, SPI and GPIO."""

    scheme = "linux"

    def __init__(self, url: AdapterURL, *, name: str | None, board: str | None, safety: SafetyPolicy,
                 i2c_buses: list[int] | None, spi_devices: list[tuple[int, int]] | None,
                 gpiochip: int | str | None) -> None:
        super().__init__(url, name=name, board=board, safety=safety)
        self._i2c_list = i2c_buses
        self._spi_list = spi_devices
        self._gpiochip = gpiochip
        self.pin_factory: PinFactory | None = None
        self._gpio_pins: dict[int, GpioPin] = {}

    def _i2c_buses(self) -> list[int]:
        if self._i2c_list is not None:
            return self._i2c_list
        found = sorted(int(p.name[4:]) for p in Path("/dev").glob("i2c-*") if p.name[4:].isdigit())
        return found

    def _open_i2c(self, bus: int) -> I2CBus:
        return LinuxI2C(self, bus)

    def _spi_buses(self) -> list[tuple[int, int]]:
        if self._spi_list is not None:
            return self._spi_list
        found = []
        for p in Path("/dev").glob("spidev*.*"):
            b, _, c = p.name[6:].partition(".")
            if b.isdigit() and c.isdigit():
                found.append((int(b), int(c)))
        return sorted(found)

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        return LinuxSPI(self, bus, cs, mode=mode, speed_hz=speed_hz)

    # GPIO ------------------------------------------------------------------------------------------
    def _factory(self) -> PinFactory:
        if self.pin_factory is None:
            if os.environ.get("GPIOZERO_PIN_FACTORY"):
                factory: PinFactory = gpiozero.Device._default_pin_factory()
                self.pin_factory = factory
            else:
                try:
                    from gpiozero.pins.lgpio import LGPIOFactory
                except ImportError as exc:
                    raise BackendUnavailable(
                        f"{self.url}: GPIO needs the lgpio library; install it with: pip install "
                        "'edge-agent[linux]' (on Raspberry Pi OS: apt install python3-lgpio)"
                    ) from exc
                number = self._chip_number()
                try:
                    # chip=None lets lgpio pick gpiochip4 on a Pi 5 with an older kernel, else gpiochip0.
                    lgpio_factory: PinFactory = LGPIOFactory(chip=number)
                    self.pin_factory = lgpio_factory
                except Exception as exc:  # noqa: BLE001 - lgpio raises its own error type and OSError
                    raise gpiochip.open_error(self.url, number or 0, exc) from None
        assert self.pin_factory is not None
        return self.pin_factory

    def _chip_number(self) -> int | None:
        """The chip the URL names: its number, or the number of the chip with its label (looked up now)."""
        if isinstance(self._gpiochip, str):
            return gpiochip.resolve(self.url, self._gpiochip)
        return self._gpiochip

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        if pin is not None:
            if pin.number is None:
                raise InvalidAddressError(f"{self.url}: {pin.name} has no GPIO line number on {self.board}",
                                          adapter=self.url)
            return int(pin.number)
        if isinstance(raw, int):
            return raw
        text = raw.strip().upper()
        for prefix in ("GPIO", "BCM"):
            if text.startswith(prefix) and text[len(prefix):].isdigit():
                return int(text[len(prefix):])
        if text.isdigit():
            return int(text)
        raise InvalidAddressError(
            f"{self.url}: pin {raw!r} needs a board to resolve it; use a GPIO number (17, 'GPIO17') or open the "
            "adapter with board=..., e.g. linux://?board=rpi-4b", adapter=self.url)

    def _lgpio_error(self, line: int, operation: str, exc: Exception) -> BusError:
        handle = getattr(self.pin_factory, "_handle", None)
        number = getattr(self.pin_factory, "chip", None)
        if not isinstance(number, int):
            number = self._gpiochip if isinstance(self._gpiochip, int) else 0
        return gpiochip.line_error(self.url, handle, number, line, operation, exc)

    def _pin(self, line: int) -> GpioPin:
        pin = self._gpio_pins.get(line)
        if pin is None:
            try:
                pin = self._factory().pin(line)
            except gpiozero.GPIOZeroError as exc:
                raise InvalidAddressError(f"{self.url}: GPIO {line} is not usable: {exc}", adapter=self.url) from None
            except Exception as exc:  # lgpio.error (claiming the line) is not an OSError
                if type(exc).__module__.startswith("lgpio"):
                    raise self._lgpio_error(line, "claim", exc) from None
                raise
            self._gpio_pins[line] = pin
        return pin

    def _gpio_call(self, line: int, operation: str, fn: Callable[[GpioPin], _T]) -> _T:
        pin = self._pin(line)  # outside the try: our own errors (they are OSErrors too) pass unchanged
        try:
            return fn(pin)
        except gpiozero.PinFixedPull as exc:
            raise InvalidAddressError(f"{self.url}: GPIO {line}: {exc} (the board has a fixed pull resistor there)",
                                      adapter=self.url) from None
        except gpiozero.GPIOZeroError as exc:
            raise InvalidAddressError(f"{self.url}: GPIO {line}: {operation} refused: {exc}",
                                      adapter=self.url) from None
        except OSError as exc:
            raise map_oserror(exc, self.url, f"GPIO {line} {operation}") from None
        except Exception as exc:  # lgpio.error ("GPIO busy") is not an OSError
            if type(exc).__module__.startswith("lgpio"):
                raise self._lgpio_error(line, operation, exc) from None
            raise

    def _gpio_read(self, line: Any) -> int:
        level: int = self._gpio_call(line, "read", lambda p: 1 if p.state else 0)
        return level

    def _gpio_write(self, line: Any, value: int) -> None:
        def write(p: GpioPin) -> None:
            if p.function != "output":
                p.function = "output"
            p.state = bool(value)

        self._gpio_call(line, "write", write)

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        def mode(p: GpioPin) -> None:
            p.function = "input" if direction == "in" else "output"
            if direction == "in":
                p.pull = {"none": "floating", "up": "up", "down": "down"}[pull]

        self._gpio_call(line, "set mode", mode)

    def _extra_capabilities(self) -> dict[str, Any]:
        paths: dict[str, str] = {}
        for bus in self._i2c_buses():
            try:
                port = self.i2c(bus)
                assert isinstance(port, LinuxI2C)
                paths[str(bus)] = port.transfer_path()
            except BusError as exc:
                paths[str(bus)] = f"unavailable: {exc}"
        return {"i2c_transfers": paths}

    def _health(self) -> dict[str, Any]:
        # Open every configured device node: a missing or inaccessible one makes the adapter unhealthy.
        for bus in self._i2c_buses():
            port = self.i2c(bus)
            assert isinstance(port, LinuxI2C)
            with port._lock:
                port._dev()
        for bus, cs in self._spi_buses():
            dev = spidev.SpiDev()
            try:
                dev.open(bus, cs)
            except OSError as exc:
                raise map_oserror(exc, self.url, f"open /dev/spidev{bus}.{cs}") from None
            finally:
                try:
                    dev.close()
                except OSError:
                    pass
        return {"i2c": self._i2c_buses(), "spi": [f"{b}.{c}" for b, c in self._spi_buses()]}

    def _release(self) -> None:
        for pin in self._gpio_pins.values():
            try:
                pin.close()
            except Exception:  # noqa: BLE001 - best effort while closing
                pass
        self._gpio_pins.clear()
        if self.pin_factory is not None:
            try:
                self.pin_factory.close()
            except Exception:  # noqa: BLE001
                pass
            self.pin_factory = None


def _int_list(url: AdapterURL, key: str) -> list[int] | None:
    raw = url.options.get(key)
    if raw is None:
        return None
    try:
        return [int(x, 0) for x in raw.split(",") if x]
    except ValueError:
        raise InvalidAdapterURL(f"{url}: option {key}={raw!r} must be bus numbers like 1 or 1,3") from None


def _spi_list(url: AdapterURL) -> list[tuple[int, int]] | None:
    raw = url.options.get("spi")
    if raw is None:
        return None
    out = []
    for item in raw.split(","):
        b, dot, c = item.partition(".")
        if not dot or not b.isdigit() or not c.isdigit():
            raise InvalidAdapterURL(f"{url}: option spi={raw!r} must be BUS.CS pairs like 0.0 or 0.0,0.1")
        out.append((int(b), int(c)))
    return out


def _chip_option(url: AdapterURL) -> int | str | None:
    """``gpiochip=N`` (a number) or ``gpiochip=LABEL`` (the chip driver's label, resolved on first GPIO use)."""
    raw = url.options.get("gpiochip")
    if raw is None:
        return None
    if raw.strip().isdigit():
        return url.int_option("gpiochip", -1, minimum=0, maximum=63)
    if not raw.strip() or any(ch.isspace() or not ch.isprintable() for ch in raw.strip()):
        raise InvalidAdapterURL(f"{url}: option gpiochip={raw!r} must be a chip number (gpiochip=0) or its label "
                                "as gpiodetect shows it (gpiochip=pinctrl-rp1)")
    return raw.strip()


def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> LinuxAdapter:
    """Backend hook: open ``linux://``."""
    url.check_options(OPTIONS)
    if url.target.strip("/"):
        raise InvalidAdapterURL(f"{url}: linux:// takes no target; give buses as options, e.g. linux://?i2c=1&spi=0.0")
    board = url.options.get("board") or board
    if board:
        from edge_agent.pins import get_board

        get_board(board)  # unknown boards fail now, listing the known ones
    chip = _chip_option(url)
    return LinuxAdapter(url, name=name, board=board, safety=safety, i2c_buses=_int_list(url, "i2c"),
                        spi_devices=_spi_list(url), gpiochip=chip)
