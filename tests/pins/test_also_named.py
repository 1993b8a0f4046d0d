"""A pin of a board known only from datasheets carries the other names those datasheets give it as names
("also named"), never as functions: a number or a silkscreen label is not something the pin can do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.rag import pin_index_for


def test_a_datasheet_only_pin_lists_its_other_names_and_no_name_as_a_function(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    by_number = index.resolve("arduino-mega2560", "62")  # set equal to A8 in the Mega's prose
    by_name = index.resolve("arduino-mega2560", "A8")
    assert by_number.name == by_name.name == "PK0"
    assert by_number.functions == by_name.functions == ()
    assert {"A8", "62"} <= set(by_number.also_named)
    assert by_number.also_named == by_name.also_named  # the same pin, however it was asked for
    assert "PK0" not in by_number.also_named  # the pin's own name is its name, not another one


def test_a_name_is_a_name_and_a_function_table_entry_stays_a_function(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    # On the nRF52840 DK (no board file) the devicetree alias names P0.13, like the silkscreen label.
    led = index.resolve("nrf52840dk", "led0")
    assert led.name == "P0.13" and {"LED1", "led0"} <= set(led.also_named) and led.functions == ()
    # AIN1 is what the header table's notes column says A0's pin can do: a function, not another name
    ain = index.resolve("nrf52840dk", "AIN1")
    assert ain.name == "P0.03" and ain.functions == ("AIN1",)
    assert "AIN1" not in ain.also_named and "A0" in ain.also_named


def test_board_file_pins_keep_their_functions_and_name_nothing_else(shared_corpus: Path) -> None:
    pin = pin_index_for(shared_corpus).resolve("arduino-uno", "D13")
    assert pin.name == "PB5" and "SCK" in pin.functions and pin.also_named == ()


def test_the_cli_labels_the_other_names_in_text_and_json(state: Path, shared_corpus: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--state", str(state), "pins", "resolve", "62", "--board", "arduino-mega2560",
            "--datasheets", str(shared_corpus)]
    assert main(args) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("arduino-mega2560: 62 = PK0; also named ")
    assert "A8" in line.split("also named ", 1)[1] and "functions" not in line
    assert main([*args, "--json"]) == 0
    pin = json.loads(capsys.readouterr().out)
    # the record keeps every key it had (board, name, number, headers, functions, raw) and adds also_named
    assert {"board", "name", "number", "headers", "functions", "raw"} <= set(pin)
    assert pin["name"] == "PK0" and pin["functions"] == [] and "A8" in pin["also_named"]



def test_pins_list_and_pins_resolve_print_the_same_record_of_a_board_file_pin(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # one record per pin, whichever command prints it; a board-file pin has no also_named key in either
    from edge_agent.paths import bundled_datasheets_dir

    common = ["--board", "nucleo-f401re", "--datasheets", str(bundled_datasheets_dir()), "--json"]
    assert main(["--state", str(state), "pins", "resolve", "PA5", *common]) == 0
    resolved = json.loads(capsys.readouterr().out)
    assert main(["--state", str(state), "pins", "list", *common]) == 0
    listed = [p for p in json.loads(capsys.readouterr().out)["pins"] if p["name"] == "PA5"]
    assert len(listed) == 1 and "LED LD2" in resolved["functions"] and "also_named" not in resolved
    assert {k: v for k, v in listed[0].items() if k != "aliases"} == resolved
