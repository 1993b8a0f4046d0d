"""An ordinal asks for a numbered instance: "the third UART" is UART3, USART3 or Serial3 as the notes write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag import wording as rag_wording
from edge_agent.rag.wording import instance_terms

KIT = """# ACME K7 - board notes

A small STM32 board with an Arduino header.

## Console

The console UART pins are on the ST-LINK connector; the UART pins also reach the morpho
header. Any UART pins can be remapped in the device tree. The I2C bus pins of the Arduino
header carry pull-ups; the bus pins on the morpho header do not, so an I2C bus there
needs its own.

## Peripheral map

| Peripheral | Pins | Notes |
| --- | --- | --- |
| USART2 TX / RX | PA2 / PA3 | console |
| USART3 TX / RX | PB10 / PB11 | morpho only |
| I2C1 SCL / SDA | PB8 / PB9 | Arduino header |
| I2C2 SCL / SDA | PB13 / PB14 | morpho only |
"""


def test_an_ordinal_names_the_instances_as_makers_write_them() -> None:
    assert instance_terms("g071 second i2c bus pins") == ["i2c2", "i2c_2", "bus2", "bus_2"]
    third = instance_terms("mega third hardware uart pins")  # a qualifier may stand between
    assert {"uart3", "usart3", "serial3"} <= set(third)
    assert "dac_2" in instance_terms("esp32 second dac")  # the ESP32 writes DAC_2
    # "second" as a unit of time, and pin words, name no instance
    assert instance_terms("ads1115 8 samples per second") == instance_terms("bmp280 4 second standby") == []
    assert instance_terms("esp32 second gpio") == [] and instance_terms("first io pin") == []


def test_data_lines_count_from_zero() -> None:
    # an SD card's and a PDM microphone's data lines are DAT0, DAT1: the second is DAT1, past the part's name
    second = instance_terms("second pdm microphone data line")
    assert "dat1" in second and "dat2" not in second
    assert "dat0" in instance_terms("sd card first data line")
    assert "dat3" not in instance_terms("data after 4 second standby")  # a time, no line
    # a board's model number is no quantity of seconds
    assert instance_terms("pi 5 second pdm microphone data line") == []
    assert "dat1" in instance_terms("pi 5 second pdm microphone data line", ["pi 5"])


@pytest.mark.parametrize(("question", "row"), [("k7 third uart pins", "USART3 TX / RX | PB10 / PB11"),
                                               ("k7 second i2c bus pins", "I2C2 SCL / SDA | PB13 / PB14")])
def test_the_counted_instance_row_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          question: str, row: str) -> None:
    (tmp_path / "acme-k7.md").write_text(KIT)
    rag = HardwareRag.load(tmp_path)
    first = rag.search(question)[0]
    assert first.heading.endswith("Peripheral map") and row in first.text
    monkeypatch.setattr(rag_wording, "instance_terms", lambda query, names=(): [])
    assert rag.search(question)[0].heading.endswith("Console")  # on its words alone the prose wins


AVR_KIT = """# ACME M9 - board notes

A large AVR board with an Arduino header.

## Specifications

Digital pins D0-D53, of which fifteen do PWM; every port bit of the chip is brought out, and the pin numbers
follow the Arduino core's digital pin order, not the port order.

## Pin to port mapping

| Pin | Port | Pin | Port |
| --- | --- | --- | --- |
| D5 | PE3 | D44 | PL5 |
| D6 | PH3 | D45 | PL4 |
| D7 | PH4 | D46 | PL3 |
"""


def test_a_pin_written_in_words_is_the_pin_the_tables_write() -> None:
    assert rag_wording.pin_terms("mega digital 6 is which port bit") == ["d6"]
    assert rag_wording.pin_terms("Digital pin 13 and port L bit 3, port b pin 5") == ["d13", "pl3", "pb5"]
    assert rag_wording.pin_terms("a digital pin on port b") == []  # no number: no pin
    # a chip pin typed apart: the nRF's P0.18 (two digits, as its tables write it) and a port pin; "pi 5" is a Pi
    assert rag_wording.pin_terms("nrf p0 18 and pa 5") == ["p0.18", "pa5"]
    assert rag_wording.pin_terms("pi 5 header, pl 3") == ["pl3"]


def test_a_port_bit_in_words_finds_its_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "acme-m9.md").write_text(AVR_KIT)
    rag = HardwareRag.load(tmp_path)
    assert "| D46 | PL3 |" in rag.search("m9 port L bit 3 arduino digital pin")[0].text
    monkeypatch.setattr(rag_wording, "pin_terms", lambda query: [])
    assert "| D46 | PL3 |" not in rag.search("m9 port L bit 3 arduino digital pin")[0].text


def test_a_channel_written_in_words_is_the_numbered_name_the_notes_write() -> None:
    from edge_agent.rag.wording import channel_terms

    assert channel_terms("touch channel 8 is on which gpio") == ["touch8", "touch_8"]
    assert channel_terms("ADC1 ch 3 pin") == ["adc13", "adc1_3"]  # kept only where a datasheet writes it so
    assert channel_terms("which channel is the servo on") == []


def test_a_family_written_bare_finds_its_numbered_members_only_when_the_notes_never_write_it_bare() -> None:
    from edge_agent.rag.wording import numbered_family

    held = {"pcmsk0", "pcmsk1", "pcmsk2", "uart", "uart0", "pcint8"}.__contains__
    assert numbered_family("pcmsk", held) == ["pcmsk0", "pcmsk1", "pcmsk2"]
    assert numbered_family("uart", held) == []  # the notes write the family on its own: that word is searched
    assert numbered_family("pc", held) == [] and numbered_family("pcmsk1", held) == []


def test_a_register_family_asked_by_its_bare_name_finds_the_board_note_that_numbers_it(tmp_path: Path) -> None:
    (tmp_path / "acme-uno.md").write_text(
        "# ACME Uno - board notes\n\n## Interrupts\n\nPin-change interrupts: D0-D7 on PCMSK2, D8-D13 on PCMSK0, A0-A5"
        " on PCMSK1.\n\n## Analog pins\n\nSix analog pins A0-A5 read 0-5 V; the analog reference is AVCC.\n")
    (tmp_path / "acme-hat.md").write_text(
        "# ACME HAT\n\n## Inputs\n\nThe register that covers the analog pins is the ADC's config register.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("which PCMSK register covers the analog pins")[0].heading == "ACME Uno - board notes > Interrupts"


def test_a_dotted_call_also_asks_for_its_words_but_a_file_name_stays_whole() -> None:
    from edge_agent.rag.text import query_terms
    from edge_agent.rag.wording import dotted_parts

    assert dotted_parts(query_terms("analogWrite dead after servo.attach")) == ["servo", "attach"]
    assert dotted_parts(query_terms("Wire.begin hangs")) == ["wire", "begin"]
    assert dotted_parts(query_terms("PIN_WIRE_SDA in pins_arduino.h")) == []
    assert dotted_parts(query_terms("dtoverlay line in config.txt")) == []
    assert dotted_parts(query_terms("P0.13 on the dk")) == []  # a pin, not a call


def test_a_chip_pin_typed_apart_finds_the_notes_on_that_pin(shared_corpus: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    rag = HardwareRag.load(shared_corpus)
    assert "P0.18 is the reset line" in rag.search("what does p0 18 do on the nrf52840 dk")[0].text
    monkeypatch.setattr(rag_wording, "pin_terms", lambda query: [])
    assert "P0.18 is the reset line" not in rag.search("what does p0 18 do on the nrf52840 dk")[0].text
