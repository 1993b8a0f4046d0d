"""Devicetree names a board's prose links to one of its LEDs or buttons ("`pwm-led0` drives LED1") name that pin;
quoted words that are no devicetree name, negated links and links to what the board does not name give nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import UnknownPinError
from edge_agent.pins.nodes import cell_label, node_links
from edge_agent.rag import pin_index_for

DK = """# Dev kit - notes

## LEDs and buttons

| LED | Pin |
| --- | --- |
| LED1 | P0.13 |
| LED2 | P0.14 |

| Button | Pin |
| --- | --- |
| Button 1 | P0.11 |

| Board label | Pin | Zephyr node |
| --- | --- | --- |
| LED3 | P0.15 | led2 (label "Amber LED 2") |

## Devicetree

The node for the first LED is `green_led_1` (label "User LED1").
`pwm-led0` drives LED1 through PWM0 channel 0 with inverted polarity.
`bootloader-led0` and `mcuboot-led0` also point at LED2, and `mcuboot-button0` at
Button 1. `uart-0` = uart0, `watchdog0` is the wdt0 node. No `led5` alias points at LED2.
`led9` is not wired to LED1. The `button` object is Button 1; `spare-led0` drives LED7.
`uart-0` is on P0.06 and P0.08; `i2c1` is LED2. `debug-led0` is on P0.13 or P0.14. `aux-led0` is on P0.13 and P0.14.
"""


def test_each_linked_name_names_the_pin_of_what_it_is_linked_to(tmp_path: Path) -> None:
    (tmp_path / "dev-kit.md").write_text(DK)
    index = pin_index_for(tmp_path)
    assert index.resolve("dev-kit", "pwm-led0").name == "P0.13"  # "through PWM0" is how, not what
    assert index.resolve("dev-kit", "green_led_1").name == "P0.13"  # from its label
    # a node's label names what its node names, in prose and in a table cell, in any case and spacing
    assert index.resolve("dev-kit", "user led1").name == "P0.13"
    assert index.resolve("dev-kit", "Amber LED 2").name == "P0.15"
    assert index.resolve("dev-kit", "amber_led_2").name == "P0.15"
    assert index.resolve("dev-kit", "bootloader-led0").name == "P0.14"
    assert index.resolve("dev-kit", "mcuboot-led0").name == "P0.14"
    assert index.resolve("dev-kit", "mcuboot-button0").name == "P0.11"  # the second clause, across the line
    # a bus node, a negated link, a name after "no", a library object and a link to no name of the board
    # a peripheral's node and a link to several pins name no pin either
    for name in ("uart-0", "watchdog0", "led9", "led5", "button", "spare-led0", "i2c1", "debug-led0",
                 "aux-led0"):
        with pytest.raises(UnknownPinError):
            index.resolve("dev-kit", name)


def test_only_quoted_devicetree_names_outside_tables_are_read() -> None:
    text = ("| `led0` | is LED1 |\n`Serial` is USART2 on PA2 (TX).\n`sw0` = the BOOT button on GPIO0 (active low).\n"
            "so `led0` is the LED printed LED1 (P0.13) and `sw0` is Button 1 (P0.11).\n")
    assert list(node_links(text)) == [(3, "sw0", "GPIO0"), (4, "led0", "LED1"), (4, "sw0", "Button 1")]


def test_a_label_names_what_its_node_names() -> None:
    text = ('| LED1 | P0.13 | led0 (label "Green LED 0") |\n| LED2 | P0.14 | LED (label "x") |\n'
            'The node is `green_led_1` (label "User  LD4"); `board_led` (label "Status LED") has no number.\n'
            'A sentence can say led0 (label "Not a cell").\n')
    assert list(node_links(text)) == [(3, "green_led_1", "LD4"), (3, "User LD4", "LD4")]  # cells: the table's
    assert cell_label(' led0 (label "Green  LED 0") ') == "Green LED 0"
    assert cell_label('LED (label "x")') is None and cell_label("led0") is None


def test_the_shared_corpus_names_its_devicetree_leds(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("nucleo-g071rb", "green_led_1").name == "PA5"
    assert index.resolve("nucleo-g071rb", "user ld4").name == "PA5"
    assert index.resolve("nrf52840dk", "green led 0").name == "P0.13"
    assert index.resolve("nrf52840dk", "pwm-led0").name == "P0.13"
    assert index.resolve("nrf52840dk", "mcuboot-button0").name == "P0.11"
    assert index.check() == []
