"""ftdi:// against fakes of pyftdi's I2cController/SpiController (raising pyftdi's and pyusb's own
exceptions), and the real pyftdi "no device" path."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.base import Adapter
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.errors import AdapterUnavailableError, I2CNackError, InvalidAdapterURL, InvalidAddressError


@pytest.fixture
def ftdi(ftdi_env: SimpleNamespace) -> Iterator[Adapter]:
    adapter = open_adapter("ftdi://ftdi:232h/1?i2c_hz=400000", safety=SafetyPolicy.open())
    yield adapter
    adapter.close()


def test_real_pyftdi_without_a_device_reports_adapter_unavailable() -> None:
    with pytest.raises(AdapterUnavailableError) as info:
        open_adapter("ftdi://ftdi:232h/1")
    assert info.value.adapter == "ftdi://ftdi:232h/1"


def test_pyftdi_gets_the_url_without_our_options(ftdi: Adapter, ftdi_env: SimpleNamespace) -> None:
    assert ftdi_env.bench.configured_urls == ["ftdi://ftdi:232h/1"]
    assert ("configure", "ftdi://ftdi:232h/1", {"frequency": 400000.0}) in ftdi_env.bench.calls
    assert ftdi.i2c().frequency_hz == 400_000


def test_write_read_uses_exchange_for_a_repeated_start(ftdi: Adapter, ftdi_env: SimpleNamespace) -> None:
    ftdi_env.bench.calls.clear()
    assert ftdi.i2c().read_register(0x76, 0xD0, 1) == b"\x60"
    assert ftdi_env.bench.calls == [("exchange", 0x76, b"\xd0", 1)]


def test_pyftdi_nack_becomes_our_nack(ftdi: Adapter) -> None:
    with pytest.raises(I2CNackError) as info:
        ftdi.i2c().write(0x11, b"\x00")
    assert info.value.address == 0x11


def test_scan_uses_poll_in_read_or_write_mode(ftdi: Adapter, ftdi_env: SimpleNamespace) -> None:
    ftdi_env.bench.calls.clear()
    assert ftdi.i2c().scan() == [0x50, 0x76]
    polls = {c[1]: c[2] for c in ftdi_env.bench.calls if c[0] == "poll"}
    assert polls[0x50] is False and polls[0x76] is True  # read probe in the EEPROM range, quick write elsewhere


def test_usb_unplug_is_adapter_unavailable_and_the_next_call_reconfigures(ftdi: Adapter,
                                                                          ftdi_env: SimpleNamespace) -> None:
    bus = ftdi.i2c()
    ftdi_env.bench.present = False
    with pytest.raises(AdapterUnavailableError):
        bus.read_register(0x76, 0xD0, 1)
    with pytest.raises(AdapterUnavailableError):
        bus.read_register(0x76, 0xD0, 1)
    ftdi_env.bench.present = True
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"
    assert len(ftdi_env.bench.configured_urls) == 2


def test_gpio_lines_are_the_pins_the_mode_leaves_free(ftdi: Adapter) -> None:
    caps = ftdi.capabilities()
    assert caps["gpio_lines"][0] == "AD3" and "AD0" not in caps["gpio_lines"]
    with pytest.raises(InvalidAddressError):
        ftdi.gpio_write("AD1", 1)  # SDA
    with pytest.raises(InvalidAddressError):
        ftdi.gpio_mode("AD4", "in", "up")  # no internal pulls on FTDI parts


def test_spi_mode_has_chip_selects_and_no_i2c(ftdi_env: SimpleNamespace) -> None:
    adapter = open_adapter("ftdi://ftdi:232h/1?mode=spi&cs_count=2", safety=SafetyPolicy.open())
    assert adapter.capabilities()["spi"] == ["0.0", "0.1"]
    assert adapter.spi(0, 1, mode=1).transfer(b"\x5a") == b"\x5a"
    with pytest.raises(InvalidAddressError):
        adapter.i2c()


@pytest.mark.parametrize("url", ["ftdi://", "ftdi://ftdi:232h/1?mode=uart", "ftdi://ftdi:232h/1?i2c_hz=1",
                                 "ftdi://ftdi:232h/1?baud=9600"])
def test_bad_ftdi_urls_are_rejected(ftdi_env: SimpleNamespace, url: str) -> None:
    with pytest.raises(InvalidAdapterURL):
        open_adapter(url)
