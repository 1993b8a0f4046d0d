"""Pin ranges in a datasheet's prose and cells: every pin of "A0-A15" is a pin of the board, and a range set
equal to another ("D2-D7 = PD2-PD7") maps them pin by pin; tables and alias lines answer first."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from edge_agent.errors import UnknownPinError
from edge_agent.pins.ranges import pin_ranges
from edge_agent.rag import pin_index_for


def _sheet(root: Path, name: str, body: str) -> Path:
    (root / name).write_text(body)
    return root


BIG = """# Big board - notes

| Item | Value |
| --- | --- |
| Analog inputs | 16 (A0-A15) |
| Digital pins | D0-D53 |

Pin-change interrupts work on D50-D53 and A8-A15. D0/D1 = PD0/PD1, D2-D7 = PD2-PD7, D8-D13 are PB0-PB5.
Supply 1.8-3.6 V; addresses 0x40-0x7F; GPIO32-39 are inputs; QSPI IO0-IO3.

## Port mapping

| Arduino | Port |
| --- | --- |
| A0 | PF0 |
| D13 | PB7 |
"""


def test_a_range_names_each_pin_in_it_and_a_mapped_range_maps_pin_by_pin(tmp_path: Path) -> None:
    index = pin_index_for(_sheet(tmp_path, "big-board.md", BIG))
    assert index.resolve("big-board", "A15").name == "A15"
    assert index.resolve("big-board", "A12").name == "A12"
    assert index.resolve("big-board", "D23").name == "D23"
    assert index.resolve("big-board", "D3").name == "PD3"
    assert index.resolve("big-board", "D9").name == "PB1"
    assert index.resolve("big-board", "D1").name == "PD1"  # a slash list set equal to another
    # a table row answers before a range: A0 is PF0, and D13 is the table's PB7, not the prose's PB5
    assert index.resolve("big-board", "A0").name == "PF0"
    assert index.resolve("big-board", "D13").name == "PB7"
    # value ranges, ranges whose end has no prefix, and IO ranges name no pins
    for name in ("GPIO35", "IO2", "D54", "A16"):
        with pytest.raises(UnknownPinError):
            index.resolve("big-board", name)


def test_ranges_are_read_only_where_both_ends_name_pins() -> None:
    got = pin_ranges("x\nA8-A15 and 1.8-3.6 V, 0x40-0x7F, GPIO32-39, D5-D5, D0-D99, P0.00-P0.03\n")
    assert [(n, v, k) for _, n, v, k in got if n.startswith("A")] == [(f"A{i}", f"A{i}", "range")
                                                                       for i in range(8, 16)]
    assert all(line == 2 for line, *_ in got)
    assert [n for _, n, _, _ in got if n.startswith("P")] == ["P0.00", "P0.01", "P0.02", "P0.03"]
    assert not [n for _, n, _, _ in got if n.startswith(("D", "GPIO"))]


def test_a_range_on_a_board_with_a_board_file_adds_nothing_false_and_contradicts_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The Uno's notes say D0-D13, A0-A5 and A0-A5 = PC0-PC5: all agree with the board file."""
    root = _sheet(tmp_path, "arduino-uno.md", "# Uno\n\nDigital pins D0-D13 and A0-A5 = PC0-PC5; the headers "
                  "D14-D19 double as A0-A5.\n")
    with caplog.at_level(logging.WARNING):
        index = pin_index_for(root)
        assert index.check(["arduino-uno"]) == []
        assert index.resolve("arduino-uno", "A3").name == "PC3"
    assert not [r for r in caplog.records if "arduino-uno.md" in r.getMessage()]


def test_pins_check_stays_clean_and_the_mega_range_resolves(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.check() == []
    assert index.resolve("arduino-mega2560", "A15").name == "A15"
    assert index.resolve("arduino-nano", "D3").name == "PD3"
    assert index.resolve("arduino-nano", "D0").name == "PD0"  # "D0/D1 = PD0/PD1 (Serial)"
    assert index.resolve("arduino-mega2560", "A8").name == "PK0"  # the table's row, not the range


NUMBERED = """# Numbered board - notes

| Item | Value |
| --- | --- |
| Digital pin numbers | 24 (D0-D15 plus A0-A7 as 16-23) |
| Supply | A0-A3 (0-3 V) |

Pin-change interrupts work on A4-A7 (20-23).

## Port mapping

| Arduino | Port |
| --- | --- |
| A1 (17) | PF1 |
| A5 | PK5 |
"""


def test_an_analog_range_followed_by_numbers_gives_each_input_its_arduino_number(tmp_path: Path) -> None:
    """An Arduino numbers its analog inputs after its digital pins; "A0-A7 as 16-23" makes 23 the A7 pin, and a
    number set equal to a name the board already has takes that name's pin (21 is A5, which a table makes PK5)."""
    index = pin_index_for(_sheet(tmp_path, "numbered-board.md", NUMBERED))
    assert index.resolve("numbered-board", "23").name == "A7"
    assert index.resolve("numbered-board", "D23").name == "A7"  # digital pin 23, written with its D
    assert index.resolve("numbered-board", "D17").name == "PF1"
    assert index.resolve("numbered-board", "16").name == "A0"
    assert index.resolve("numbered-board", "21").name == "PK5"  # "A4-A7 (20-23)" and the table's A5 row
    assert index.resolve("numbered-board", "17").name == "PF1"  # the table cell "A1 (17)"
    assert index.resolve("numbered-board", "15").name == "D15"  # still the Arduino's D number
    with pytest.raises(UnknownPinError):
        index.resolve("numbered-board", "24")  # past the end of the range
    # a value range after an analog range ("A0-A3 (0-3 V)") is a voltage, not the inputs' numbers
    assert not [n for _, n, _, _ in pin_ranges("A0-A3 (0-3 V) and A0-A3 = 0-3.3 V\n") if n.isdigit()]


def test_the_mega_analog_inputs_answer_to_their_arduino_numbers(shared_corpus: Path) -> None:
    """The Mega's notes write "A0-A15 as 54-69" and "A8 (62)" in its port table."""
    index = pin_index_for(shared_corpus)
    assert index.resolve("arduino-mega2560", "69").name == "A15"
    assert index.resolve("arduino-mega2560", "D69").name == "A15"
    assert index.resolve("arduino-mega2560", "D54").name == "PF0"


def test_an_analog_range_at_a_digital_range_names_each_input_by_its_digital_pin(shared_corpus: Path) -> None:
    """The F401's notes: the Arduino core numbers "A0-A5 at D46-D51"; the board file maps A0 to PA0."""
    got = pin_ranges("morpho pins continue, with A0-A5 at D46-D51.\n")
    assert [(n, v, k) for _, n, v, k in got if n.startswith("D")] == [(f"D{46 + i}", f"A{i}", "prose")
                                                                       for i in range(6)]
    index = pin_index_for(shared_corpus)
    assert index.resolve("nucleo-f401re", "D46").name == "PA0"
    assert index.resolve("nucleo-f401re", "D51").name == "PC0"
    assert index.check() == []
    assert index.resolve("arduino-mega2560", "54").name == "PF0"
    assert index.resolve("arduino-mega2560", "62").name == "PK0"
    assert index.check() == []
