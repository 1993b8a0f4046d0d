"""A datasheet tag several board files share (rpi-gpio.txt: the 40-pin header of every Pi) resolves
from its own tables, says which boards it holds for, and no error contradicts the list of boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.errors import PinError, UnknownBoardError
from edge_agent.rag import pin_index_for


def test_a_shared_tag_resolves_from_its_own_header_map(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    pin = index.resolve("rpi-gpio", "GPIO17")
    assert (pin.board, pin.name, pin.headers) == ("rpi-gpio", "GPIO17", ("J8-11",))
    assert index.applies_to("rpi-gpio") == ["rpi-4b", "rpi-5", "rpi-zero-2w"]
    assert index.resolve("rpi-gpio", "WPI0").name == "GPIO17"  # a name only its own table gives
    assert index.resolve("rpi-gpio", "pin 11").name == "GPIO17"  # a name every Pi's board file agrees on
    assert index.resolve("rpi-gpio", "I2C1 SDA").headers == ("J8-3",)


def test_a_pin_only_some_sharing_boards_have_is_an_error_naming_them(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    with pytest.raises(PinError, match="rpi-4b") as err:
        index.resolve("rpi-gpio", "GPIO42")  # the Pi 4's activity LED line, not on the header
    assert "--board rpi-4b" in str(err.value)


def test_every_name_an_error_lists_as_a_known_board_is_accepted(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    with pytest.raises(UnknownBoardError) as err:
        index.resolve("no-such-board", "GPIO17")
    assert "rpi-gpio" in err.value.known
    for board in err.value.known:
        index.board(board)  # never "unknown board" for a board the error just listed
        index.applies_to(board)


def test_pins_resolve_on_a_shared_tag_prints_the_pin_and_its_boards(
        shared_corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pins", "resolve", "GPIO17", "--board", "rpi-gpio", "--datasheets", str(shared_corpus)]) == 0
    out = capsys.readouterr().out
    assert "J8-11" in out and "rpi-4b, rpi-5, rpi-zero-2w" in out
    assert main(["pins", "which", "pin 11", "--board", "rpi-gpio", "--datasheets", str(shared_corpus)]) == 0
    assert "GPIO17" in capsys.readouterr().out
