"""Names a datasheet gives one pin in shapes the index once left unknown, and roles that stay ambiguous: a role
column beside a pin column with no name column (a device's bus signal, ``ID EEPROM SDA``), a bus signal set equal to
a header pin with the chip's pin in brackets (``CS = Arduino D10 (P1.12)``), and a role no routed bus has, read from
the numbered buses the datasheets and pin functions give it (a Pi's CTS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, UnknownPinError
from edge_agent.rag import pin_index_for

_ROLE_TABLE = """# Probe HAT header

## Header map

| Position | BCM | Default role |
| --- | --- | --- |
| J8-3 | GPIO2 | I2C1 SDA |
| J8-7 | GPIO4 | plain GPIO |
| J8-27 | GPIO0 | ID EEPROM SDA (I2C0), leave free |
| J8-28 | GPIO1 | ID EEPROM SCL (I2C0), leave free |
| J8-29 | GPIO5 | SPI CS |
"""


def test_a_role_column_beside_a_pin_column_names_each_rows_functions(tmp_path: Path) -> None:
    (tmp_path / "probe-hat.md").write_text(_ROLE_TABLE)
    index = pin_index_for(tmp_path)
    assert index.resolve("probe-hat", "ID EEPROM SDA").name == "GPIO0"
    assert index.resolve("probe-hat", "id_eeprom_scl").name == "GPIO1"
    assert index.resolve("probe-hat", "I2C1 SDA").name == "GPIO2"
    with pytest.raises(AmbiguousPinError):
        index.resolve("probe-hat", "I2C0")  # the EEPROM's bus: two pins
    for not_a_name in ("leave free", "plain GPIO", "SPI CS"):  # words, and the CS of whichever SPI bus
        with pytest.raises(UnknownPinError):
            index.resolve("probe-hat", not_a_name)


_BUSES = """# Probe DK

## I2C and SPI

| Bus | Signals | Notes |
| --- | --- | --- |
| spi0 | SCK P0.27, MOSI P0.26, MISO P0.29 | disabled |
| spi3 (arduino_spi) | SCK P1.15, MISO P1.14, MOSI P1.13, CS = Arduino D10 (P1.12) | enabled |
"""


def test_a_signal_set_equal_to_a_header_pin_takes_the_pin_in_brackets(tmp_path: Path) -> None:
    (tmp_path / "probe-dk.md").write_text(_BUSES)
    index = pin_index_for(tmp_path)
    assert index.resolve("probe-dk", "spi3_CS").name == "P1.12"
    assert index.resolve("probe-dk", "arduino_spi CS").name == "P1.12"
    assert index.resolve("probe-dk", "SPI CS").name == "P1.12"  # the one SPI bus whose CS is written
    with pytest.raises(AmbiguousPinError):
        index.resolve("probe-dk", "SPI MOSI")  # spi0's and spi3's


_EXTRA_UARTS = """# Raspberry Pi 4 notes

## Extra UARTs

| UART | TX | RX | CTS | RTS |
| --- | --- | --- | --- | --- |
| uart2 | GPIO0 | GPIO1 | GPIO2 | GPIO3 |
"""


def test_a_role_no_routed_bus_has_comes_from_the_numbered_buses(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    # the board file routes uart0 TX and RX only; its pin functions put UART0_CTS on GPIO16
    assert pin_index_for(bare).resolve("rpi-4b", "CTS").name == "GPIO16"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "rpi-4b.md").write_text(_EXTRA_UARTS)
    index = pin_index_for(notes)
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("rpi-4b", "CTS")
    assert err.value.choices == [("UART2 CTS", "GPIO2"), ("UART0 CTS", "GPIO16")]
    with pytest.raises(AmbiguousPinError) as shared:  # on the tag the Pis share: the Pi 4's two CTS pins
        index.resolve("rpi-gpio", "CTS")
    assert shared.value.choices == [("GPIO2", "GPIO2"), ("UART0 CTS", "GPIO16")]  # UART2 is the Pi 4's alone
    assert index.resolve("rpi-gpio", "UART0 CTS").name == "GPIO16"
    assert index.resolve("arduino-uno", "TX").name == "PD1"  # a routed bus's role stays the board file's


_SERIAL = """# Probe DK

## Serial ports

| UART | TX | RX |
| --- | --- | --- |
| uart1 (arduino_serial) | P1.02 | P1.01 |

## Arduino header

| Arduino | Pin | Notes |
| --- | --- | --- |
| A0 | P0.02 | ADC1_IN0 |
| A1 | P0.03 | ADC1_IN1 |
"""


def test_a_bus_or_converter_named_alone_is_an_error_naming_its_members(tmp_path: Path) -> None:
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    (sheets / "probe-dk.md").write_text(_SERIAL)
    index = pin_index_for(sheets)
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("probe-dk", "arduino_serial")
    assert err.value.choices == [("arduino_serial_RX", "P1.01"), ("arduino_serial_TX", "P1.02")]
    with pytest.raises(AmbiguousPinError) as adc:
        index.resolve("probe-dk", "ADC1")
    assert adc.value.choices == [("ADC1_IN0", "P0.02"), ("ADC1_IN1", "P0.03")]
    with pytest.raises(UnknownPinError):
        index.resolve("probe-dk", "ADC")  # no channel of an "ADC" written: unknown, not the first one
    with pytest.raises(UnknownPinError):
        index.resolve("probe-dk", "P1.0")  # a pin's name cut short is no bus (P1.01, P1.02)
    bare = tmp_path / "bare"
    bare.mkdir()
    with pytest.raises(AmbiguousPinError) as esp:  # the board file's pin functions ADC2_CH0 to ADC2_CH9
        pin_index_for(bare).resolve("esp32-devkitc", "ADC2")
    assert ("ADC2_CH1", "GPIO0") in esp.value.choices and len(esp.value.choices) == 10
    assert pin_index_for(bare).resolve("esp32-devkitc", "ADC2_CH1").name == "GPIO0"


def test_a_kind_of_bus_named_alone_is_an_error_naming_its_signals(tmp_path: Path) -> None:
    (tmp_path / "probe-nano.md").write_text("# Probe Nano\n\n## Pin Aliases\n\n- TX: PD1\n- RX: PD0\n")
    index = pin_index_for(tmp_path)
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("probe-nano", "Serial")  # Serial TX and Serial RX
    assert err.value.choices == [("Serial RX", "PD0"), ("Serial TX", "PD1")]
    with pytest.raises(AmbiguousPinError) as spi:
        index.resolve("arduino-uno", "SPI")  # the board file's one SPI bus: four signals
    assert spi.value.choices == [("SPI CS", "PB2"), ("SPI MOSI", "PB3"), ("SPI MISO", "PB4"), ("SPI SCK", "PB5")]
    with pytest.raises(UnknownPinError):
        index.resolve("probe-nano", "I2C")  # no I2C signal written: unknown
