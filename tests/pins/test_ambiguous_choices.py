"""An ambiguous name's error says what to type: each candidate pin with a name that names it alone ("I2C1 SDA" = PB9,
"I2C3 SDA" = PC1), in the error's data (``choices``) and in what the command line, the services and the daemon's
wire say; a candidate with no such name is offered as its pin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.errors import AmbiguousPinError, error_from_wire, error_to_wire
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import PinIndex
from edge_agent.rag import pin_index_for


def _refused(index: PinIndex, board: str, name: str) -> AmbiguousPinError:
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve(board, name)
    return err.value


def _each_choice_is_its_pin(index: PinIndex, board: str, err: AmbiguousPinError) -> None:
    assert {p for _, p in err.choices} == set(err.candidates) == err.pins
    for name, pin in err.choices:
        assert index.resolve(board, name).name == pin, (name, pin)


def test_a_bus_kind_alone_names_each_bus_with_its_pin() -> None:
    index = pin_index_for(bundled_datasheets_dir())
    err = _refused(index, "nucleo-l476rg", "I2C SDA")  # the header's I2C1 and the notes' I2C3
    assert err.candidates == ["PB9", "PC1"]
    assert err.choices == [("I2C1 SDA", "PB9"), ("I2C3 SDA", "PC1")]
    _each_choice_is_its_pin(index, "nucleo-l476rg", err)


@pytest.mark.parametrize(("board", "name", "choices"), [
    ("nrf52840dk", "SPI MOSI", [("SPI0 MOSI", "P0.26"), ("SPI1 MOSI", "P0.30"), ("SPI3 MOSI", "P1.13")]),
    ("nrf52840dk", "SDA", [("I2C0 SDA", "P0.26"), ("I2C1 SDA", "P0.30")]),
    ("nrf52840dk", "13", [("D13", "P1.15"), ("P0.13", "P0.13")]),  # the Arduino number or port 0's pin 13
    ("nucleo-f401re", "TX", [("USART2 TX", "PA2"), ("USART1 TX", "PA9")]),
    ("esp32-devkitc", "SPI MOSI", [("SPI2 MOSI", "GPIO13"), ("SPI3 MOSI", "GPIO23")]),
    ("arduino-uno", "D0/D1", [("D0", "PD0"), ("D1", "PD1")]),
])
def test_every_named_ambiguity_lists_names_that_resolve(shared_corpus: Path, board: str, name: str,
                                                        choices: list[tuple[str, str]]) -> None:
    index = pin_index_for(shared_corpus)
    err = _refused(index, board, name)
    assert err.choices == choices
    _each_choice_is_its_pin(index, board, err)


def test_a_candidate_without_a_name_of_its_own_is_offered_as_its_pin(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    err = _refused(index, "rpi-4b", "I2C SDA")
    named = dict((p, n) for n, p in err.choices)
    assert named["GPIO0"] == "I2C0 SDA" and named["GPIO2"] == "I2C1 SDA"  # the board file's buses
    assert named["GPIO22"] == "GPIO22"  # I2C6 SDA is on GPIO0 and GPIO22: that name would be another ambiguity
    _each_choice_is_its_pin(index, "rpi-4b", err)


def test_the_choices_cross_the_wire_and_reach_the_command_line(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(pin_index_for(bundled_datasheets_dir()), "nucleo-l476rg", "I2C SDA")
    back = error_from_wire(json.loads(json.dumps(error_to_wire(err))))
    assert isinstance(back, AmbiguousPinError)
    assert [tuple(c) for c in back.choices] == err.choices and back.pins == {"PB9", "PC1"}
    assert back.message() == err.message()
    assert main(["--state", str(state), "pins", "resolve", "I2C SDA", "--board", "nucleo-l476rg"]) == 1
    said = capsys.readouterr().err
    assert "I2C1 SDA = PB9" in said and "I2C3 SDA = PC1" in said


def test_every_listed_alias_is_its_pin_and_a_name_of_several_pins_is_listed_apart(shared_corpus: Path) -> None:
    for root in (bundled_datasheets_dir(), shared_corpus):
        index = pin_index_for(root)
        for board in index.known_boards():
            for alias, pin in index.aliases_for(board).items():  # what `pins list` and the agent's context show
                assert index.resolve(board, alias).name == pin.name, (board, alias, pin.name)
    index = pin_index_for(bundled_datasheets_dir())
    assert "I2C0" not in index.aliases_for("rpi-gpio")  # the ID EEPROM's bus: GPIO0 and GPIO1
    assert index.names_of_several("rpi-gpio")["I2C0"] == ["GPIO0", "GPIO1"]
    assert index.aliases_for("rpi-gpio")["ID EEPROM SDA"].name == "GPIO0"
