"""A name nothing answers to as written is read in the other spellings of the same signal: the role's other word
(TX/TXD, SCK/SCLK, CS/SS/NSS), the role before its bus number (TXD0, SDA1, U2TXD), the Arduino core's PIN_ prefix,
the silkscreen's PWM tilde and slash labels, and "pin 13" on a board without a physical header. Every spelling that
resolves must give the same pin; otherwise the lookup is an error listing them, never a pick."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, UnknownPinError
from edge_agent.pins.spellings import alternatives
from edge_agent.rag import pin_index_for

_BUSES = """# Probe board

## Serial ports

| UART | TXD | RXD |
| --- | --- | --- |
| uart0 | PB6 | PB7 |
| uart2 | PA2 | PA3 |

## Buses

| Bus | Pins |
| --- | --- |
| i2c1 | SDA PB9, SCL PB8 |
| spi0 | SCLK PA5, MOSI PA7, MISO PA6, NSS PA4 |
| spi1 | SCLK PB13, MOSI PB15, MISO PB14, NSS PB12 |
"""


def _index(tmp_path: Path, files: dict[str, str]):  # type: ignore[no-untyped-def]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return pin_index_for(tmp_path)


def test_the_spellings_of_a_name() -> None:
    assert alternatives("UART2 TX") == ["UART2 TXD", "USART2 TX", "USART2 TXD"]
    assert alternatives("spi0_sclk") == ["spi0_clk", "spi0_sck"]
    assert "I2C1_SDA" in alternatives("SDA1")
    assert "UART0_TXD" in alternatives("TXD0")
    assert "UART2_TXD" in alternatives("U2TXD")
    assert alternatives("PIN_A0") == ["A0"]
    assert alternatives("~3") == ["3"]
    assert alternatives("GPIO17") == []  # nothing to spell otherwise
    assert alternatives("LED_BUILTIN") == []


def test_a_role_in_its_other_word(tmp_path: Path) -> None:
    index = _index(tmp_path, {"probe-board.md": _BUSES})
    assert index.resolve("probe-board", "UART2 TX").name == "PA2"  # the table heads the column TXD
    assert index.resolve("probe-board", "uart0_rx").name == "PB7"
    assert index.resolve("probe-board", "SPI0 SCK").name == "PA5"  # the table writes SCLK
    assert index.resolve("probe-board", "spi1 cs").name == "PB12"  # ... and NSS


def test_a_role_before_its_bus_number(tmp_path: Path) -> None:
    index = _index(tmp_path, {"probe-board.md": _BUSES})
    assert index.resolve("probe-board", "TXD2").name == "PA2"
    assert index.resolve("probe-board", "SDA1").name == "PB9"
    assert index.resolve("probe-board", "U0RXD").name == "PB7"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-board", "SDA3")  # no I2C3 written: unknown, not a guess


def test_a_role_by_its_bus_kind_or_alone_lists_every_bus_that_has_it(tmp_path: Path) -> None:
    index = _index(tmp_path, {"probe-board.md": _BUSES})
    assert index.resolve("probe-board", "I2C SCL").name == "PB8"  # one I2C bus written
    assert index.resolve("probe-board", "SDA").name == "PB9"
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("probe-board", "SPI MOSI")  # spi0 and spi1
    assert err.value.candidates == ["PA7", "PB15"]
    assert err.value.choices == [("SPI0 MOSI", "PA7"), ("SPI1 MOSI", "PB15")]  # each bus named, to type instead
    with pytest.raises(AmbiguousPinError):
        index.resolve("probe-board", "TX")


def test_a_board_files_one_bus_answers_a_role_written_alone(tmp_path: Path) -> None:
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    assert index.resolve("rpi-pico", "SDA").name == "GP4"  # its one I2C bus in the board file
    assert index.resolve("rpi-pico", "MOSI").name == "GP19"
    assert index.resolve("arduino-uno", "SPI SS").name == "PB2"  # the board file calls it cs
    assert index.resolve("arduino-uno", "PIN_SPI_SS").name == "PB2"
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("nucleo-f401re", "TX")  # usart1 and usart2
    assert set(err.value.candidates) == {"PA2", "PA9"}
    assert err.value.choices == [("USART2 TX", "PA2"), ("USART1 TX", "PA9")]


def test_arduino_core_constants_and_silkscreen_marks(tmp_path: Path) -> None:
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    assert index.resolve("arduino-uno", "PIN_A0").name == "PC0"
    assert index.resolve("arduino-uno", "~3").name == "PD3"  # the PWM tilde printed beside 3
    assert index.resolve("arduino-uno", "~D11").name == "PB3"
    assert index.resolve("arduino-uno", "D13/SCK").name == "PB5"  # two names of one pin
    assert index.resolve("arduino-uno", "A4/SDA").name == "PC4"
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("arduino-uno", "D0/D1")  # two pins: an error naming both
    assert err.value.candidates == ["PD0", "PD1"]
    assert err.value.choices == [("D0", "PD0"), ("D1", "PD1")]
    with pytest.raises(UnknownPinError):
        index.resolve("arduino-uno", "D13/XYZ")
    # SCK alone is two pins on a Nucleo (spi1, spi2); printed beside D13 it is the one D13 is
    assert index.resolve("nucleo-f401re", "D13/SCK").name == "PA5"
    with pytest.raises(UnknownPinError):
        index.resolve("nucleo-f401re", "D12/SCK")  # D12 is PA6, which no SCK is


def test_pin_n_is_the_boards_number_without_a_physical_header(tmp_path: Path) -> None:
    hat = ("# Probe HAT\n\n## Header usage\n\n| Physical pin | BCM | Signal |\n| --- | --- | --- |\n"
           "| 16 | GPIO23 | data (DAT) |\n| 18 | GPIO24 | clock (CLK) |\n| 33 | GPIO13 | relay (RELAY) |\n")
    mega = "# Probe Mega\n\n## Pin Aliases\n\nD13: PB7\nD12: PB6\nD11: PB5\n"
    index = _index(tmp_path, {"probe-hat.md": hat, "probe-mega.md": mega})
    assert index.resolve("arduino-uno", "pin 13").name == "PB5"  # Arduino pin 13
    assert index.resolve("esp32-devkitc", "digital pin 2").name == "GPIO2"
    with pytest.raises(AmbiguousPinError):
        index.resolve("esp32-devkitc", "pin 2")  # GPIO2, or place 2 of header J3 (GPIO23): see test_pin_n_numberings
    assert index.resolve("probe-mega", "pin 13").name == "PB7"
    assert index.resolve("rpi-4b", "pin 13").name == "GPIO27"  # a header position where the board has a header
    assert index.resolve("probe-hat", "pin 16").name == "GPIO23"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-hat", "pin 13")  # a place on the 40-pin header the HAT does not use, never GPIO13
    assert index.resolve("probe-hat", "GPIO13").name == "GPIO13"


def test_digital_n_is_an_arduino_number_and_never_a_header_position(tmp_path: Path) -> None:
    mega = "# Probe Mega\n\n## Pin Aliases\n\nD13: PB7\nD12: PB6\nD11: PB5\n"
    index = _index(tmp_path, {"probe-mega.md": mega})
    assert index.resolve("arduino-uno", "digital 13").name == "PB5"
    assert index.resolve("probe-mega", "Digital13").name == "PB7"  # a board known from its datasheet alone
    for board in ("rpi-4b", "rpi-pico"):  # numbered by header place or GPIO, not by Arduino's digital numbers
        with pytest.raises(UnknownPinError):
            index.resolve(board, "digital 13")


def test_a_supply_or_ground_position_is_said_to_be_one(tmp_path: Path) -> None:
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    for board, name, rail in (("rpi-4b", "J8-2", "5V"), ("rpi-4b", "pin 6", "GND"), ("rpi-pico", "pin 3", "GND"),
                              ("esp32-devkitc", "J2-1", "3V3")):
        with pytest.raises(UnknownPinError) as err:
            index.resolve(board, name)
        assert err.value.power == rail and rail in str(err.value) and "supply or ground" in str(err.value)
    with pytest.raises(UnknownPinError) as err:
        index.resolve("rpi-4b", "J8-99")  # no such position: unknown, with the closest names
    assert err.value.power is None and err.value.suggestions


def test_a_generic_clock_or_select_word_alone_is_no_bus_role(tmp_path: Path) -> None:
    # The DevKitC prints CLK beside GPIO6, the module's flash clock: read as the SPI bus's SCK it would be GPIO18.
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    for generic in ("CLK", "CS", "csn"):
        with pytest.raises(UnknownPinError):
            index.resolve("esp32-devkitc", generic)
    assert index.resolve("esp32-devkitc", "SPI3 CLK").name == "GPIO18"  # with its bus named it is one pin
    assert index.resolve("rpi-pico", "MOSI").name == "GP19"  # a role that names only a bus signal still reads alone


def test_the_header_written_before_a_pin_name(tmp_path: Path) -> None:
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    assert index.resolve("nucleo-f401re", "Arduino D13").name == "PA5"  # the Arduino header's D13
    assert index.resolve("arduino-uno", "arduino_A0").name == "PC0"
    assert index.resolve("rpi-4b", "J8 pin 11").name == "GPIO17"  # position 11 of J8
    assert index.resolve("nucleo-f401re", "CN10 pin 11").name == "PA5"
    with pytest.raises(UnknownPinError):
        index.resolve("rpi-4b", "Arduino D13")  # a Pi has no Arduino header: unknown, never GPIO13
    with pytest.raises(UnknownPinError):
        index.resolve("rpi-4b", "J9 pin 11")  # no such connector


def test_the_user_led_in_words_is_the_arduino_cores_led_builtin(tmp_path: Path) -> None:
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    assert index.resolve("arduino-uno", "User LED").name == "PB5"  # LED_BUILTIN in the board file
    assert index.resolve("nucleo-f401re", "built-in LED").name == "PA5"
    assert index.resolve("rpi-pico", "on-board led").name == "GP25"
    assert index.resolve("arduino-uno", "LED").name == "PB5"  # the word alone: the board's one user LED
    assert index.resolve("nucleo-f401re", "led").name == "PA5"
    for board in ("rpi-4b", "esp32-devkitc"):  # no LED_BUILTIN: the words name no pin
        for words in ("user LED", "LED"):
            with pytest.raises(UnknownPinError):
                index.resolve(board, words)


def test_dotted_ports_physical_pins_and_zero_padded_positions(tmp_path: Path) -> None:
    index = _index(tmp_path, {"notes.md": "# Notes\n"})
    assert index.resolve("nucleo-f401re", "PA.5").name == "PA5"  # older ST documents' spelling
    assert index.resolve("nucleo-f401re", "PC.13").name == "PC13"
    assert index.resolve("rpi-4b", "physical pin 11").name == "GPIO17"
    assert index.resolve("rpi-4b", "header pin 11").name == "GPIO17"
    assert index.resolve("rpi-4b", "board pin 11").name == "GPIO17"  # RPi.GPIO's BOARD numbering
    assert index.resolve("rpi-4b", "J8-07").name == "GPIO4"
    assert index.resolve("nucleo-f401re", "CN10-011").name == "PA5"
    with pytest.raises(UnknownPinError):
        index.resolve("arduino-uno", "physical pin 13")  # no physical header numbering: not D13, not the DIP's pin
    with pytest.raises(UnknownPinError):
        index.resolve("arduino-uno", "board pin 13")
    with pytest.raises(UnknownPinError):
        index.resolve("nucleo-f401re", "PA.16")


def test_user_led_in_words_is_a_devicetrees_led0_only_where_it_is_the_one_user_led(tmp_path: Path) -> None:
    one = "# Probe DK\n\n## Pin Aliases\n\nled0: PB3\nsw0: PC13\n"
    four = "# Probe Quad\n\n## Pin Aliases\n\nled0: P0.13\nled1: P0.14\nled2: P0.15\nled3: P0.16\n"
    apart = "# Probe Apart\n\n## Pin Aliases\n\nLED_BUILTIN: PB5\nled0: PB3\n"
    index = _index(tmp_path, {"probe-dk.md": one, "probe-quad.md": four, "probe-apart.md": apart})
    assert index.resolve("probe-dk", "user LED").name == "PB3"
    assert index.resolve("probe-dk", "on-board LED").name == "PB3"
    assert index.resolve("probe-dk", "LED").name == "PB3"
    for words in ("user LED", "LED"):
        with pytest.raises(UnknownPinError):
            index.resolve("probe-quad", words)  # four user LEDs: no single one is "the" user LED
    with pytest.raises(AmbiguousPinError):
        index.resolve("probe-apart", "user LED")  # the Arduino core's LED and the devicetree's first LED differ
    assert index.resolve("nucleo-f401re", "user LED").name == "PA5"  # LED_BUILTIN and led0 agree


def test_a_strips_data_line_written_out_or_as_printed(tmp_path: Path) -> None:
    strip = "# Probe Strip\n\n## Pin Aliases\n\nDAT: GPIO23\nCLK: GPIO24\n"
    matrix = "# Probe Matrix\n\n## Pin Aliases\n\nDATA: GPIO18\n"
    index = _index(tmp_path, {"probe-strip.md": strip, "probe-matrix.md": matrix})
    assert index.resolve("probe-strip", "data").name == "GPIO23"
    assert index.resolve("probe-matrix", "DAT").name == "GPIO18"
    with pytest.raises(UnknownPinError):
        index.resolve("nucleo-f401re", "data")  # no pin printed DAT or DATA
    assert index.resolve("probe-strip", "clock").name == "GPIO24"


def test_a_channel_in_words_and_a_nucleos_blue_button(tmp_path: Path) -> None:
    adc = ("# Probe ADC\n\n## Pin Aliases\n\nADC1_CH3: GPIO39\nADC1_CH0: GPIO36\nUSER_BTN: PC13\n"
           "PWM0_CHAN3: GPIO19\n")
    dk = "# Probe Keys\n\n## Pin Aliases\n\nButton 1: P0.11\nButton 2: P0.12\nsw0: P0.11\nsw1: P0.12\n"
    index = _index(tmp_path, {"probe-adc.md": adc, "probe-keys.md": dk})
    assert index.resolve("probe-adc", "ADC1 channel 3").name == "GPIO39"
    assert index.resolve("probe-adc", "pwm0 channel 3").name == "GPIO19"  # written CHAN3
    assert index.resolve("probe-adc", "blue button").name == "PC13"
    assert index.resolve("probe-adc", "button").name == "PC13"  # the board's one user button
    with pytest.raises(UnknownPinError):
        index.resolve("probe-adc", "ADC1 channel 5")
    with pytest.raises(UnknownPinError):
        index.resolve("probe-keys", "button")  # two user buttons: no single one is "the" button


def test_analog_n_a_button_abbreviated_and_1_wire_in_words(tmp_path: Path) -> None:
    assert alternatives("analog 3") == ["A3"] and alternatives("Analogue input #3") == ["A3"]
    assert alternatives("user button") == ["user BTN"] and alternatives("BTN2") == ["Button2"]
    assert alternatives("1-wire") == ["one_wire"] and alternatives("onewire") == ["1-Wire"]
    assert alternatives("buttons") == [] and alternatives("analog") == []
    kit = ("# Probe kit\n\n## Pin Aliases\n\nA0: PC0\nA3: PB0\nUSER_BTN: PC13\nButton 2: P0.12\none_wire: PB4\n"
           "D13: PA5\n")
    index = _index(tmp_path, {"probe-kit.md": kit})
    assert index.resolve("probe-kit", "analog 3").name == "PB0"
    assert index.resolve("probe-kit", "analog pin 0").name == "PC0"
    assert index.resolve("probe-kit", "user button").name == "PC13"
    assert index.resolve("probe-kit", "BTN2").name == "P0.12"
    assert index.resolve("probe-kit", "1-wire").name == "PB4"
    with pytest.raises(UnknownPinError):  # no A6 on the board: the words find nothing, never a guess
        index.resolve("probe-kit", "analog 6")
    with pytest.raises(UnknownPinError):  # a Pi has no Arduino analog pins
        index.resolve("rpi-4b", "analog 0")


def test_an_unknown_name_in_words_is_offered_the_names_its_other_spellings_are_near(tmp_path: Path) -> None:
    """"analog 6" on a board with A0-A5 is A6, which it lacks: the error offers its analog pins, not a one-letter
    name that happens to sit inside the words."""
    kit = "# Probe kit\n\n## Pin Aliases\n\nA0: PC0\nA1: PC1\nA5: PC5\nL: PB5\nuser_led: PB5\n"
    index = _index(tmp_path, {"probe-kit.md": kit})
    with pytest.raises(UnknownPinError) as got:
        index.resolve("probe-kit", "analog 6")
    assert got.value.suggestions and all(s.startswith("A") for s in got.value.suggestions)


def test_an_led_named_by_its_colour_with_the_word_led_or_light(tmp_path: Path) -> None:
    assert alternatives("amber LED") == ["amber", "LED_AMBER", "amber_led"]
    assert alternatives("red light") == ["red", "LED_RED", "red_led"]
    assert alternatives("power LED") == [] and alternatives("status LED") == []  # not a colour: no guess
    lights = "# Probe lights\n\n## Pin Aliases\n\nRed: GPIO24\nAmber: GPIO23\nGreen: GPIO22\npower: GPIO5\n"
    core = "# Probe core\n\n## Pin Aliases\n\nLED_GREEN: PA5\nLED_BUILTIN: PA5\n"
    tree = "# Probe tree\n\n## Pin Aliases\n\ngreen_led: P0.13\nred_led: P0.14\n"
    index = _index(tmp_path, {"probe-lights.md": lights, "probe-core.md": core, "probe-tree.md": tree})
    assert index.resolve("probe-lights", "amber LED").name == "GPIO23"
    assert index.resolve("probe-lights", "red light").name == "GPIO24"
    assert index.resolve("probe-core", "green LED").name == "PA5"  # the Arduino core's LED_GREEN
    assert index.resolve("probe-tree", "red led").name == "P0.14"  # a devicetree's red_led
    with pytest.raises(UnknownPinError):  # a green LED only: no red one to give
        index.resolve("probe-core", "red LED")
    with pytest.raises(UnknownPinError):  # "power" names a pin here, but a power LED is not it
        index.resolve("probe-lights", "power LED")


def test_a_uart_by_number_is_the_usart_of_that_number_and_back(tmp_path: Path) -> None:
    # ST numbers its serial peripherals USART1, USART2 and UART4; an engineer says "UART2" for USART2 either way.
    assert alternatives("uart2 tx") == ["uart2 txd", "usart2 tx", "usart2 txd"]
    assert alternatives("USART4") == ["UART4"] and alternatives("Uart2") == ["Usart2"]
    assert alternatives("uartx tx") == ["uartx txd"]  # no number: no peripheral to name
    st = "# Probe ST\n\n## Pin Aliases\n\nUSART2_TX: PA2\nUSART2_RX: PA3\nUART4_TX: PA0\n"
    pi = "# Probe Pi\n\n## Serial\n\n| UART | TXD | RXD |\n| --- | --- | --- |\n| uart2 | GPIO0 | GPIO1 |\n"
    index = _index(tmp_path, {"probe-st.md": st, "probe-pi.md": pi})
    assert index.resolve("probe-st", "uart2 tx").name == "PA2"
    assert index.resolve("probe-st", "UART2 RX").name == "PA3"
    assert index.resolve("probe-st", "usart4 tx").name == "PA0"
    assert index.resolve("probe-pi", "usart2 tx").name == "GPIO0"  # its table writes TXD under uart2
    with pytest.raises(UnknownPinError):  # no third one on the board, by either name
        index.resolve("probe-st", "uart3 tx")
