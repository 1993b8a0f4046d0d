"""A part's package pin table under a "Pins" heading: a table that says what each pin does is read as a pin table, not
as a bare list of aliases, and its pin-number column answers "pin 5"."""

from __future__ import annotations

from pathlib import Path

from edge_agent.rag import HardwareRag
from edge_agent.rag.query import holds_place, is_alias_list

PINS = """| Signal | Pin | Use |
| --- | --- | --- |
| GND | 1 | ground |
| SDO | 5 | I2C address select (GND 0x76, VDDIO 0x77) / SPI data out |
| VDDIO | 6 | I/O supply |
"""


def test_a_wide_table_under_a_pins_heading_is_no_alias_list() -> None:
    assert not is_alias_list("Sensor > Pins", PINS)
    assert is_alias_list("Sensor > Pins", "| alias | pin |\n| --- | --- |\n| sda | GPIO2 |\n")
    assert is_alias_list("Board > Pin Aliases", "- led: PA5\n- button: PC13\n")
    assert not is_alias_list("Sensor > Package pins", "Pin 1 is marked by the dot.")


def test_a_place_is_read_from_a_pin_number_column_as_well_as_from_a_rows_first_cell() -> None:
    assert holds_place(PINS, "5") and holds_place(PINS, "6")
    assert not holds_place(PINS, "2")  # no row numbered 2
    assert not holds_place("| Signal | Use |\n| --- | --- |\n| SDO | 5 V logic |\n", "5")  # not a number column
    assert holds_place("| 25 | Ground |\n", "25")  # a header map's row still starts with its place


def test_a_package_pin_question_gets_the_pin_table_row(tmp_path: Path) -> None:
    (tmp_path / "acme-sensor.md").write_text(
        "# ACME sensor\n\nA pressure sensor in an LGA-8 package.\n\n## Package pins\n\nThe LGA-8 package has pin 1"
        " marked by the dot; breakouts bring out VIN, GND, SCL, SDA and SDO.\n\n## Pins\n\n" + PINS)
    rag = HardwareRag.load(tmp_path)
    assert rag.search("acme sensor lga pin 5 function")[0].heading == "ACME sensor > Pins"
