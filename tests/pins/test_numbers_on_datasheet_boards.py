"""A bare number on a board known only from its datasheets follows the numbering those datasheets use,
and is an error, never a pick, when two numberings give different pins."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, UnknownPinError
from edge_agent.rag import pin_index_for


def test_an_arduino_number_on_a_datasheet_only_arduino_board(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("arduino-mega2560", "13").name == "PB7"  # the Mega's LED_BUILTIN, not the Uno's PB5
    assert index.resolve("arduino-mega2560", 52).name == "PB1"
    assert index.resolve("arduino-nano", "13").name == "PB5"
    assert index.resolve("nucleo-g071rb", "13").name == "PA5"


def test_a_gpio_number_on_a_hat(shared_corpus: Path) -> None:
    assert pin_index_for(shared_corpus).resolve("enviro-plus", "9").name == "GPIO9"


def test_a_number_two_numberings_read_differently_is_ambiguous(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("nrf52840dk", "13")  # Arduino D13 is P1.15; pin 13 of port 0 is LED1
    assert "P1.15" in str(err.value) and "P0.13" in str(err.value)
    assert index.resolve("nrf52840dk", "26").name == "P0.26"  # no D26: only port 0 reads it


def test_a_chips_own_pin_names_are_not_an_arduino_header(tmp_path: Path) -> None:
    (tmp_path / "oled.md").write_text("# OLED\n\n## Pin Aliases\n\nSDA: D1\nSCL: D0\n")
    with pytest.raises(UnknownPinError):
        pin_index_for(tmp_path).resolve("oled", "1")
