"""A HAT's pin table with a 'Physical pin' column gives each row's pin its 40-pin header position too:
'pin 16' on the HAT is the pin in that row, while a bare number keeps its own numbering."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import UnknownPinError
from edge_agent.rag import pin_index_for

HAT = """# LED strip HAT

## Pins used

| Physical pin | BCM | Signal |
| --- | --- | --- |
| 16 | GPIO23 | LED data |
| 18 | GPIO24 | LED clock |
"""


def test_a_header_position_in_a_physical_column_resolves_to_its_rows_pin(tmp_path: Path) -> None:
    (tmp_path / "strip-hat.md").write_text(HAT)
    index = pin_index_for(tmp_path)
    assert index.resolve("strip-hat", "pin 16").name == "GPIO23"
    assert index.resolve("strip-hat", "pin 18").name == "GPIO24"
    assert index.resolve("strip-hat", "LED data").name == "GPIO23"


def test_without_a_physical_column_a_header_position_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "strip-hat.md").write_text(HAT.replace("Physical pin", "Row"))
    with pytest.raises(UnknownPinError):
        pin_index_for(tmp_path).resolve("strip-hat", "pin 16")


def test_shared_corpus_hats_answer_by_header_position(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("blinkt", "pin 16").name == "GPIO23"
    assert index.resolve("unicorn-hat", "pin 12").name == "GPIO18"
    assert index.resolve("enviro-plus", "9").name == "GPIO9"  # a bare number stays the BCM number


def test_a_gpio_set_equal_to_a_name_at_its_header_place_in_prose_is_a_pin_of_the_hat(tmp_path: Path) -> None:
    # an add-on's notes often say which header pins its bus uses in a sentence, not a table
    (tmp_path / "probe-hat.md").write_text(
        HAT + "\nThe touch controller sits on I2C1 (GPIO2 pin 3 = SDA, GPIO3 pin 5 = SCL).\n")
    index = pin_index_for(tmp_path)
    for name, pin in (("SDA", "GPIO2"), ("pin 3", "GPIO2"), ("SCL", "GPIO3"), ("pin 5", "GPIO3")):
        assert index.resolve("probe-hat", name).name == pin, name
    with pytest.raises(UnknownPinError):
        index.resolve("probe-hat", "pin 7")  # a header place the notes never give the HAT


def test_shared_corpus_explorer_hat_answers_its_i2c_pins(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("explorer-hat-pro", "SDA").name == "GPIO2"
    assert index.resolve("explorer-hat-pro", "I2C SCL").name == "GPIO3"  # the shared header's name of the pin
