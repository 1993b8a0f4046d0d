"""linux:// against a fake kernel (i2c-dev ioctls as smbus2 issues them), a fake spidev and gpiozero's MockFactory."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.base import Adapter, format_scan_grid
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.sim.world import I2CWriteRead
from edge_agent.drivers.bme280 import BME280
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusError,
    BusPermissionError,
    BusTimeoutError,
    I2CNackError,
    InvalidAdapterURL,
    InvalidAddressError,
    UnknownPinError,
    WriteRefusedError,
)

URL = "linux://?i2c=1&spi=0.0,0.1&board=rpi-4b"

# The backend imports smbus2, spidev and gpiozero (the linux extra; spidev and lgpio come from the
# system's packages on a Pi): without them every test here skips.
for _module in ("smbus2", "spidev", "gpiozero"):
    pytest.importorskip(_module, reason=f"linux:// tests need {_module}")


@pytest.fixture
def linux(linux_env: SimpleNamespace) -> Iterator[Adapter]:
    adapter = open_adapter(URL, safety=None)
    adapter.safety.mode = "open"  # these tests are about the backend, not the policy
    yield adapter
    adapter.close()


def test_write_read_is_one_i2c_rdwr_with_two_messages(linux: Adapter, linux_env: SimpleNamespace) -> None:
    """A repeated START needs both messages in one I2C_RDWR ioctl (two ioctls would put a STOP between)."""
    linux_env.kernel.ioctls.clear()
    assert linux.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    assert linux_env.kernel.ioctls == [("I2C_RDWR", [("w", 0x76, 1), ("r", 0x76, 1)])]
    assert linux_env.world.log[-1] == I2CWriteRead(1, 0x76, b"\xd0", 1)


def test_reads_longer_than_an_smbus_block_work(linux: Adapter) -> None:
    """I2C_RDWR is not bound by the 32-byte SMBus block limit (the BCM2835 cannot do SMBus block reads)."""
    data = linux.i2c().read_register(0x50, 0x00, 64)
    assert len(data) == 64


def test_scan_probes_like_i2cdetect(linux: Adapter, linux_env: SimpleNamespace) -> None:
    """Quick write everywhere except 0x30-0x37 and 0x50-0x5F, which get a read-byte (i2cdetect -y default)."""
    linux_env.kernel.ioctls.clear()
    found = linux.i2c().scan()
    assert found == [0x50, 0x76]
    probes = {addr: (rw, size) for kind, (rw, size, addr) in linux_env.kernel.ioctls if kind == "I2C_SMBUS"}
    assert probes[0x50] == (1, 1)  # I2C_SMBUS_READ, I2C_SMBUS_BYTE
    assert probes[0x33] == (1, 1)
    assert probes[0x76] == (0, 0)  # I2C_SMBUS_WRITE, I2C_SMBUS_QUICK
    assert min(probes) == 0x08 and max(probes) == 0x77  # reserved 0x00-0x07 and 0x78-0x7F skipped


def test_scan_claims_addresses_with_i2c_slave_never_force(linux: Adapter, linux_env: SimpleNamespace) -> None:
    linux_env.kernel.claims.clear()
    assert linux.i2c().scan() == [0x50, 0x76]
    claims = [kind for kind, _ in linux_env.kernel.claims]
    assert claims and set(claims) == {"I2C_SLAVE"}


def test_an_address_a_kernel_driver_owns_is_reported_busy_and_never_probed(linux: Adapter,
                                                                          linux_env: SimpleNamespace) -> None:
    # A HAT EEPROM bound to the at24 driver: i2cdetect prints UU and leaves it alone.
    linux_env.kernel.driver_owned.add(0x50)
    linux_env.kernel.ioctls.clear()
    linux_env.kernel.claims.clear()
    bus = linux.i2c()
    report = bus.scan_report()
    assert report.found == [0x76] and report.busy == [0x50]
    assert bus.scan() == [0x76]
    probed = {addr for kind, (_, _, addr) in linux_env.kernel.ioctls if kind == "I2C_SMBUS"}
    assert 0x50 not in probed and 0x76 in probed
    assert ("I2C_SLAVE", 0x50) in linux_env.kernel.claims
    assert ("I2C_SLAVE_FORCE", 0x50) not in linux_env.kernel.claims
    with pytest.raises(BusBusyError, match="kernel driver"):
        bus.probe(0x50)
    assert "UU" in format_scan_grid(report.found, busy=report.busy).splitlines()[6]  # row 50


def test_bus_errors_while_claiming_an_address_are_not_mistaken_for_a_driver(linux: Adapter,
                                                                           linux_env: SimpleNamespace) -> None:
    linux_env.kernel.unplugged = True
    with pytest.raises(AdapterUnavailableError):
        linux.i2c().scan()


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (errno.EREMOTEIO, I2CNackError),
        (errno.ENXIO, I2CNackError),
        (errno.ETIMEDOUT, BusTimeoutError),
        (errno.EAGAIN, BusBusyError),
        (errno.EBUSY, BusBusyError),
        (errno.EACCES, BusPermissionError),
        (errno.ENODEV, AdapterUnavailableError),
        (errno.EIO, BusError),
    ],
)
def test_errno_values_become_bus_errors(linux: Adapter, linux_env: SimpleNamespace, code: int,
                                        error: type[BusError]) -> None:
    if code == errno.ENODEV:
        linux.i2c().read_register(0x76, 0xD0, 1)  # open, then the device file goes (a pulled USB adapter)
        linux_env.kernel.buses.remove(1)
    linux_env.kernel.fail_next.append(code)
    with pytest.raises(error) as info:
        linux.i2c().read_register(0x76, 0xD0, 1)
    assert info.value.adapter == URL
    assert info.value.address == 0x76
    assert errno.errorcode[code] in str(info.value)  # the errno name is kept for the operator


def test_device_vanishing_mid_transaction_is_reopened_on_the_next_call(linux: Adapter,
                                                                       linux_env: SimpleNamespace) -> None:
    bus = linux.i2c()
    bus.read_register(0x76, 0xD0, 1)
    opens = linux_env.kernel.opens
    linux_env.kernel.fail_next.append(errno.ENODEV)
    linux_env.kernel.buses.remove(1)
    with pytest.raises(AdapterUnavailableError):
        bus.read_register(0x76, 0xD0, 1)
    linux_env.kernel.buses.append(1)  # plugged back in
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    assert linux_env.kernel.opens == opens + 1


def test_missing_bus_device_file_is_adapter_unavailable(linux_env: SimpleNamespace) -> None:
    adapter = open_adapter("linux://?i2c=1,3")
    with pytest.raises(AdapterUnavailableError):
        adapter.i2c(3).read(0x76, 1)
    health = adapter.health()
    assert health["ok"] is False and "/dev/i2c-3" in health["detail"]
    assert open_adapter("linux://?i2c=1&spi=0.0").health()["ok"] is True


def test_smbus_block_read_is_limited_to_32_bytes(linux: Adapter) -> None:
    bus = linux.i2c()
    assert bus.smbus_block_read(0x76, 0xD0, 1) == b"\x60"  # type: ignore[attr-defined]
    with pytest.raises(InvalidAddressError):
        bus.smbus_block_read(0x76, 0x88, 33)  # type: ignore[attr-defined]


def test_spi_goes_through_spidev_with_mode_and_speed(linux: Adapter, linux_env: SimpleNamespace) -> None:
    dev = linux.spi(0, 0, mode=3, speed_hz=250_000)
    rx = dev.transfer([0x01, 0x80 | 2 << 4, 0x00])  # MCP3008 CH2 single-ended; CH2 of the bench is 0 V
    assert len(rx) == 3
    assert linux_env.spi.opened == [(0, 0)]
    assert linux_env.world.log[-1].mode == 3


def test_spidev_errors_are_mapped(linux: Adapter, linux_env: SimpleNamespace) -> None:
    linux_env.spi.fail_next.append(errno.EACCES)
    with pytest.raises(BusPermissionError):
        linux.spi(0, 1).transfer(b"\x00")


def test_gpio_names_resolve_through_the_board(linux: Adapter) -> None:
    """J8-11 is GPIO17 on a Raspberry Pi 4 header."""
    name, line = linux.resolve_pin("J8-11")
    assert (name, line) == ("GPIO17", 17)
    linux.gpio_write("J8-11", 1)
    assert linux.pin_factory.pin(17).state  # type: ignore[attr-defined]
    linux.gpio_write("GPIO17", 0)
    assert not linux.pin_factory.pin(17).state  # type: ignore[attr-defined]


def test_gpio_pull_up_reads_high(linux: Adapter) -> None:
    linux.gpio_mode("GPIO22", "in", "up")
    assert linux.gpio_read("GPIO22") == 1
    linux.gpio_mode("GPIO22", "in", "down")
    assert linux.gpio_read("GPIO22") == 0


def test_gpio_with_a_fixed_pull_resistor_refuses_the_other_pull(linux: Adapter) -> None:
    """GPIO2 (SDA1) has a physical 1.8 kOhm pull-up on every Pi."""
    with pytest.raises(InvalidAddressError):
        linux.gpio_mode("GPIO2", "in", "down")


def test_unknown_pin_names_list_suggestions(linux: Adapter) -> None:
    with pytest.raises(UnknownPinError):
        linux.gpio_read("GPIO99")


def test_without_a_board_only_gpio_numbers_are_accepted(linux_env: SimpleNamespace) -> None:
    adapter = open_adapter("linux://?i2c=1")
    assert adapter.resolve_pin("GPIO5")[1] == 5
    assert adapter.resolve_pin(6)[1] == 6
    with pytest.raises(InvalidAddressError):
        adapter.resolve_pin("red_led")


@pytest.mark.parametrize("url", ["linux://?i2c=x", "linux://?spi=0", "linux://?gpiochip=", "linux://?gpiochip=a%20b", "linux://dev",
                                 "linux://?i2c=1&speed=4"])
def test_bad_linux_urls_are_rejected(url: str) -> None:
    with pytest.raises(InvalidAdapterURL):
        open_adapter(url)


def test_driver_in_normal_mode_only_reads(linux_env: SimpleNamespace) -> None:
    """A sensor already in normal mode needs no write, so a read-only real adapter can still sample it."""
    adapter = open_adapter("linux://?i2c=1", safety=SafetyPolicy.for_adapter(None, name="x", scheme="linux"))
    sensor = BME280(adapter.i2c())
    with pytest.raises(WriteRefusedError):
        sensor.read()  # sleep mode after power-on: a forced measurement needs ctrl_meas writes
    linux_env.world.device(0x76).write(b"\xf4\x27")  # type: ignore[attr-defined]  # someone set normal mode
    assert 300 < sensor.read().pressure_hpa < 1100


@pytest.mark.skipif(Path("/dev/gpiochip0").exists(), reason="this machine has a real GPIO chip")
def test_without_a_gpio_chip_the_real_lgpio_factory_reports_adapter_unavailable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine has no /dev/gpiochip*: gpiozero's LGPIOFactory fails in lgpio, and that surfaces cleanly."""
    pytest.importorskip("lgpio", reason="needs lgpio")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    adapter = open_adapter("linux://?gpiochip=0&board=rpi-4b")
    with pytest.raises(AdapterUnavailableError) as info:
        adapter.gpio_read("GPIO17")
    assert "gpiochip0" in str(info.value)
