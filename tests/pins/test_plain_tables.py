"""A table whose header leaves it only the chance of a bus table read row by row (a register map, a list of
specifications) is passed over when no row lists signals over pins ("/") or "SDA P0.26, SCL P0.27" (", "): the
names read from a document are those every kind of table is tried for, table by table."""

from __future__ import annotations

import logging
import random

import pytest

from edge_agent.pins import datasheet
from edge_agent.pins.sections import AliasEntry, Problem

_HEADS = ["Register", "Name", "Notes", "Pin", "GPIO", "BCM", "Alias", "Label", "No.", "#", "Position", "ALT0", "F2",
          "SPI", "I2C", "Role", "Default role", "Item", "Connection", "Define", "Constant", "Physical pin", "Phys",
          "Hardware", "TX", "RX", "SDA pin", "SCL", "UART", "Bus", "Signals", "Value", "Function", "Use", "Arduino",
          "Port", "Description", "Timer", "Alternate", "Address"]
_CELLS = [
    "PA5", "PB8 / PB9", "GPIO17", "17", "SDA P0.26, SCL P0.27", "I2C1 SCL / SDA", "LED1 / Green", "D13", "A0 (54)",
    "x", "", "uart0", "P0.06", "CS = Arduino D10 (P1.12)", "ADC1 IN1", "fisazo telozo", "0x1E", "SALOGA_0",
    "LD2 on PA5", "25", "B1 USER", "I2C1 SDA (GPIO2)", "Timer1 A (OC1A)", "3", "PICO_DEFAULT_LED_PIN", "J8-27",
]


def _every_table(lines: list[str], source: str, tag: str) -> tuple[list[AliasEntry], list[Problem]]:
    """The names of every table, each tried for every kind of table (no header passed over)."""
    entries: list[AliasEntry] = []
    problems: list[Problem] = []
    for head_at, heading, row_at in datasheet._tables(lines, []):
        datasheet._parse_table(lines, head_at, heading, row_at, source, tag, entries, problems)
    return entries, problems


@pytest.mark.parametrize("seed", range(3))
def test_passing_over_plain_tables_reads_the_names_every_table_gives(seed: int, caplog: pytest.LogCaptureFixture
                                                                     ) -> None:
    rng = random.Random(seed)
    passed = named = 0
    with caplog.at_level(logging.ERROR):
        for _ in range(3000):
            width = rng.randint(1, 5)
            header = "| " + " | ".join(rng.choice(_HEADS) for _ in range(width)) + " |"
            rows = ["| " + " | ".join(rng.choice(_CELLS) for _ in range(width)) + " |"
                    for _ in range(rng.randint(0, 5))]
            heading = rng.choice(["## Header J1", "## Stuff", "## CN7", "## Register map"])
            lines = [heading, "", header, "|" + "---|" * width, *rows, ""]
            entries: list[AliasEntry] = []
            problems: list[Problem] = []
            datasheet._parse_tables(lines, [], "part.md", "part", entries, problems)
            assert (entries, problems) == _every_table(lines, "part.md", "part"), lines
            plain = datasheet._plain_header(header)
            passed += plain and not any("/" in r or ", " in r for r in rows)
            named += plain and bool(entries)
    assert passed > 300  # many tables were passed over ...
    assert named > 10  # ... and tables under such headers whose rows list signals still gave names


def test_a_register_map_is_plain_and_a_pin_table_is_not() -> None:
    assert datasheet._plain_header("| Register | Name | Notes |")
    assert datasheet._plain_header("| Item | Value |")
    assert not datasheet._plain_header("| Pin | Name |")  # a (name, pin) table
    assert not datasheet._plain_header("| No. | Name | Functions |")  # a connector's positions
    assert not datasheet._plain_header("| GPIO | ALT0 | ALT3 |")  # alternate functions
    assert not datasheet._plain_header("| UART | TXD | RXD |")  # a column per signal
    assert not datasheet._plain_header("| Define | Value |")  # constants
