"""Bus-test fixtures, and fakes at the lowest boundary of each vendor library backed by simulated parts.

* linux://   - the kernel: ``os.open``/``ioctl`` as smbus2 calls them (I2C_RDWR, I2C_SMBUS, I2C_FUNCS),
               and the ``spidev.SpiDev`` extension type. GPIO uses gpiozero's own MockFactory.
* aardvark:// - the C extension behind aardvark_py (``aardvark_py.aardvark_py.api``), so the real
               Python wrapper (array handling, tuple returns) runs.
* ftdi://    - pyftdi's ``I2cController`` / ``SpiController``, raising pyftdi's and pyusb's exceptions.

Each fake turns SimWorld errors into what the real layer produces (errno, status code, exception).
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from edge_agent.bus.sim.world import SimWorld, load_scenario
from edge_agent.errors import AdapterUnavailableError, BusBusyError, BusTimeoutError, I2CNackError

# Each vendor library is an optional extra, and not every machine has every one (aardvark_py has no
# wheel for ARM; spidev on a Pi comes from the system's python3-spidev). The fakes below refer to
# them only when used; the fixture that needs one skips its tests when it is missing.
try:
    import aardvark_py as aa
except ImportError:
    aa = None
try:
    import spidev
except ImportError:
    spidev = None
try:
    from smbus2 import smbus2 as smbus_mod
except ImportError:
    smbus_mod = None
try:
    from pyftdi.i2c import I2cNackError
    from pyftdi.usbtools import UsbToolsError
    from usb.core import USBError
except ImportError:
    I2cNackError = UsbToolsError = USBError = None

# --- linux: kernel i2c-dev and spidev -------------------------------------------------------------------------

I2C_FUNC_I2C = 0x00000001
I2C_FUNC_SMBUS_QUICK = 0x00010000
I2C_FUNC_SMBUS_BYTE = 0x00060000
I2C_FUNC_SMBUS_BYTE_DATA = 0x00180000
I2C_FUNC_SMBUS_WORD_DATA = 0x00600000
I2C_FUNC_SMBUS_I2C_BLOCK = 0x0C000000
#: What a controller with plain I2C reports (the kernel emulates every SMBus transfer on top of it).
FUNCS_I2C = (I2C_FUNC_I2C | I2C_FUNC_SMBUS_QUICK | I2C_FUNC_SMBUS_BYTE | I2C_FUNC_SMBUS_BYTE_DATA
             | I2C_FUNC_SMBUS_WORD_DATA | I2C_FUNC_SMBUS_I2C_BLOCK)
#: What i2c-stub reports by default: SMBus transfers only, no I2C_FUNC_I2C.
FUNCS_I2C_STUB = (I2C_FUNC_SMBUS_QUICK | I2C_FUNC_SMBUS_BYTE | I2C_FUNC_SMBUS_BYTE_DATA | I2C_FUNC_SMBUS_WORD_DATA
                  | I2C_FUNC_SMBUS_I2C_BLOCK)
#: Functionality bit each SMBus transfer needs, by (read_write, size) as smbus2 sends them.
_SMBUS_NEEDS = {
    (0, 0): 0x00010000, (1, 0): 0x00010000,  # quick
    (1, 1): 0x00020000, (0, 1): 0x00040000,  # receive / send byte
    (1, 2): 0x00080000, (0, 2): 0x00100000,  # read / write byte data
    (1, 3): 0x00200000, (0, 3): 0x00400000,  # read / write word data
    (1, 8): 0x04000000, (0, 8): 0x08000000,  # read / write I2C block
}


def _errno_of(exc: Exception) -> int:
    if isinstance(exc, I2CNackError):
        return errno.EREMOTEIO  # what i2c-bcm2835 returns for a NACK
    if isinstance(exc, BusTimeoutError):
        return errno.ETIMEDOUT
    if isinstance(exc, BusBusyError):
        return errno.EAGAIN  # arbitration lost / bus busy
    if isinstance(exc, AdapterUnavailableError):
        return errno.ENODEV
    return errno.EIO


class KernelI2C:
    """The i2c-dev character devices of a host whose buses carry SimWorld parts."""

    def __init__(self, world: SimWorld, buses: list[int]) -> None:
        self.world, self.buses = world, buses
        self.fds: dict[int, dict[str, Any]] = {}
        self.next_fd = 1000
        self.opens = 0
        self.ioctls: list[tuple[str, Any]] = []
        self.fail_next: list[int] = []  # errno values to raise from the next ioctls
        self.unplugged = False
        #: Addresses a kernel driver has bound (an RTC, a HAT EEPROM): i2c-dev answers I2C_SLAVE on
        #: them with EBUSY; I2C_SLAVE_FORCE takes them anyway.
        self.driver_owned: set[int] = set()
        self.claims: list[tuple[str, int]] = []  # I2C_SLAVE / I2C_SLAVE_FORCE ioctls, in order
        self.funcs = FUNCS_I2C
        self.denied: set[int] = set()  # buses whose device file the user may not open (not in group i2c)
        #: errno of a transfer no target answered: EREMOTEIO on i2c-bcm2835, ENXIO on several SoC and
        #: USB controllers, ENODEV on i2c-stub.
        self.nack_errno = errno.EREMOTEIO
        #: An adapter that reports I2C_FUNC_I2C but still refuses I2C_RDWR (seen on some USB bridges).
        self.refuse_rdwr = False

    def as_i2c_stub(self) -> None:
        """Behave like the kernel's i2c-stub: SMBus only (I2C_RDWR answers EOPNOTSUPP), ENODEV where no chip is."""
        self.funcs = FUNCS_I2C_STUB
        self.nack_errno = errno.ENODEV

    def os_open(self, path: str, flags: int, *args: Any) -> int:
        m = re.fullmatch(r"/dev/i2c-(\d+)", str(path))
        if not m:
            return os.open(path, flags, *args)
        if int(m.group(1)) not in self.buses or self.unplugged:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        if int(m.group(1)) in self.denied:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        self.opens += 1
        fd = self.next_fd
        self.next_fd += 1
        self.fds[fd] = {"bus": int(m.group(1)), "addr": None}
        return fd

    def os_close(self, fd: int) -> None:
        if fd in self.fds:
            del self.fds[fd]
            return
        os.close(fd)

    def ioctl(self, fd: int, request: int, arg: Any) -> int:
        state = self.fds.get(fd)
        if state is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if self.unplugged:
            raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
        if self.fail_next and request in (smbus_mod.I2C_RDWR, smbus_mod.I2C_SMBUS):
            code = self.fail_next.pop(0)
            raise OSError(code, os.strerror(code))
        bus = state["bus"]
        try:
            if request == smbus_mod.I2C_FUNCS:
                arg.value = self.funcs
            elif request in (smbus_mod.I2C_SLAVE, smbus_mod.I2C_SLAVE_FORCE):
                forced = request == smbus_mod.I2C_SLAVE_FORCE
                self.claims.append(("I2C_SLAVE_FORCE" if forced else "I2C_SLAVE", int(arg)))
                if not forced and int(arg) in self.driver_owned:
                    raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
                state["addr"] = int(arg)
            elif request == smbus_mod.I2C_RDWR:
                self._rdwr(bus, arg)
            elif request == smbus_mod.I2C_SMBUS:
                self._smbus(bus, state["addr"], arg)
            else:
                raise OSError(errno.ENOTTY, os.strerror(errno.ENOTTY))
        except (I2CNackError, BusTimeoutError, BusBusyError, AdapterUnavailableError) as exc:
            code = self.nack_errno if isinstance(exc, I2CNackError) else _errno_of(exc)
            raise OSError(code, os.strerror(code)) from None
        return 0

    def _rdwr(self, bus: int, data: Any) -> None:
        msgs = [data.msgs[i] for i in range(data.nmsgs)]
        kinds = ["r" if m.flags & smbus_mod.I2C_M_RD else "w" for m in msgs]
        self.ioctls.append(("I2C_RDWR", [(k, m.addr, m.len) for k, m in zip(kinds, msgs, strict=True)]))
        if self.refuse_rdwr or not self.funcs & I2C_FUNC_I2C:
            # i2c_transfer() on an adapter without master_xfer
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP))
        if kinds == ["w", "r"] and msgs[0].addr == msgs[1].addr:
            result = self.world.i2c_write_read("kernel", bus, msgs[0].addr, bytes(msgs[0]), msgs[1].len)
            ctypes.memmove(msgs[1].buf, result, len(result))
        elif kinds == ["r"]:
            result = self.world.i2c_read("kernel", bus, msgs[0].addr, msgs[0].len)
            ctypes.memmove(msgs[0].buf, result, len(result))
        elif kinds == ["w"]:
            self.world.i2c_write("kernel", bus, msgs[0].addr, bytes(msgs[0]))
        else:
            raise OSError(errno.EOPNOTSUPP, "fake supports w, r and w+r message sets")

    def _smbus(self, bus: int, addr: int, msg: Any) -> None:
        rw, size = msg.read_write, msg.size
        self.ioctls.append(("I2C_SMBUS", (rw, size, addr)))
        if not self.funcs & _SMBUS_NEEDS.get((rw, size), 0):
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP))
        world, data, cmd = self.world, msg.data, msg.command
        read = rw == smbus_mod.I2C_SMBUS_READ
        # Each transfer as the bytes it puts on the wire.
        if size == smbus_mod.I2C_SMBUS_QUICK:
            # The quick command's R/W bit is the only "data"; a write-quick carries no payload.
            if read:
                world.i2c_read("kernel", bus, addr, 0)
            else:
                world.i2c_write("kernel", bus, addr, b"")
        elif size == smbus_mod.I2C_SMBUS_BYTE:
            if read:
                data.contents.byte = world.i2c_read("kernel", bus, addr, 1)[0]
            else:
                world.i2c_write("kernel", bus, addr, bytes([cmd]))
        elif size == smbus_mod.I2C_SMBUS_BYTE_DATA:
            if read:
                data.contents.byte = world.i2c_write_read("kernel", bus, addr, bytes([cmd]), 1)[0]
            else:
                world.i2c_write("kernel", bus, addr, bytes([cmd, data.contents.byte]))
        elif size == smbus_mod.I2C_SMBUS_WORD_DATA:
            if read:
                lo, hi = world.i2c_write_read("kernel", bus, addr, bytes([cmd]), 2)
                data.contents.word = lo | hi << 8
            else:
                word = data.contents.word
                world.i2c_write("kernel", bus, addr, bytes([cmd, word & 0xFF, word >> 8]))
        elif size == smbus_mod.I2C_SMBUS_I2C_BLOCK_DATA:
            n = data.contents.block[0]
            if read:
                got = world.i2c_write_read("kernel", bus, addr, bytes([cmd]), n)
                data.contents.block[1:n + 1] = list(got)
            else:
                world.i2c_write("kernel", bus, addr, bytes([cmd, *data.contents.block[1:n + 1]]))
        else:
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP))


class _OsShim:
    """smbus2's view of the os module: open/close of /dev/i2c-* go to the fake kernel."""

    def __init__(self, kernel: KernelI2C) -> None:
        self._kernel = kernel
        self.open = kernel.os_open
        self.close = kernel.os_close

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


class FakeSpiDevType:
    """Stands in for the ``spidev.SpiDev`` extension type: ``/dev/spidevB.C`` on SimWorld SPI parts."""

    def __init__(self, world: SimWorld, devices: list[tuple[int, int]]) -> None:
        self.world, self.devices = world, devices
        self.opened: list[tuple[int, int]] = []
        self.fail_next: list[int] = []

    def __call__(self) -> Any:
        return _FakeSpiDev(self)


class _FakeSpiDev:
    def __init__(self, kind: FakeSpiDevType) -> None:
        self._kind = kind
        self._where: tuple[int, int] | None = None
        self.mode = 0
        self.max_speed_hz = 500_000
        self.bits_per_word = 8

    def open(self, bus: int, dev: int) -> None:
        if (bus, dev) not in self._kind.devices:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
        self._where = (bus, dev)
        self._kind.opened.append((bus, dev))

    def xfer2(self, data: list[int]) -> list[int]:
        if self._where is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if self._kind.fail_next:
            code = self._kind.fail_next.pop(0)
            raise OSError(code, os.strerror(code))
        bus, cs = self._where
        return list(self._kind.world.spi_transfer("spidev", bus, cs, bytes(data), self.mode))

    def close(self) -> None:
        self._where = None


# --- aardvark: the C extension behind aardvark_py ---------------------------------------------------------------


def _i2c_status(exc: Exception) -> int:
    if isinstance(exc, I2CNackError):
        return aa.AA_I2C_STATUS_SLA_NACK
    if isinstance(exc, BusBusyError):
        return aa.AA_I2C_STATUS_BUS_LOCKED
    return aa.AA_I2C_STATUS_BUS_ERROR


class FakeAardvarkAPI:
    """The ``py_aa_*`` functions of aardvark.so, with Aardvarks whose I2C/SPI pins reach SimWorld parts."""

    def __init__(self, world: SimWorld, devices: list[tuple[int, int]] | None = None) -> None:
        self.world = world
        self.devices = devices if devices is not None else [(0, 2237170206)]
        self.handles: dict[int, int] = {}  # handle -> port
        self.next_handle = 1
        self.calls: list[tuple[Any, ...]] = []
        self.unplugged = False
        self.config = aa.AA_CONFIG_SPI_I2C
        self.gpio_dir = 0
        self.gpio_out = 0
        self.gpio_jumpers: dict[int, int] = {}  # input bit <- output bit
        self.force_i2c_status: list[int] = []
        self._no_stop_pending: tuple[int, bytes] | None = None

    def _alive(self, h: int) -> int | None:
        if self.unplugged:
            return aa.AA_COMMUNICATION_ERROR
        if h not in self.handles:
            return aa.AA_INVALID_HANDLE if hasattr(aa, "AA_INVALID_HANDLE") else -9
        return None

    def py_aa_find_devices_ext(self, num_devices: int, num_ids: int, devices: Any, ids: Any) -> int:
        self.calls.append(("find",))
        found = [] if self.unplugged else self.devices
        for i, (port, serial) in enumerate(found[:num_devices]):
            devices[i] = port
            if i < num_ids:
                ids[i] = serial
        return len(found)

    def py_aa_open(self, port: int) -> int:
        self.calls.append(("open", port))
        if self.unplugged or port not in [p & 0x7FFF for p, _ in self.devices]:
            return aa.AA_UNABLE_TO_OPEN
        h = self.next_handle
        self.next_handle += 1
        self.handles[h] = port
        return h

    def py_aa_close(self, h: int) -> int:
        self.calls.append(("close", h))
        return 1 if self.handles.pop(h, None) is not None else 0

    def py_aa_status_string(self, code: int) -> str:
        return {aa.AA_COMMUNICATION_ERROR: "communication error", aa.AA_UNABLE_TO_OPEN: "unable to open device",
                aa.AA_I2C_NOT_ENABLED: "i2c not enabled"}.get(code, "error")

    def py_aa_unique_id(self, h: int) -> int:
        bad = self._alive(h)
        return bad if bad is not None else dict(self.devices)[self.handles[h]]

    def py_aa_configure(self, h: int, config: int) -> int:
        self.calls.append(("configure", config))
        bad = self._alive(h)
        if bad is not None:
            return bad
        self.config = config
        return config

    def py_aa_i2c_pullup(self, h: int, mask: int) -> int:
        return self._alive(h) or mask

    def py_aa_target_power(self, h: int, mask: int) -> int:
        return self._alive(h) or mask

    def py_aa_i2c_bitrate(self, h: int, khz: int) -> int:
        self.calls.append(("bitrate", khz))
        return self._alive(h) or khz

    def _i2c(self, fn: Any) -> tuple[int, Any]:
        if self.force_i2c_status:
            return self.force_i2c_status.pop(0), None
        try:
            return aa.AA_I2C_STATUS_OK, fn()
        except AdapterUnavailableError:
            return aa.AA_COMMUNICATION_ERROR, None
        except (I2CNackError, BusBusyError, BusTimeoutError) as exc:
            return _i2c_status(exc), None

    def py_aa_i2c_read_ext(self, h: int, addr: int, flags: int, n: int, data_in: Any) -> tuple[int, int]:
        self.calls.append(("i2c_read", addr, flags, n))
        bad = self._alive(h)
        if bad is not None:
            return bad, 0
        if not self.config & aa.AA_CONFIG_I2C_MASK:
            return aa.AA_I2C_NOT_ENABLED, 0
        pending, self._no_stop_pending = self._no_stop_pending, None
        if pending is not None and pending[0] == addr:  # repeated START after a NO_STOP write
            status, data = self._i2c(lambda: self.world.i2c_write_read("aardvark", 0, addr, pending[1], n))
        else:
            status, data = self._i2c(lambda: self.world.i2c_read("aardvark", 0, addr, n))
        if data is None:
            return status, 0
        for i, b in enumerate(data):
            data_in[i] = b
        return status, len(data)

    def py_aa_i2c_write_ext(self, h: int, addr: int, flags: int, n: int, data_out: Any) -> tuple[int, int]:
        payload = bytes(data_out[:n])
        self.calls.append(("i2c_write", addr, flags, payload))
        bad = self._alive(h)
        if bad is not None:
            return bad, 0
        if flags & aa.AA_I2C_NO_STOP:
            self._no_stop_pending = (addr, payload)
            return aa.AA_I2C_STATUS_OK, n
        status, _ = self._i2c(lambda: self.world.i2c_write("aardvark", 0, addr, payload))
        return status, (n if status == aa.AA_I2C_STATUS_OK else 0)

    def py_aa_i2c_write_read(self, h: int, addr: int, flags: int, out_n: int, out: Any, in_n: int,
                             data_in: Any) -> tuple[int, int, int]:
        payload = bytes(out[:out_n])
        self.calls.append(("i2c_write_read", addr, flags, payload, in_n))
        bad = self._alive(h)
        if bad is not None:
            return bad, 0, 0
        status, data = self._i2c(lambda: self.world.i2c_write_read("aardvark", 0, addr, payload, in_n))
        if data is None:
            # A NACK of the address fails the write phase; the read phase never happens.
            return status if status < 0 else (status | status << 8), 0, 0
        for i, b in enumerate(data):
            data_in[i] = b
        return 0, out_n, len(data)

    def py_aa_spi_configure(self, h: int, polarity: int, phase: int, order: int) -> int:
        self.calls.append(("spi_configure", polarity, phase, order))
        self._spi_mode = polarity << 1 | phase
        return self._alive(h) or 0

    def py_aa_spi_bitrate(self, h: int, khz: int) -> int:
        return self._alive(h) or khz

    def py_aa_spi_master_ss_polarity(self, h: int, polarity: int) -> int:
        return self._alive(h) or 0

    def py_aa_spi_write(self, h: int, out_n: int, out: Any, in_n: int, data_in: Any) -> int:
        bad = self._alive(h)
        if bad is not None:
            return bad
        if not self.config & aa.AA_CONFIG_SPI_MASK:
            return aa.AA_SPI_NOT_ENABLED
        data = self.world.spi_transfer("aardvark", 0, 0, bytes(out[:out_n]), getattr(self, "_spi_mode", 0))
        for i, b in enumerate(data[:in_n]):
            data_in[i] = b
        return min(out_n, in_n)

    def py_aa_gpio_direction(self, h: int, mask: int) -> int:
        self.gpio_dir = mask
        return self._alive(h) or 0

    def py_aa_gpio_pullup(self, h: int, mask: int) -> int:
        return self._alive(h) or 0

    def py_aa_gpio_set(self, h: int, value: int) -> int:
        self.gpio_out = value
        return self._alive(h) or 0

    def py_aa_gpio_get(self, h: int) -> int:
        bad = self._alive(h)
        if bad is not None:
            return bad
        value = self.gpio_out & self.gpio_dir
        for dst, src in self.gpio_jumpers.items():
            if self.gpio_out & self.gpio_dir & src:
                value |= dst
        return value


# --- ftdi: pyftdi controllers ----------------------------------------------------------------------------------


class FtdiBench:
    """Shared state of the fake FTDI device: the SimWorld behind it, presence, and call records."""

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.present = True
        self.unplug_after: int | None = None
        self.configured_urls: list[str] = []
        self.calls: list[tuple[Any, ...]] = []
        self.gpio_dir = 0
        self.gpio_out = 0
        self.gpio_jumpers: dict[int, int] = {}

    def tick(self) -> None:
        if self.unplug_after is not None:
            if self.unplug_after == 0:
                self.present = False
                self.unplug_after = None
            else:
                self.unplug_after -= 1
        if not self.present:
            raise USBError("No such device (it may have been disconnected)", errno=errno.ENODEV)


class _FakeGpioMixin:
    bench: FtdiBench
    GPIO_MASK = 0

    @property
    def gpio_all_pins(self) -> int:
        return self.GPIO_MASK

    def set_gpio_direction(self, pins: int, direction: int) -> None:
        self.bench.calls.append(("gpio_dir", pins, direction))
        self.bench.gpio_dir = direction & pins

    def write_gpio(self, value: int) -> None:
        self.bench.tick()
        self.bench.gpio_out = value

    def read_gpio(self, with_output: bool = False) -> int:
        self.bench.tick()
        b = self.bench
        value = b.gpio_out & b.gpio_dir
        for dst, src in b.gpio_jumpers.items():
            if value & src:
                value |= dst
        return value


class FakeI2cController(_FakeGpioMixin):
    """pyftdi.i2c.I2cController on an FT232H whose I2C pins reach SimWorld parts (AD3-AD7, AC0-AC7 free)."""

    GPIO_MASK = 0xFFF8

    def __init__(self, bench: FtdiBench) -> None:
        self.bench = bench
        self.retries = 3

    def set_retry_count(self, count: int) -> None:
        self.retries = count

    def configure(self, url: str, **kwargs: Any) -> None:
        self.bench.calls.append(("configure", url, kwargs))
        if not self.bench.present:
            raise UsbToolsError(f"No USB device matches URL {url}")
        self.bench.configured_urls.append(url)

    def _run(self, fn: Any) -> Any:
        self.bench.tick()
        try:
            return fn()
        except I2CNackError:
            raise I2cNackError("NACK from slave") from None

    def read(self, address: int, readlen: int = 1, relax: bool = True) -> bytes:
        self.bench.calls.append(("read", address, readlen))
        return self._run(lambda: self.bench.world.i2c_read("ftdi", 0, address, readlen))

    def write(self, address: int, out: bytes, relax: bool = True) -> None:
        self.bench.calls.append(("write", address, bytes(out)))
        self._run(lambda: self.bench.world.i2c_write("ftdi", 0, address, bytes(out)))

    def exchange(self, address: int, out: bytes, readlen: int = 0, relax: bool = True) -> bytearray:
        self.bench.calls.append(("exchange", address, bytes(out), readlen))
        return bytearray(self._run(lambda: self.bench.world.i2c_write_read("ftdi", 0, address, bytes(out), readlen)))

    def poll(self, address: int, write: bool = False, relax: bool = True) -> bool:
        self.bench.calls.append(("poll", address, write))
        self.bench.tick()
        try:
            if write:
                self.bench.world.i2c_write("ftdi", 0, address, b"")
            else:
                self.bench.world.i2c_read("ftdi", 0, address, 0)
        except I2CNackError:
            return False
        return True

    def close(self, freeze: bool = False) -> None:
        self.bench.calls.append(("close",))

    def terminate(self) -> None:
        self.bench.calls.append(("terminate",))


class FakeSpiController(_FakeGpioMixin):
    """pyftdi.spi.SpiController whose chip selects reach SimWorld SPI parts (bus 0)."""

    GPIO_MASK = 0xFFF0

    def __init__(self, bench: FtdiBench, cs_count: int = 1, turbo: bool = True) -> None:
        self.bench, self.cs_count = bench, cs_count
        self.ports: dict[int, FakeSpiPort] = {}

    def configure(self, url: str, **kwargs: Any) -> None:
        if not self.bench.present:
            raise UsbToolsError(f"No USB device matches URL {url}")
        self.bench.configured_urls.append(url)
        # AD0-AD2 are SCK/MOSI/MISO and AD3.. the chip selects; the pins above are GPIO.
        self.GPIO_MASK = 0xFFFF & ~((1 << (3 + self.cs_count)) - 1)

    def get_port(self, cs: int, freq: float | None = None, mode: int = 0) -> FakeSpiPort:
        if cs not in self.ports:
            self.ports[cs] = FakeSpiPort(self.bench, cs, mode)
        return self.ports[cs]

    def close(self, freeze: bool = False) -> None:
        pass

    def terminate(self) -> None:
        self.bench.calls.append(("terminate",))


class FakeSpiPort:
    def __init__(self, bench: FtdiBench, cs: int, mode: int) -> None:
        self.bench, self.cs, self.mode = bench, cs, mode
        self.frequency = 1e6

    def set_mode(self, mode: int) -> None:
        self.mode = mode

    def set_frequency(self, freq: float) -> None:
        self.frequency = freq

    def exchange(self, out: bytes = b"", readlen: int = 0, duplex: bool = False, **kw: Any) -> bytes:
        self.bench.tick()
        self.bench.calls.append(("spi_exchange", self.cs, bytes(out), duplex))
        return self.bench.world.spi_transfer("ftdi", 0, self.cs, bytes(out), self.mode)


# --- fixtures -------------------------------------------------------------------------------------------------

BENCH_SCENARIO = Path(__file__).resolve().parent / "contract" / "bench.toml"


def bench_world(i2c_buses: list[int], spi_buses: list[int]) -> SimWorld:
    """The contract bench's parts (BME280 0x76, 24C02 0x50, MCP3008 CS0, loopback CS1) on given bus numbers."""
    return SimWorld(load_scenario(BENCH_SCENARIO), i2c_buses=i2c_buses, spi_buses=spi_buses)


@pytest.fixture
def linux_env(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A host with /dev/i2c-1 and /dev/spidev0.0/0.1 reaching the bench parts; gpiozero's MockFactory for GPIO."""
    for module in ("smbus2", "spidev", "gpiozero"):
        pytest.importorskip(module, reason=f"linux:// tests need {module} (the linux extra)")
    world = bench_world([1], [0])
    kernel = KernelI2C(world, [1])
    monkeypatch.setattr(smbus_mod, "ioctl", kernel.ioctl)
    monkeypatch.setattr(smbus_mod, "os", _OsShim(kernel))
    spi = FakeSpiDevType(world, [(0, 0), (0, 1)])
    monkeypatch.setattr(spidev, "SpiDev", spi)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    return SimpleNamespace(world=world, kernel=kernel, spi=spi)


@pytest.fixture
def aardvark_env(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """One Aardvark (serial 2237-170206, port 0) whose I2C reaches the bench parts and whose SS has a loopback."""
    pytest.importorskip("aardvark_py", reason="aardvark:// tests need aardvark_py (x86_64 only)")
    world = bench_world([0], [0])
    world.attach_spi("loopback", bus=0, cs=0)
    api = FakeAardvarkAPI(world)
    monkeypatch.setattr(aa.aardvark_py, "api", api)
    return SimpleNamespace(world=world, api=api)


@pytest.fixture
def ftdi_env(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """An FT232H (pyftdi controllers faked) reaching the bench parts."""
    pytest.importorskip("pyftdi", reason="ftdi:// tests need pyftdi (the ftdi extra)")
    from edge_agent.bus import ftdi as ftdi_backend

    world = bench_world([0], [0])
    bench = FtdiBench(world)
    monkeypatch.setattr(ftdi_backend, "I2cController", lambda: FakeI2cController(bench))
    monkeypatch.setattr(ftdi_backend, "SpiController",
                        lambda cs_count=1, turbo=True: FakeSpiController(bench, cs_count, turbo))
    return SimpleNamespace(world=world, bench=bench)
