"""Tables that name a bus's signals rather than (name, pin) pairs, and notes columns listing what else a
pin does: each signal becomes ``<bus>_<signal>`` for its pin, each function name (``AIN1``, ``OC1A``) a name
of its row's pin, and a board file's own bus mapping still answers for its board."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, UnknownPinError
from edge_agent.pins import parse_aliases
from edge_agent.pins.index import PinIndex
from edge_agent.rag import pin_index_for


def _pairs(text: str, tag: str = "board") -> set[tuple[str, str]]:
    entries, problems = parse_aliases(text, f"{tag}.md", tag)
    assert not problems
    return {(e.alias, e.value) for e in entries if e.kind != "description"}  # a description is no name


def test_a_column_per_signal_names_each_bus_line() -> None:
    text = ("## Serial ports\n\n| UART | TX | RX | RTS | CTS | Use |\n| --- | --- | --- | --- | --- | --- |\n"
            "| uart0 | P0.06 | P0.08 | P0.05 | P0.07 | console |\n"
            "| uart1 (arduino_serial) | P1.02 | P1.01 | - | - | |\n")
    got = _pairs(text)
    assert {("uart0_TX", "P0.06"), ("uart0_CTS", "P0.07"), ("uart1_RX", "P1.01"),
            ("arduino_serial_TX", "P1.02")} <= got
    assert not any(name.endswith(("_RTS", "_CTS")) and name.startswith("uart1") for name, _ in got)


def test_arduino_pins_take_the_port_pins_a_later_cell_lists_in_order() -> None:
    text = ("## Serial ports\n\n| Port | TX pin | RX pin | AVR pins |\n| --- | --- | --- | --- |\n"
            "| Serial1 (USART1) | D18 | D19 | PD3 / PD2 |\n")
    got = _pairs(text)
    assert {("D18", "PD3"), ("D19", "PD2"), ("Serial1_TX", "PD3"), ("USART1_RX", "PD2")} <= got


def test_of_a_list_in_brackets_the_numbered_peripheral_names_the_bus() -> None:
    # USART0 is the port's peripheral; USB is what the port is wired to, not a name of its signals
    text = ("## Serial ports\n\n| Port | TX pin | RX pin | AVR pins |\n| --- | --- | --- | --- |\n"
            "| Serial (USART0, USB) | D1 | D0 | PE1 / PE0 |\n")
    got = _pairs(text)
    assert {("Serial_TX", "PE1"), ("USART0_RX", "PE0"), ("USART0_TX", "PE1")} <= got
    assert not any(name.startswith("USB") for name, _ in got)


def test_signals_and_pins_written_slash_separated_pair_up_in_order() -> None:
    text = ("## Default peripheral mapping\n\n| Peripheral | Pins | Notes |\n| --- | --- | --- |\n"
            "| I2C1 SCL / SDA | PB8 / PB9 | 400 kHz |\n| SPI1 NSS / SCK / MISO / MOSI | PB0 / PA5 / PA6 / PA7 | |\n"
            "| Set display on / off | 0xAF / 0xAE | not pins |\n")
    got = _pairs(text)
    assert {("I2C1_SCL", "PB8"), ("I2C1_SDA", "PB9"), ("SPI1_NSS", "PB0"), ("SPI1_MOSI", "PA7")} <= got
    assert len(got) == 6


def test_signals_listed_with_their_pins_in_a_cell() -> None:
    text = ("## Buses\n\n| Bus | Signals | Notes |\n| --- | --- | --- |\n"
            "| i2c0 (arduino_i2c) | SDA P0.26, SCL P0.27 | enabled |\n| SPI2 / HSPI | MISO GPIO12, MOSI GPIO13 | |\n"
            "| notes.md | see https://example.com/a, b | |\n")
    got = _pairs(text)
    assert {("i2c0_SDA", "P0.26"), ("arduino_i2c_SCL", "P0.27"), ("SPI2_MISO", "GPIO12"),
            ("HSPI_MOSI", "GPIO13")} <= got
    assert len(got) == 8  # both names of each bus, nothing from the row that is not a bus


def test_a_signal_written_in_words_in_a_bus_cell_has_both_names() -> None:
    text = ("## Buses\n\n| Bus | Pins | Notes |\n| --- | --- | --- |\n"
            "| I2S0 | BCK GPIO32, WS GPIO33, data out GPIO25 | |\n| I2S1 | data in GPIO26, data sheet rev 2 | |\n")
    got = _pairs(text)
    assert got == {("I2S0_BCK", "GPIO32"), ("I2S0_WS", "GPIO33"), ("I2S0_DATA_OUT", "GPIO25"), ("I2S0_DOUT", "GPIO25"),
                   ("I2S1_DATA_IN", "GPIO26"), ("I2S1_DIN", "GPIO26")}


def test_a_notes_column_names_the_functions_of_its_pin() -> None:
    text = ("## Header\n\n| Arduino | Port pin | Alternate use | PWM timer |\n| --- | --- | --- | --- |\n"
            "| D9 | PB1 | | Timer1 A (OC1A) |\n| A0 | PC0 | ADC0 | - |\n| A4 | PC4 | I2C SDA | - |\n"
            "| D12 | PB4 | SPI MISO, TIM3 CH1 PWM | - |\n")
    got = _pairs(text)
    assert {("OC1A", "PB1"), ("Timer1 A", "PB1"), ("ADC0", "PC0"), ("TIM3 CH1 PWM", "PB4"),
            ("TIM3 CH1", "PB4")} <= got
    # a bus family without its instance names no one pin, and a bare word is not a function
    assert not {name for name, _ in got} & {"I2C SDA", "SPI MISO"}


def test_shared_corpus_function_and_bus_names_resolve(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    for board, name, pin in (("nrf52840dk", "AIN1", "P0.03"), ("nrf52840dk", "uart0_CTS", "P0.07"),
                             ("arduino-uno", "OC1A", "PB1"), ("arduino-mega2560", "D18", "PD3"),
                             ("arduino-mega2560", "D15", "PJ0"), ("nucleo-g071rb", "SPI1_SCK", "PA5"),
                             ("nucleo-g071rb", "TIM3_CH1", "PA6"), ("esp32-devkitc", "VSPI_MOSI", "GPIO23")):
        assert index.resolve(board, name).name == pin, (board, name)


def test_a_board_files_bus_mapping_answers_and_another_mapping_is_no_contradiction(shared_corpus: Path) -> None:
    # the F401RE board file maps USART1 to PA9/PA10 (the Arduino header); the datasheet's Zephyr table maps it
    # to PB6/PB7: both are real mappings of one peripheral, so the board file answers and nothing is reported
    index = pin_index_for(shared_corpus)
    assert index.resolve("nucleo-f401re", "USART1_TX").name == "PA9"
    assert index.check() == []


def test_a_datasheet_giving_a_board_file_name_another_pin_is_still_reported() -> None:
    text = "## Pin Aliases\n\n| alias | pin |\n| --- | --- |\n| D13 | PA6 |\n"
    entries, _ = parse_aliases(text, "nucleo-f401re.md", "nucleo-f401re")
    found = PinIndex(entries).check(["nucleo-f401re"])
    assert [(c.name, c.datasheet_pin, c.board_pin) for c in found] == [("D13", "PA6", "PA5")]


def test_a_connector_table_numbers_its_positions() -> None:
    text = ("## Header J1\n\n| No. | Name | Functions |\n| --- | --- | --- |\n| 1 | 3V3 | supply |\n"
            "| 5 | IO34 | GPIO34, ADC1_CH6 |\n| 8 | IO33 | GPIO33, TOUCH8 |\n")
    assert _pairs(text) == {("J1-5", "IO34"), ("J1-8", "IO33")}


def test_the_esp32_header_the_datasheet_calls_j1_resolves_beside_the_board_files_j2(shared_corpus: Path) -> None:
    # the board file names the EN-side header J2 (Espressif's current drawing), the shared notes call it J1:
    # both spellings reach the same pin, and J3 agrees with the board file
    index = pin_index_for(shared_corpus)
    assert index.resolve("esp32-devkitc", "J1-5").name == index.resolve("esp32-devkitc", "J2-5").name == "GPIO34"
    assert index.resolve("esp32-devkitc", "J3-14").name == "GPIO0"
    assert index.check(["esp32-devkitc"]) == []


def test_an_alternate_function_table_names_what_each_pin_can_take() -> None:
    text = ("## Alternate functions\n\n| GPIO | ALT0 | ALT3 | ALT5 |\n| --- | --- | --- | --- |\n"
            "| 4 | GPCLK0 | SPI4 CE0 | I2C3 SDA |\n| 20 | PCM DIN | SPI6 MOSI | GPCLK0 |\n")
    entries, _ = parse_aliases(text, "pi.md", "pi")
    assert {(e.alias, e.value, e.kind) for e in entries} == {
        ("GPCLK0", "GPIO4", "function"), ("SPI4 CE0", "GPIO4", "function"), ("I2C3 SDA", "GPIO4", "function"),
        ("PCM DIN", "GPIO20", "function"), ("SPI6 MOSI", "GPIO20", "function"), ("GPCLK0", "GPIO20", "function")}


def test_a_function_is_the_weakest_name(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    # one pin can take it: it resolves
    assert index.resolve("rpi-4b", "SPI3_MOSI").name == "GPIO2"
    assert index.resolve("rpi-5", "SPI2_CE0").name == "GPIO0"
    # several pins can: the lookup names them instead of picking one
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("rpi-4b", "I2C6_SDA")
    assert {"GPIO0", "GPIO22"} <= {p for _, p, _ in err.value.matches}
    assert "several pins" in str(err.value) and "use the pin name" in str(err.value)
    # a name a pin has (the header's GPCLK0 on pin 7) answers before a function other pins can also take
    assert index.resolve("rpi-4b", "GPCLK0").name == "GPIO4"
    assert index.disputes("rpi-4b", "GPCLK0") == []


def test_numbered_lines_over_a_span_of_pins_pair_up_in_order() -> None:
    text = ("## Buses\n\n| Bus | Pins | Notes |\n| --- | --- | --- |\n"
            "| qspi | SCK P0.19, IO0-IO3 P0.20-P0.23, CSN P0.17 | flash |\n"
            "| spi9 | SCK P0.01, IO0-IO3 P0.20-P0.22 | |\n")
    got = _pairs(text)
    assert {("qspi_IO0", "P0.20"), ("qspi_IO3", "P0.23"), ("qspi_SCK", "P0.19")} <= got
    assert not any(name.startswith("spi9_IO") for name, _ in got)  # four lines over three pins: no pairing


def test_a_family_no_bus_kind_covers_answers_its_one_bus_and_refuses_between_several(shared_corpus: Path) -> None:
    # the F446RE has CAN1 and CAN2: "can rx" is either, and the error names both; one CAN bus would answer
    index = pin_index_for(shared_corpus)
    with pytest.raises(AmbiguousPinError) as refused:
        index.resolve("nucleo-f446re", "can rx")
    assert "CAN1_RX = PB8" in str(refused.value) and "CAN2_RX = PB12" in str(refused.value)
    assert index.resolve("nucleo-f446re", "can1 rx").name == "PB8"
    text = "## Buses\n\n| Bus | Pins |\n| --- | --- |\n| CAN1 RX / TX | PB8 / PB9 |\n| I2C1 SCL / SDA | PB6 / PB7 |\n"
    one = PinIndex(parse_aliases(text, "one-can.md", "one-can")[0])
    assert one.resolve("one-can", "CAN TX").name == "PB9"
    with pytest.raises(UnknownPinError):
        one.resolve("one-can", "can sda")  # a role of another family's bus is no CAN signal
