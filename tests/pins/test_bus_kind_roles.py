"""A bus role named by its bus kind without a number ('I2C SDA', 'SPI MISO', the Arduino core's PIN_WIRE_SDA)
is the role of the board's one bus of that kind, and an error naming the candidates when it has several."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, UnknownPinError
from edge_agent.pins.index import bus_role
from edge_agent.rag import pin_index_for


def test_bus_role_reads_the_kind_and_the_role() -> None:
    assert bus_role("I2C SDA") == ("i2c", "sda")
    assert bus_role("PIN_WIRE_SDA") == ("i2c", "sda")
    assert bus_role("spi_miso") == ("spi", "miso")
    assert bus_role("Serial TX") == ("uart", "tx")
    assert bus_role("I2C1 SDA") is None  # a numbered bus is its own name
    assert bus_role("SPI SDA") is None  # SDA is no SPI role
    assert bus_role("GPIO17") is None


def test_a_board_file_with_one_bus_of_the_kind(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("arduino-uno", "I2C SDA").name == "PC4"
    assert index.resolve("arduino-uno", "PIN_SPI_MISO").name == "PB4"
    assert index.resolve("arduino-uno", "UART TX").name == "PD1"


def test_several_buses_of_the_kind_are_an_error_not_a_pick(shared_corpus: Path) -> None:
    with pytest.raises(AmbiguousPinError) as err:
        pin_index_for(shared_corpus).resolve("rpi-4b", "I2C SDA")  # i2c0 (the HAT EEPROM's) and i2c1
    assert {"GPIO0", "GPIO2"} <= set(err.value.candidates)  # and the overlay buses i2c3-i2c6 the notes list


def test_a_further_bus_in_the_board_notes_makes_the_kind_ambiguous(shared_corpus: Path, tmp_path: Path) -> None:
    # The board file routes only I2C1 (the Arduino header's D14/D15); the L476 notes add I2C3 on A4/A5.
    assert pin_index_for(tmp_path).resolve("nucleo-l476rg", "I2C SDA").name == "PB9"
    with pytest.raises(AmbiguousPinError) as err:
        pin_index_for(shared_corpus).resolve("nucleo-l476rg", "I2C SDA")
    assert set(err.value.candidates) == {"PB9", "PC1"}
    assert pin_index_for(shared_corpus).resolve("nucleo-l476rg", "I2C1 SDA").name == "PB9"
    assert pin_index_for(shared_corpus).resolve("nucleo-l476rg", "I2C3 SDA").name == "PC1"


def test_a_datasheet_only_board_uses_its_one_role_name(tmp_path: Path) -> None:
    (tmp_path / "probe-board.md").write_text("# Probe board\n\n## Pin Aliases\n\nSDA: PB7\nSCL: PB6\n")
    index = pin_index_for(tmp_path)
    assert index.resolve("probe-board", "I2C SDA").name == "PB7"
    assert index.resolve("probe-board", "PIN_WIRE_SCL").name == "PB6"
    with pytest.raises(UnknownPinError):
        index.resolve("probe-board", "SPI MISO")  # no MISO written: unknown, never a guess
