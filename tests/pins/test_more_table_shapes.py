"""Pin names datasheets write outside a (name, pin) table: a name in brackets after a description (``Atmel chip
select (SPI0 CE0)``, ``SS (PIN_SPI_SS)``), a define holding a pin number (``PICO_DEFAULT_LED_PIN | 25``), an item
and what it connects to (``B1 USER | PC13``), a HAT's header position with the pin in brackets after its use
(``3 | I2C1 SDA (GPIO2)``), a bus cell whose note in brackets holds a comma, and a constant set equal to a pin
(``D2 = INT0``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import UnknownPinError
from edge_agent.pins import PinIndex
from edge_agent.rag import pin_index_for


def _index(tmp_path: Path, files: dict[str, str]) -> PinIndex:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return pin_index_for(tmp_path)


def test_a_name_in_brackets_after_a_description_or_another_name(tmp_path: Path) -> None:
    hat = ("# Probe HAT\n\n## GPIO usage\n\n| Physical pin | BCM | Signal |\n| --- | --- | --- |\n"
           "| 24 | GPIO8 | Atmel chip select (SPI0 CE0) |\n| 7 | GPIO4 | illumination enable (output) |\n")
    core = ("# Probe core\n\n## Bus pins\n\n| Constant | Arduino pin | Port pin |\n| --- | --- | --- |\n"
            "| SS (PIN_SPI_SS) | 10 | PB2 |\n| SDA (PIN_WIRE_SDA) | 18 (A4) | PC4 |\n")
    index = _index(tmp_path, {"probe-hat.md": hat, "probe-core.md": core})
    assert index.resolve("probe-hat", "SPI0 CE0").name == "GPIO8"
    assert index.resolve("probe-hat", "spi0_ce0").name == "GPIO8"
    assert index.resolve("probe-core", "PIN_SPI_SS").name == "PB2"
    assert index.resolve("probe-core", "SS").name == "PB2"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-hat", "output")  # a note in words, not a name


def test_a_define_holding_a_pin_number(tmp_path: Path) -> None:
    sdk = ("# Pico notes\n\n## SDK defaults\n\n| Define | Value | Meaning |\n| --- | --- | --- |\n"
           "| PICO_DEFAULT_UART | 0 | stdio UART |\n| PICO_DEFAULT_LED_PIN | 25 | on-board LED |\n"
           "| PICO_DEFAULT_I2C_SDA_PIN | 4 | GP4, edge pin 6 |\n")
    index = _index(tmp_path, {"rpi-pico.md": sdk})
    assert index.resolve("rpi-pico", "PICO_DEFAULT_LED_PIN").name == "GP25"  # the Pico's own numbering
    assert index.resolve("rpi-pico", "pico_default_i2c_sda_pin").name == "GP4"
    with pytest.raises(UnknownPinError):
        index.resolve("rpi-pico", "PICO_DEFAULT_UART")  # a UART instance, not a pin


def test_an_item_and_what_it_connects_to(tmp_path: Path) -> None:
    leds = ("# Probe Nucleo\n\n## LEDs and buttons\n\n| Item | Connection | Notes |\n| --- | --- | --- |\n"
            "| LD1 | ST-LINK | communication LED |\n| LD4 | PA5 | user LED |\n| B1 USER | PC13 | user button |\n"
            "| B2 RESET | NRST | reset |\n")
    index = _index(tmp_path, {"probe-nucleo.md": leds})
    assert index.resolve("probe-nucleo", "B1 USER").name == "PC13"
    assert index.resolve("probe-nucleo", "B1").name == "PC13"  # the designator printed beside the button
    assert index.resolve("probe-nucleo", "LD4").name == "PA5"
    for name in ("LD1", "B2"):
        with pytest.raises(UnknownPinError):
            index.resolve("probe-nucleo", name)  # on the ST-LINK and the reset line: no pin of the MCU


def test_a_hat_header_position_with_the_pin_in_brackets(tmp_path: Path) -> None:
    hat = ("# Probe glow\n\n## Header usage\n\n| Physical pin | Use |\n| --- | --- |\n| 1 | 3.3 V |\n"
           "| 3 | I2C1 SDA (GPIO2) |\n| 5 | I2C1 SCL (GPIO3) |\n")
    index = _index(tmp_path, {"probe-glow.md": hat})
    assert index.resolve("probe-glow", "pin 3").name == "GPIO2"
    assert index.resolve("probe-glow", "I2C1 SCL").name == "GPIO3"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-glow", "pin 1")  # a supply pin


def test_a_bus_cell_whose_note_holds_a_comma(tmp_path: Path) -> None:
    pi = ("# Pi notes\n\n## Extra buses\n\n| Overlay | Pins |\n| --- | --- |\n"
          "| i2c3 | SDA GPIO4, SCL GPIO5 (`dtoverlay=i2c3,pins_4_5`) |\n")
    index = _index(tmp_path, {"probe-pi.md": pi})
    assert index.resolve("probe-pi", "I2C3_SCL").name == "GPIO5"
    assert index.resolve("probe-pi", "i2c3 sda").name == "GPIO4"


def test_a_constant_set_equal_to_a_pin(tmp_path: Path) -> None:
    nano = ("# Probe Nano\n\n| Item | Value |\n| --- | --- |\n| External interrupts | D2 = INT0, D3 = INT1 |\n"
            "| Interrupt 7 | D9 = INT7 |\n\nThe header's D0 = serial RX.\n\n"
            "## Pin Aliases\n\nD2: PD2\nD3: PD3\nD0: PD0\n")
    index = _index(tmp_path, {"probe-nano.md": nano})
    assert index.resolve("probe-nano", "INT0").name == "PD2"
    assert index.resolve("probe-nano", "int1").name == "PD3"
    for name in ("INT7", "serial"):  # D9 is no pin of the board's; "serial" is a word, not a constant
        with pytest.raises(UnknownPinError):
            index.resolve("probe-nano", name)
    # on a board file, through the board's own names: the core's constants in one chain
    (tmp_path / "nucleo-f401re.md").write_text("# F401 core\n\nLED_BUILTIN = LED_USER = D13; USER_KEY = PC13.\n")
    index = pin_index_for(tmp_path)
    assert index.resolve("nucleo-f401re", "LED_USER").name == "PA5"
    assert index.resolve("nucleo-f401re", "USER_KEY").name == "PC13"


def test_a_hat_answers_to_the_header_names_of_the_pins_it_uses(tmp_path: Path) -> None:
    header = "# Pi header\n\n## Pin Aliases\n\nI2C1_SCL: GPIO3\nPCM_CLK: GPIO18\n"
    shim = ("# Probe shim\n\n## Header usage\n\n| Physical pin | BCM | Signal |\n| --- | --- | --- |\n"
            "| 5 | GPIO3 | wake (WAKE) |\n")
    part = "# Probe part\n\n## Pin Aliases\n\nWAKE: GPIO3\n"
    index = _index(tmp_path, {"rpi-gpio.md": header, "probe-shim.md": shim, "probe-part.md": part})
    assert index.resolve("probe-shim", "I2C1 SCL").name == "GPIO3"  # "the wake input is on GPIO3 (I2C1 SCL)"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-shim", "PCM CLK")  # GPIO18 is a header pin the shim does not use
    with pytest.raises(UnknownPinError):
        index.resolve("probe-part", "I2C1 SCL")  # no header positions written: not known to sit on the header


def test_a_signal_on_one_pin_and_two_signals_of_one_peripheral(tmp_path: Path) -> None:
    notes = ("# Probe Nucleo\n\n## Default peripheral mapping\n\n| Peripheral | Pins | Notes |\n| --- | --- | --- |\n"
             "| USART2 TX / RX | PA2 / PA3 | console |\n| ADC1 IN1 | PC0 | |\n| TIM3 CH1 PWM | PB4 | |\n"
             "| ADC1 | PA0 (IN0) | |\n\n## Alternate functions\n\n| GPIO | ALT0 | ALT3 |\n| --- | --- | --- |\n"
             "| 10 | SPI0 MOSI | I2CSL SDA / MOSI |\n| 11 | SPI0 SCLK | I2CSL SCL / SCLK |\n")
    index = _index(tmp_path, {"probe-nucleo.md": notes})
    assert index.resolve("probe-nucleo", "ADC1 IN1").name == "PC0"
    assert index.resolve("probe-nucleo", "TIM3 CH1").name == "PB4"
    assert index.resolve("probe-nucleo", "USART2 RX").name == "PA3"
    assert index.resolve("probe-nucleo", "I2CSL MOSI").name == "GPIO10"
    assert index.resolve("probe-nucleo", "I2CSL SCLK").name == "GPIO11"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-nucleo", "ADC1")  # a peripheral of many pins, not a name of PA0


def test_a_name_and_a_chip_pin_in_brackets_in_prose(tmp_path: Path) -> None:
    notes = ("# Probe board\n\n## Pin Aliases\n\nD13: PA5\nD12: PA6\nD11: PA7\nA2: PA4\n\n## Core\n\n"
             "Digital numbers continue on the morpho header at D16 (PC10), D17 (PC12) and so on. The fan is on "
             "GPIO18 (PWM0); JTAG uses GPIO12 (MTDI). ADC2 (GPIO0, 2, 4, 12-15) is busy while Wi-Fi runs. "
             "Serial is on PA2 (TX) and the DAC on PA4 (A3).\n\n| Pin | Note |\n| --- | --- |\n| PB3 | PB3 (SWO) |\n")
    index = _index(tmp_path, {"probe-board.md": notes})
    assert index.resolve("probe-board", "D16").name == "PC10"
    assert index.resolve("probe-board", "d17").name == "PC12"
    assert index.resolve("probe-board", "PWM0").name == "GPIO18"
    assert index.resolve("probe-board", "MTDI").name == "GPIO12"
    assert index.resolve("probe-board", "A2").name == "PA4"
    for name in ("ADC2", "TX", "A3", "SWO"):  # a channel of many pins, a bus role, an Arduino name, a table's note
        with pytest.raises(UnknownPinError):
            index.resolve("probe-board", name)


def test_a_devicetree_alias_table_says_where_each_alias_goes(tmp_path: Path) -> None:
    dts = ("# Probe Nucleo\n\n## Zephyr devicetree aliases\n\n| Alias | Node | Hardware |\n| --- | --- | --- |\n"
           "| led0 | green_led_2 | LD2 on PA5 |\n| pwm-led0 | green_pwm_led | TIM2 CH1 on PA5 |\n"
           "| sw0 | user_button | B1 on PC13 |\n| watchdog0 | wwdg | window watchdog |\n")
    index = _index(tmp_path, {"probe-nucleo.md": dts})
    assert index.resolve("probe-nucleo", "pwm-led0").name == "PA5"
    assert index.resolve("probe-nucleo", "green_led_2").name == "PA5"
    assert index.resolve("probe-nucleo", "user_button").name == "PC13"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-nucleo", "watchdog0")  # a peripheral, wired to no pin


def test_a_note_giving_an_arduino_rows_pin_number(tmp_path: Path) -> None:
    nano = ("# Probe Nano\n\n## Pin mapping\n\n| Arduino | Port pin | Notes |\n| --- | --- | --- |\n"
            "| D13 | PB5 | SPI SCK |\n| D12 | PB4 | SPI MISO |\n| D11 | PB3 | SPI MOSI |\n"
            "| A4 | PC4 | I2C SDA (pin 18) |\n| A6 | ADC6 | analog input only, pin number 20 |\n")
    hat = ("# Probe HAT\n\n## Header usage\n\n| Signal | BCM | Notes |\n| --- | --- | --- |\n"
           "| LEDS | GPIO4 | on pin 7 of the header |\n")
    index = _index(tmp_path, {"probe-nano.md": nano, "probe-hat.md": hat})
    assert index.resolve("probe-nano", "18").name == "PC4"
    assert index.resolve("probe-nano", "pin 18").name == "PC4"
    assert index.resolve("probe-nano", "20").name == "ADC6"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-hat", "7")  # a header position in a HAT's note, not a pin number of its own
