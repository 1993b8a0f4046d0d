"""linux:// on adapters as the kernel reports them: SMBus-only controllers and each controller's "nobody here".

The fake kernel behaves like i2c-stub when asked (``kernel.as_i2c_stub()``): I2C_FUNCS without
I2C_FUNC_I2C, I2C_RDWR answered with EOPNOTSUPP, ENODEV where no chip sits; SMBus transfers reach the
simulated parts as the bytes they put on the wire.
"""

from __future__ import annotations

import errno
import grp
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.base import Adapter
from edge_agent.bus.sim.world import I2CWrite, I2CWriteRead
from edge_agent.drivers.bme280 import BME280
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusPermissionError,
    I2CNackError,
    InvalidAddressError,
)

URL = "linux://?i2c=1"
I2C_SMBUS_READ, I2C_SMBUS_WRITE = 1, 0
BYTE, BYTE_DATA, WORD_DATA, I2C_BLOCK = 1, 2, 3, 8

# The backend imports smbus2, spidev and gpiozero (the linux extra; spidev and lgpio come from the
# system's packages on a Pi): without them every test here skips.
for _module in ("smbus2", "spidev", "gpiozero"):
    pytest.importorskip(_module, reason=f"linux:// tests need {_module}")


@pytest.fixture
def stub(linux_env: SimpleNamespace) -> Iterator[Adapter]:
    linux_env.kernel.as_i2c_stub()
    adapter = open_adapter(URL, safety=None)
    adapter.safety.mode = "open"  # these tests are about the transfers, not the policy
    yield adapter
    adapter.close()


def _kinds(linux_env: SimpleNamespace) -> list[str]:
    return [kind for kind, _ in linux_env.kernel.ioctls]


def test_register_reads_on_an_smbus_only_adapter_are_smbus_block_reads(stub: Adapter,
                                                                       linux_env: SimpleNamespace) -> None:
    linux_env.kernel.ioctls.clear()
    assert stub.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    assert linux_env.kernel.ioctls == [("I2C_SMBUS", (I2C_SMBUS_READ, I2C_BLOCK, 0x76))]  # never I2C_RDWR
    assert linux_env.world.log[-1] == I2CWriteRead(1, 0x76, b"\xd0", 1)  # the same bytes on the wire


def test_a_sensor_driver_runs_unchanged_over_smbus(stub: Adapter, linux_env: SimpleNamespace) -> None:
    reading = BME280(stub.i2c()).read()  # calibration block, ctrl_meas writes, status polls, data burst
    assert 300 < reading.pressure_hpa < 1100
    assert "I2C_RDWR" not in _kinds(linux_env)


def test_writes_go_out_as_the_smbus_transfer_with_the_same_bytes(stub: Adapter, linux_env: SimpleNamespace) -> None:
    bus = stub.i2c()
    linux_env.kernel.ioctls.clear()
    bus.write(0x50, b"\x10\xaa")  # register + one byte: write byte data
    while not bus.probe(0x50):  # the EEPROM's write cycle: it answers again after a few polls
        pass
    bus.write(0x50, b"\x20\x01\x02\x03")  # register + three bytes: I2C block write
    sizes = [size for kind, (rw, size, _) in linux_env.kernel.ioctls if kind == "I2C_SMBUS" and rw == I2C_SMBUS_WRITE]
    assert sizes[0] == BYTE_DATA and sizes[-1] == I2C_BLOCK
    writes = [t for t in linux_env.world.log if isinstance(t, I2CWrite) and t.data]
    assert [w.data for w in writes[-2:]] == [b"\x10\xaa", b"\x20\x01\x02\x03"]


def test_word_reads_and_writes_are_used_when_the_adapter_has_no_i2c_block(stub: Adapter,
                                                                         linux_env: SimpleNamespace) -> None:
    linux_env.kernel.funcs &= ~0x0C000000  # an SMBus host without I2C block transfers
    bus = stub.i2c()
    linux_env.kernel.ioctls.clear()
    word = bus.read_register(0x76, 0x88, 2)  # dig_T1, low byte first as on the wire
    assert word == linux_env.world.i2c_write_read("test", 1, 0x76, b"\x88", 2)
    bus.write(0x50, b"\x30\x11\x22")
    assert [size for _, (_, size, _) in linux_env.kernel.ioctls] == [WORD_DATA, WORD_DATA]
    assert linux_env.world.log[-1] == I2CWrite(1, 0x50, b"\x30\x11\x22")
    with pytest.raises(InvalidAddressError, match="no SMBus read of that size"):
        bus.read_register(0x76, 0x88, 6)


def test_what_smbus_cannot_express_is_refused_with_a_sentence(stub: Adapter) -> None:
    bus = stub.i2c()
    with pytest.raises(InvalidAddressError, match=r"SMBus-only adapter.*plain read of 4 bytes.*--register"):
        bus.read(0x76, 4)
    assert bus.read(0x76, 1)  # one byte is an SMBus receive byte
    with pytest.raises(InvalidAddressError, match="at most 32 bytes"):
        bus.read_register(0x76, 0x88, 64)
    with pytest.raises(InvalidAddressError, match="16-bit register addresses need plain I2C"):
        bus.write_read(0x50, b"\x00\x10", 4)


def test_an_adapter_that_claims_i2c_but_refuses_i2c_rdwr_falls_back_once(linux_env: SimpleNamespace) -> None:
    linux_env.kernel.refuse_rdwr = True
    adapter = open_adapter(URL, safety=None)
    bus = adapter.i2c()
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    assert _kinds(linux_env).count("I2C_RDWR") == 1  # tried once, then SMBus
    assert adapter.capabilities()["i2c_transfers"]["1"].startswith("smbus")


def test_bus_info_says_which_transfers_each_bus_uses(linux_env: SimpleNamespace) -> None:
    assert open_adapter(URL).capabilities()["i2c_transfers"]["1"].startswith("i2c (I2C_RDWR")
    linux_env.kernel.as_i2c_stub()
    path = open_adapter(URL).capabilities()["i2c_transfers"]["1"]
    assert path.startswith("smbus") and "0x0C7F0000" in path
    assert open_adapter("linux://?i2c=3").capabilities()["i2c_transfers"]["3"].startswith("unavailable")


@pytest.mark.parametrize("code", [errno.ENODEV, errno.ENXIO, errno.EREMOTEIO])
def test_scan_reads_each_controllers_no_answer_as_an_empty_address(linux_env: SimpleNamespace, code: int) -> None:
    linux_env.kernel.nack_errno = code
    adapter = open_adapter(URL)
    assert adapter.i2c().scan() == [0x50, 0x76]
    assert adapter.i2c().probe(0x77) is False


def test_scan_on_i2c_stub_finds_its_chips_and_shows_driver_owned_addresses_as_busy(stub: Adapter,
                                                                                 linux_env: SimpleNamespace) -> None:
    linux_env.kernel.driver_owned.add(0x50)
    report = stub.i2c().scan_report()
    assert report.found == [0x76] and report.busy == [0x50]


def test_a_transfer_no_target_answers_on_i2c_stub_is_a_nack_not_a_missing_interface(stub: Adapter) -> None:
    with pytest.raises(I2CNackError, match="0x77 did not acknowledge"):
        stub.i2c().read_register(0x77, 0xD0, 1)  # i2c-stub answers ENODEV where it has no chip


def test_scan_with_the_device_file_gone_says_the_interface_is_off(linux_env: SimpleNamespace) -> None:
    adapter = open_adapter(URL)
    bus = adapter.i2c()
    bus.read_register(0x76, 0xD0, 1)  # device file open
    linux_env.kernel.buses.clear()  # /dev/i2c-1 removed (overlay unloaded, USB adapter pulled)
    linux_env.kernel.nack_errno = errno.ENODEV
    with pytest.raises(AdapterUnavailableError, match="interface is enabled"):
        bus.scan()
    with pytest.raises(AdapterUnavailableError, match=r"there is no /dev/i2c-1: that I2C interface is off"):
        bus.scan()  # reopened: now the file itself is missing


def test_a_bus_the_user_may_not_open_names_the_group_that_owns_its_device_file(
        linux_env: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.bus import gpiochip

    (tmp_path / "i2c-1").touch()
    monkeypatch.setattr(gpiochip, "DEV_DIR", tmp_path)
    linux_env.kernel.denied.add(1)
    group = grp.getgrgid((tmp_path / "i2c-1").stat().st_gid).gr_name
    with pytest.raises(BusPermissionError, match=f"belongs to group '{group}'.*usermod -aG {group}"):
        open_adapter(URL).i2c().read_register(0x76, 0xD0, 1)


def test_an_smbus_transfer_to_an_address_a_kernel_driver_owns_says_so(stub: Adapter,
                                                                     linux_env: SimpleNamespace) -> None:
    linux_env.kernel.driver_owned.add(0x50)
    with pytest.raises(BusBusyError, match="0x50 .* belongs to a kernel driver .*UU"):
        stub.i2c().read_register(0x50, 0x00, 4)
    assert ("I2C_SLAVE_FORCE", 0x50) not in linux_env.kernel.claims
