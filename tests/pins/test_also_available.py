"""A datasheet's own alias line is its author's choice and stays the answer (pwm0 is GPIO12), but the answer must not
hide the other pins a function table lists the same function on: the resolve record carries a note for them, in the
index's pin, the service record and the command line's text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.rag import pin_index_for
from edge_agent.services.lookups import pin_record

_NOTES = """# Raspberry Pi 4 notes

## Pin Aliases

- pwm0: GPIO12
- gpclk0: GPIO4
- status_led: GPIO17

## Alternate functions

| GPIO | ALT0 | ALT5 |
| --- | --- | --- |
| 4 | GPCLK0 | - |
| 12 | PWM0 | - |
| 17 | - | - |
| 18 | PCM CLK | PWM0 |
| 20 | PCM DIN | GPCLK0 |
"""


def _sheets(tmp_path: Path) -> Path:
    root = tmp_path / "sheets"
    root.mkdir()
    (root / "rpi-4b.md").write_text(_NOTES)
    (root / "rpi-gpio.md").write_text("# 40-pin header\n\n## Pin Aliases\n\n- pwm0: GPIO12\n")
    return root


def test_an_alias_stays_the_answer_and_notes_the_other_pins(tmp_path: Path) -> None:
    index = pin_index_for(_sheets(tmp_path))
    pin = index.resolve("rpi-4b", "pwm0")
    assert pin.name == "GPIO12"  # the alias line's choice
    assert len(pin.notes) == 1 and "GPIO18" in pin.notes[0] and "GPIO12" not in pin.notes[0]
    gpclk = index.resolve("rpi-4b", "GPCLK0")  # the alias answers; the table's GPIO20 is noted
    assert gpclk.name == "GPIO4" and len(gpclk.notes) == 1 and "GPIO20" in gpclk.notes[0]
    assert index.resolve("rpi-4b", "status_led").notes == ()  # listed nowhere else
    assert index.resolve("rpi-4b", "GPIO12").notes == ()  # the pin's own name: nothing is hidden
    assert index.resolve("rpi-4b", 12).notes == ()
    shared = index.resolve("rpi-gpio", "pwm0")  # the tag the Pis share: the Pi 4's table is noted too
    assert shared.name == "GPIO12" and any("GPIO18" in n for n in shared.notes)


def test_the_record_and_the_command_line_carry_the_note(tmp_path: Path, state: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    root = _sheets(tmp_path)
    index = pin_index_for(root)
    assert "GPIO18" in pin_record(index.resolve("rpi-4b", "pwm0")).as_json()["notes"][0]
    assert "notes" not in pin_record(index.resolve("rpi-4b", "status_led")).as_json()  # no empty key
    assert main(["--state", str(state), "pins", "resolve", "pwm0", "--board", "rpi-4b", "--datasheets",
                 str(root), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["name"] == "GPIO12" and "GPIO18" in record["notes"][0]
    assert main(["--state", str(state), "pins", "resolve", "pwm0", "--board", "rpi-4b", "--datasheets",
                 str(root)]) == 0
    said = capsys.readouterr().out
    assert "GPIO12" in said and "also available on GPIO18" in said


def test_another_mapping_of_a_routed_bus_is_noted(tmp_path: Path) -> None:
    # the board file routes USART1 to the Arduino header's PA9/PA10; Zephyr's devicetree maps it to PB6/PB7
    (tmp_path / "nucleo-f401re.md").write_text("# NUCLEO-F401RE\n\n## Default peripheral mapping\n\n"
                                               "| Peripheral | Pins | Notes |\n| --- | --- | --- |\n"
                                               "| USART1 TX / RX | PB6 / PB7 | 115200 |\n")
    index = pin_index_for(tmp_path)
    for name in ("USART1 TX", "usart1_tx", "USART1 TXD"):  # the role's other word answers with the same note
        pin = index.resolve("nucleo-f401re", name)
        assert pin.name == "PA9" and len(pin.notes) == 1 and "PB6" in pin.notes[0], name
    assert index.resolve("nucleo-f401re", "USART2 TX").notes == ()
