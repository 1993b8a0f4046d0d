"""The bus contract: every adapter behaves the same through the Adapter API.

Wiring (built-in targets have it; on a real bench wire it and pass --bus-url):
  * a BME280 at 0x76 (chip id 0x60),
  * a 24C02 EEPROM at 0x50 with WP low (its contents at 0x00-0x0F are overwritten),
  * MOSI jumpered to MISO on the chip select given by --bus-spi-loop,
  * two GPIO lines jumpered together, given by --bus-gpio-loop OUT,IN.
"""

from __future__ import annotations

import pytest

from edge_agent.drivers.bme280 import BME280
from edge_agent.drivers.eeprom import EEPROM24
from edge_agent.errors import (
    AdapterUnavailableError,
    I2CNackError,
    InvalidAddressError,
    PinError,
    WriteRefusedError,
)

from .conftest import Bench

EMPTY_ADDRESS = 0x11  # nothing on any bench answers here


def test_scan_lists_the_bench_parts_and_only_valid_addresses(bench: Bench) -> None:
    bench.require_i2c()
    found = bench.adapter.i2c().scan()
    assert all(0x03 <= a <= 0x77 for a in found)
    assert found == sorted(set(found))
    if bench.strict:
        assert {0x50, 0x76} <= set(found)
        assert EMPTY_ADDRESS not in found


def test_register_read_with_repeated_start_returns_the_bme280_chip_id(bench: Bench) -> None:
    bench.require_part(0x76)
    assert bench.adapter.i2c().read_register(0x76, 0xD0, 1) == b"\x60"


def test_burst_read_matches_byte_by_byte_reads(bench: Bench) -> None:
    """The BME280 auto-increments its register pointer on reads (datasheet 6.2.2)."""
    bench.require_part(0x76)
    bus = bench.adapter.i2c()
    burst = bus.read_register(0x76, 0x88, 8)
    single = bytes(bus.read_register(0x76, 0x88 + i, 1)[0] for i in range(8))
    assert burst == single
    assert burst != b"\x00" * 8


def test_eeprom_write_then_read_back_round_trips(bench: Bench) -> None:
    bench.require_part(0x50)
    eeprom = EEPROM24(bench.adapter.i2c(), 0x50, part="24c02")
    eeprom.write(0x00, bytes(range(0xA0, 0xAC)))  # crosses the 8-byte page boundary at 0x08
    assert eeprom.read(0x00, 12) == bytes(range(0xA0, 0xAC))


def test_eeprom_page_write_wraps_inside_its_page(bench: Bench) -> None:
    """24C02 datasheet: data past the end of an 8-byte page rolls over to the start of the same page."""
    bench.require_part(0x50)
    bus = bench.adapter.i2c()
    eeprom = EEPROM24(bus, 0x50)
    eeprom.write(0x00, bytes(8))
    bus.write_register(0x50, 0x06, b"\x11\x22\x33\x44")  # raw write, not split by the driver
    eeprom._wait_ready(0x50)
    assert eeprom.read(0x00, 8) == b"\x33\x44\x00\x00\x00\x00\x11\x22"


def test_missing_target_raises_nack_with_fields_and_the_adapter_stays_usable(bench: Bench) -> None:
    bench.require_part(0x76)
    bus = bench.adapter.i2c()
    with pytest.raises(I2CNackError) as info:
        bus.read_register(EMPTY_ADDRESS, 0x00, 1)
    assert info.value.address == EMPTY_ADDRESS
    assert info.value.register == 0x00
    assert info.value.adapter == bench.adapter.url
    assert bus.read_register(0x76, 0xD0, 1) == b"\x60"


@pytest.mark.parametrize("address", [0x00, 0x02, 0x78, 0x7F, 0x150, -1])
def test_addresses_outside_7bit_range_are_rejected_before_the_bus(bench: Bench, address: int) -> None:
    bench.require_i2c()
    with pytest.raises(InvalidAddressError):
        bench.adapter.i2c().read(address, 1)


@pytest.mark.parametrize("n", [0, -1, 10**6])
def test_read_lengths_outside_the_adapter_limit_are_rejected(bench: Bench, n: int) -> None:
    bench.require_i2c()
    with pytest.raises(InvalidAddressError):
        bench.adapter.i2c().read(0x76, n)


def test_register_that_does_not_fit_its_width_is_rejected(bench: Bench) -> None:
    bench.require_i2c()
    with pytest.raises(InvalidAddressError):
        bench.adapter.i2c().read_register(0x76, 0x100, 1)


def test_bus_number_that_does_not_exist_is_rejected(bench: Bench) -> None:
    with pytest.raises(InvalidAddressError):
        bench.adapter.i2c(99)


def test_bme280_driver_reads_plausible_values(bench: Bench) -> None:
    bench.require_part(0x76)
    reading = BME280(bench.adapter.i2c(), 0x76).read()
    assert -40 <= reading.temperature_c <= 85
    assert 300 <= reading.pressure_hpa <= 1100
    assert 0 <= reading.humidity_pct <= 100


def test_spi_loopback_returns_what_was_sent_in_every_mode(bench: Bench) -> None:
    if bench.spi_loop is None:
        pytest.skip("no SPI loopback on this bench")
    bus, cs = bench.spi_loop
    payload = bytes([0x00, 0xFF, 0xA5, 0x5A, 0x01, 0x80])
    for mode in (0, 1, 2, 3):
        assert bench.adapter.spi(bus, cs, mode=mode, speed_hz=500_000).transfer(payload) == payload


def test_spi_arguments_are_validated(bench: Bench) -> None:
    if bench.spi_loop is None:
        pytest.skip("no SPI on this bench")
    bus, cs = bench.spi_loop
    with pytest.raises(InvalidAddressError):
        bench.adapter.spi(bus, cs, mode=4)
    with pytest.raises(InvalidAddressError):
        bench.adapter.spi(bus, 7)
    dev = bench.adapter.spi(bus, cs)
    with pytest.raises(InvalidAddressError):
        dev.transfer(b"")
    with pytest.raises(InvalidAddressError):
        dev.transfer(bytes(dev.max_transfer + 1))
    with pytest.raises(InvalidAddressError):
        bench.adapter.spi(bus, cs, speed_hz=10)


def test_gpio_output_drives_the_jumpered_input(bench: Bench) -> None:
    if bench.gpio_loop is None:
        pytest.skip("no GPIO loop on this bench")
    out, inp = bench.gpio_loop
    a = bench.adapter
    a.gpio_mode(inp, "in", "none")
    for level in (1, 0, 1):
        a.gpio_write(out, level)
        assert a.gpio_read(inp) == level


def test_gpio_rejects_bad_values_and_unknown_pins(bench: Bench) -> None:
    if bench.gpio_loop is None:
        pytest.skip("no GPIO on this bench")
    a = bench.adapter
    with pytest.raises(InvalidAddressError):
        a.gpio_write(bench.gpio_loop[0], 2)
    with pytest.raises((PinError, InvalidAddressError)):
        a.gpio_read("no_such_pin_anywhere")
    with pytest.raises(InvalidAddressError):
        a.gpio_mode(bench.gpio_loop[1], "sideways")  # type: ignore[arg-type]
    with pytest.raises(InvalidAddressError):
        a.gpio_mode(bench.gpio_loop[1], "in", "strong")  # type: ignore[arg-type]


def test_writes_outside_the_allow_list_are_refused_on_real_adapters(bench: Bench) -> None:
    bench.require_part(0x76)
    if bench.adapter.safety.writes_open:
        pytest.skip("the simulator is writable by default")
    with pytest.raises(WriteRefusedError) as info:
        bench.adapter.i2c().write_register(0x76, 0xF5, b"\x00")  # config: not on the suite's allow-list
    assert info.value.address == 0x76 and info.value.register == 0xF5
    assert "writable_i2c" in str(info.value)


def test_capabilities_and_health_describe_the_adapter(bench: Bench) -> None:
    caps = bench.adapter.capabilities()
    assert caps["url"] == bench.adapter.url
    assert isinstance(caps["i2c"], list) and isinstance(caps["spi"], list)
    assert bench.adapter.health()["ok"] is True


def test_closed_adapter_refuses_work_and_close_is_idempotent(bench: Bench) -> None:
    a = bench.adapter
    bus = a.i2c() if a.capabilities()["i2c"] else None
    a.close()
    a.close()
    assert a.health()["ok"] is False
    with pytest.raises(AdapterUnavailableError):
        a.i2c()
    if bus is not None:
        with pytest.raises(AdapterUnavailableError):
            bus.read(0x76, 1)


@pytest.mark.parametrize("data", [5, "ab", [256], [-1], None])
def test_write_data_that_is_not_bytes_is_rejected(bench: Bench, data: object) -> None:
    bench.require_i2c()
    with pytest.raises(InvalidAddressError):
        bench.adapter.i2c().write(0x50, data)  # type: ignore[arg-type]
