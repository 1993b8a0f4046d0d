"""A pin looked up by what its datasheet says it does ("illumination LEDs", "reset"), read last: one pin's
description answers, several pins' descriptions are an error naming each, and a generic word, a position or an
identifier-only name answers nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, UnknownPinError
from edge_agent.pins import described
from edge_agent.rag import pin_index_for

HAT = """# Sensor HAT - notes

## Header usage

| Physical pin | BCM | Use |
| --- | --- | --- |
| 3 | GPIO2 | I2C1 SDA |
| 5 | GPIO3 | I2C1 SCL |
| 7 | GPIO4 | illumination LEDs enable (output) |
| 8 | GPIO14 | RGB LED clock |
| 10 | GPIO15 | RGB LED data |
| 11 | GPIO17 | microphone I2S frame sync, PWM1 alt |
| 12 | GPIO18 | TIM2 CH1 |

## Notes

GPIO27 is the reset line (active low). GPIO22, GPIO23 and GPIO24 are the strapping pins read at boot.
"""


@pytest.fixture
def index(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "sensor-hat.md").write_text(HAT)
    return pin_index_for(tmp_path)


def test_a_pin_answers_to_what_its_row_or_a_sentence_says_it_does(index) -> None:  # type: ignore[no-untyped-def]
    assert index.resolve("sensor-hat", "illumination LEDs").name == "GPIO4"
    assert index.resolve("sensor-hat", "illumination led").name == "GPIO4"  # a plural as its singular
    assert index.resolve("sensor-hat", "frame sync").name == "GPIO17"  # a clause of the cell, brackets left out
    assert index.resolve("sensor-hat", "reset").name == "GPIO27"
    got = index.resolve("sensor-hat", "mic frame sync")  # a short form written out
    assert got.name == "GPIO17" and any("description" in n for n in got.notes)


def test_several_pins_described_so_are_an_error_naming_each(index) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AmbiguousPinError) as refused:
        index.resolve("sensor-hat", "RGB LED")
    assert refused.value.pins == {"GPIO14", "GPIO15"}


def test_a_generic_word_a_position_a_list_or_an_identifier_answers_nothing(index) -> None:  # type: ignore[no-untyped-def]
    # "clock" or "enable" alone name what many pins do; "pin 0" is a position; GPIO24 is one of a list the sentence
    # is about; "CH1" is a piece of the name TIM2 CH1, looked up as a name
    for name in ("clock", "enable", "physical pin 0", "strapping", "ch1", "gas sensor heater"):
        with pytest.raises(UnknownPinError):
            index.resolve("sensor-hat", name)


def test_descriptions_are_no_names_and_the_words_compare_loosely() -> None:
    assert described.words("The Illumination LEDs pin") == {"illumination", "led"}
    assert described.clauses("microphone I2S frame sync, PWM1 alt (output)") == ["microphone I2S frame sync",
                                                                                 "PWM1 alt"]
    assert list(described.in_prose("GP23 selects the regulator mode. GPIO6-GPIO11 are the flash.\n")) == [
        (1, "regulator mode", "GP23")]
    assert described.in_words("RGB LED data") and not described.in_words("TIM2 CH1")


def test_the_shared_corpus_answers_pins_by_their_descriptions(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    assert index.resolve("enviro-phat", "illumination leds").name == "GPIO4"
    assert index.resolve("nrf52840dk", "reset").name == "P0.18"
    assert index.resolve("rpi-gpio", "bit clock").name == "GPIO18"
    with pytest.raises(AmbiguousPinError):
        index.resolve("fan-shim", "rgb led")
    assert index.check() == []
