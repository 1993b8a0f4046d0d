"""Other names a board's prose gives a chip pin: an LED's colour ("The green ACT LED is BCM GPIO29"), a list item's
bracketed other name ("PCM FS (frame sync / LRCLK): GPIO19") and a bracketed slash list after pins ("P0.00/P0.01 are
the crystal (XL1/XL2)"). An LED no pin drives, a pin the board lacks, a bus role and a bracket of several names give
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import UnknownPinError
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins.prose_names import coloured_leds, prose_names
from edge_agent.pins.ranges import pin_ranges
from edge_agent.rag import pin_index_for

BOARD = """# Tiny board - notes

## Pin Aliases

sda: GPIO2
act_led: GPIO29

## LEDs

The green ACT LED is BCM GPIO29 (not on the header). The red PWR LED is driven by the power
chip. The blue LED is GPIO77, which this board does not have.
"""


def test_the_colour_and_the_led_s_own_name_name_its_pin() -> None:
    text = ("The green ACT LED is BCM GPIO29.\nthe green user LED is GP25, the red PWR LED is driven by the expander.\n"
            "The amber status LED sits on PA5; a green LED is nice.\n")
    assert list(coloured_leds(text)) == [(1, "green LED", "GPIO29"), (1, "green ACT LED", "GPIO29"),
                                         (2, "green LED", "GP25"), (2, "green user LED", "GP25"),
                                         (3, "amber LED", "PA5"), (3, "amber status LED", "PA5")]
    assert list(coloured_leds("The green LED blinks.")) == []


def test_a_board_answers_its_led_by_colour_only_where_a_pin_drives_it(tmp_path: Path) -> None:
    (tmp_path / "tiny-board.md").write_text(BOARD)
    index = pin_index_for(tmp_path)
    assert index.resolve("tiny-board", "green led").name == "GPIO29"
    assert index.resolve("tiny-board", "Green ACT LED").name == "GPIO29"
    for name in ("red led", "red pwr led", "blue led"):
        with pytest.raises(UnknownPinError):
            index.resolve("tiny-board", name)


def test_the_bundled_pi_boards_answer_their_green_led() -> None:
    index = pin_index_for(bundled_datasheets_dir())
    assert index.resolve("rpi-zero-2w", "green led").name == "GPIO29"
    assert index.resolve("rpi-4b", "green act led").name == "GPIO42"
    assert index.resolve("rpi-pico", "green user led").name == "GP25"


def test_a_bracketed_other_name_names_the_pin_after_it() -> None:
    text = ("- PCM FS (frame sync / LRCLK): GPIO19, pin 35\n- PCM CLK (bit clock): GPIO18\n"
            "- SPI0 (CE0, CE1): GPIO8\n- UART (TX): GPIO14\n- Crystal (XIN): GPIO20/GPIO21\n"
            "P0.00/P0.01 are the 32.768 kHz crystal (XL1/XL2), P0.09/P0.10 are the NFC antenna.\n"
            "GPIO14/GPIO15 are the UART pins (TX/RX). PA0/PA1 (A0/A1/A2) differ in length.\n")
    assert list(prose_names(text)) == [(1, "LRCLK", "GPIO19", "prose")]
    # the bracketed list after a slash list of pins is read with the other slash lists
    assert [e for e in pin_ranges(text) if e[1].startswith("XL") or e[1] in ("TX", "RX", "A0")] == [
        (6, "XL1", "P0.00", "prose"), (6, "XL2", "P0.01", "prose")]


def test_the_shared_corpus_answers_names_written_only_in_brackets(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("rpi-gpio", "lrclk").name == "GPIO19"
    assert index.resolve("nrf52840dk", "xl1").name == "P0.00"
    assert index.resolve("nrf52840dk", "XL2").name == "P0.01"
    assert index.check() == []


def test_a_library_object_placed_on_its_peripheral_s_pins_names_each_role() -> None:
    text = ("`Serial` is USART2 on PA2 (TX) /\nPA3 (RX), connected to the ST-LINK.\n"
            "`Wire` is I2C1 on PB9 (SDA) / PB8 (SCL).\n`led` is on PA5 (LED) / PA6 (x).\n")
    assert [(n, p) for _, n, p, _ in prose_names(text)] == [("Serial TX", "PA2"), ("Serial RX", "PA3"),
                                                            ("Wire SDA", "PB9"), ("Wire SCL", "PB8")]


def test_the_nucleo_s_arduino_serial_is_its_st_link_usart(shared_corpus: Path) -> None:
    # without the sentence, "Serial TX" is either USART the board routes; the Arduino core's Serial is USART2
    index = pin_index_for(shared_corpus)
    assert index.resolve("nucleo-f401re", "Serial TX").name == "PA2"
    assert index.resolve("nucleo-f401re", "serial_rx").name == "PA3"
