"""aardvark:// against a fake of the aardvark C extension (the real aardvark_py wrapper runs), and the real
package's "no device" path."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.base import Adapter
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.sim.world import I2CWriteRead
from edge_agent.errors import (
    AdapterUnavailableError,
    BusBusyError,
    BusError,
    I2CNackError,
    InvalidAdapterURL,
    InvalidAddressError,
)

# The vendor package has wheels for x86_64 only; elsewhere these tests skip.
aa = pytest.importorskip("aardvark_py", reason="aardvark:// tests need aardvark_py (x86_64 only)")


@pytest.fixture
def aardvark(aardvark_env: SimpleNamespace) -> Iterator[Adapter]:
    adapter = open_adapter("aardvark://2237-170206", safety=SafetyPolicy.open())
    yield adapter
    adapter.close()


def test_real_library_without_a_device_reports_adapter_unavailable() -> None:
    """aardvark_py loads here but finds no USB device: the open fails cleanly, with no vendor code leaking."""
    with pytest.raises(AdapterUnavailableError) as info:
        open_adapter("aardvark://")
    assert info.value.adapter == "aardvark://"


def test_handle_is_opened_once_and_held(aardvark: Adapter, aardvark_env: SimpleNamespace) -> None:
    bus = aardvark.i2c()
    for _ in range(5):
        bus.read_register(0x76, 0xD0, 1)
    assert [c for c in aardvark_env.api.calls if c[0] == "open"] == [("open", 0)]


def test_write_read_uses_the_combined_call_for_a_repeated_start(aardvark: Adapter,
                                                                aardvark_env: SimpleNamespace) -> None:
    aardvark_env.api.calls.clear()
    assert aardvark.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    assert aardvark_env.api.calls == [("i2c_write_read", 0x76, aa.AA_I2C_NO_FLAGS, b"\xd0", 1)]
    assert aardvark_env.world.log[-1] == I2CWriteRead(0, 0x76, b"\xd0", 1)


def test_configuration_sets_bitrate_and_bus_frequency(aardvark_env: SimpleNamespace) -> None:
    adapter = open_adapter("aardvark://2237170206?bitrate_khz=400&pullups=1")
    assert ("bitrate", 400) in aardvark_env.api.calls
    assert adapter.i2c().frequency_hz == 400_000
    assert ("configure", aa.AA_CONFIG_SPI_I2C) in aardvark_env.api.calls


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (aa.AA_I2C_STATUS_SLA_NACK, I2CNackError),
        (aa.AA_I2C_STATUS_DATA_NACK, I2CNackError),
        (aa.AA_I2C_STATUS_BUS_LOCKED, BusBusyError),
        (aa.AA_I2C_STATUS_ARB_LOST, BusBusyError),
        (aa.AA_I2C_STATUS_BUS_ERROR, BusError),
        (aa.AA_I2C_WRITE_ERROR, BusError),
    ],
)
def test_every_i2c_status_code_becomes_a_bus_error(aardvark: Adapter, aardvark_env: SimpleNamespace,
                                                   status: int, error: type[BusError]) -> None:
    aardvark_env.api.force_i2c_status.append(status)
    with pytest.raises(error) as info:
        aardvark.i2c().read(0x76, 2)
    assert info.value.address == 0x76 and info.value.adapter == aardvark.url
    assert aardvark.i2c().read_register(0x76, 0xD0, 1) == b"\x60"  # still usable


def test_short_reads_are_errors_not_silent_truncation(aardvark: Adapter, aardvark_env: SimpleNamespace,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    api = aardvark_env.api
    original = api.py_aa_i2c_read_ext
    monkeypatch.setattr(api, "py_aa_i2c_read_ext", lambda h, a, f, n, buf: (original(h, a, f, n, buf)[0], n - 1))
    with pytest.raises(BusError):
        aardvark.i2c().read(0x76, 4)


def test_unplug_mid_transaction_then_replug_reopens_by_serial(aardvark: Adapter,
                                                              aardvark_env: SimpleNamespace) -> None:
    bus = aardvark.i2c()
    aardvark_env.api.unplugged = True
    with pytest.raises(AdapterUnavailableError):
        bus.read_register(0x76, 0xD0, 1)
    with pytest.raises(AdapterUnavailableError):  # still gone: the reopen fails cleanly too
        bus.read_register(0x76, 0xD0, 1)
    aardvark_env.api.unplugged = False
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    assert len([c for c in aardvark_env.api.calls if c[0] == "open"]) == 2


def test_a_port_in_use_by_another_program_is_reported(aardvark_env: SimpleNamespace) -> None:
    aardvark_env.api.devices = [(0 | aa.AA_PORT_NOT_FREE, 2237170206)]
    with pytest.raises(AdapterUnavailableError):
        open_adapter("aardvark://")


def test_two_adapters_without_a_serial_is_ambiguous(aardvark_env: SimpleNamespace) -> None:
    aardvark_env.api.devices = [(0, 2237170206), (1, 2237170207)]
    with pytest.raises(InvalidAdapterURL):
        open_adapter("aardvark://")
    assert open_adapter("aardvark://1").health()["serial"] == "2237-170207"


def test_unknown_serial_lists_connected_ones(aardvark_env: SimpleNamespace) -> None:
    with pytest.raises(AdapterUnavailableError) as info:
        open_adapter("aardvark://1111-222222")
    assert "2237-170206" in str(info.value)


def test_spi_mode_maps_to_polarity_and_phase(aardvark: Adapter, aardvark_env: SimpleNamespace) -> None:
    aardvark.spi(0, 0, mode=2).transfer(b"\x12")
    assert ("spi_configure", 1, 0, aa.AA_SPI_BITORDER_MSB) in aardvark_env.api.calls


def test_gpio_lines_exist_only_when_config_frees_them(aardvark_env: SimpleNamespace) -> None:
    default = open_adapter("aardvark://", safety=SafetyPolicy.open())
    with pytest.raises(InvalidAddressError):
        default.gpio_write("SS", 1)
    default.close()
    adapter = open_adapter("aardvark://?config=gpio+i2c", safety=SafetyPolicy.open())
    aardvark_env.api.gpio_jumpers[aa.AA_GPIO_MISO] = aa.AA_GPIO_SS
    adapter.gpio_mode("MISO", "in", "none")
    adapter.gpio_write("SS", 1)
    assert adapter.gpio_read("MISO") == 1
    adapter.gpio_write("SS", 0)
    assert adapter.gpio_read("MISO") == 0
    with pytest.raises(InvalidAddressError):
        adapter.gpio_mode("MISO", "in", "down")  # the Aardvark has pull-ups only
    with pytest.raises(InvalidAddressError):
        adapter.spi()  # SPI pins are GPIO now


@pytest.mark.parametrize("url", ["aardvark://abc", "aardvark://?bitrate_khz=0", "aardvark://?config=i2c",
                                 "aardvark://?speed=1"])
def test_bad_aardvark_urls_are_rejected(aardvark_env: SimpleNamespace, url: str) -> None:
    with pytest.raises(InvalidAdapterURL):
        open_adapter(url)


def test_old_hardware_without_target_power_opens_unless_power_is_requested(
        aardvark_env: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aardvark_env.api, "py_aa_target_power", lambda h, mask: aa.AA_INCOMPATIBLE_DEVICE)
    assert open_adapter("aardvark://").health()["ok"] is True
    with pytest.raises(BusError):
        open_adapter("aardvark://?power=1")
