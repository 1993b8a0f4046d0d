"""A header map's WiringPi column names each row's pin by the wiringPi library's number (WPI8), also typed with the
library's name ("wiringpi 8")."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import UnknownPinError
from edge_agent.pins.spellings import alternatives
from edge_agent.rag import pin_index_for

HEADER = """# Pi header - notes

## Header map

Phys | Name        | BCM    | WiringPi | Default role
---- | ----------- | ------ | -------- | ------------
3    | I2C1 SDA    | GPIO2  | 8        | I2C data
8    | UART TXD    | GPIO14 | 15       | serial TX
11   | GPIO17      | GPIO17 | 0        | free
39   | Ground      | -      | -        | GND
"""


def test_each_row_answers_to_its_wiringpi_number(tmp_path: Path) -> None:
    (tmp_path / "pi-header.md").write_text(HEADER)
    index = pin_index_for(tmp_path)
    assert index.resolve("pi-header", "WPI8").name == "GPIO2"
    assert index.resolve("pi-header", "wpi 15").name == "GPIO14"
    assert index.resolve("pi-header", "wiringPi pin 0").name == "GPIO17"
    with pytest.raises(UnknownPinError):
        index.resolve("pi-header", "WPI30")  # a number no row gives


def test_the_library_name_is_another_spelling_of_its_numbers() -> None:
    assert "WPI8" in alternatives("wiringpi 8") and "WPI0" in alternatives("wiring pi 0")
    assert not any(a.startswith("WPI") for a in alternatives("pin 8"))


def test_the_shared_header_file_answers_every_wiringpi_number(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("rpi-gpio", "WPI21").name == "GPIO5"
    assert index.resolve("rpi-gpio", "WPI31").name == "GPIO1"
    assert index.resolve("rpi-4b", "wiringpi 8").name == "GPIO2"
