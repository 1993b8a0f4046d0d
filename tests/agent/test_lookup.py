"""A lookup is answered from what the pin index, the board file, the operator's notes and the datasheet
search returned for it, stated before the model's words; a model answer that contradicts them is left
out: the wrong lookups real 0.5B-1.5B models gave, replayed through the scripted server with the real
datasheet index and board files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.lookup import answer, contradiction, datasheet_lines, lookup_facts, note_lines, pin_aliases, terms
from edge_agent.agent.ports import pin_facts
from edge_agent.cli import main
from edge_agent.config import load_settings


def _config(tmp_path: Path, model: Any, steps: Any) -> Path:
    return steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)


def _turn(config: Path, state: Path, message: str) -> Any:
    with open_agent(load_settings(config), state) as agent:
        return agent.turn(message)


def test_a_peripheral_signal_is_answered_from_the_board_file(model: Any, steps: Any, tmp_path: Path,
                                                             state: Path) -> None:
    model.script = [steps.say("USART2 uses pins D1 and D2 for TX and RX, respectively.")]
    result = _turn(_config(tmp_path, model, steps), state, "Which pins does USART2 use for TX and RX?")
    assert result.response == ("Pin: USART2_TX is PA2 (CN10-35, CN9-2, D1).\n"
                               "Pin: USART2_RX is PA3 (CN10-37, CN9-1, D0).")
    assert any("left out" in n and "D2" in n for n in result.notes)
    sent = model.requests[0]
    assert "tools" not in sent and '<data source="lookup">' in sent["messages"][-1]["content"]
    assert not result.tool_calls and result.succeeded


def test_a_register_is_answered_from_the_datasheet_row(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    model.script = [steps.say("The address of the BME280 ctrl_meas register is 0xF5.")]
    result = _turn(_config(tmp_path, model, steps), state, "What is the address of the BME280 ctrl_meas register?")
    assert result.response.startswith("Datasheet bme280.md (Registers): Address 0xF4, Name ctrl_meas, Use ")
    assert "0xF5" not in result.response  # the model's next-row answer is left out


def test_a_pin_the_message_names_is_stated_as_the_index_resolves_it(model: Any, steps: Any, tmp_path: Path,
                                                                    state: Path) -> None:
    model.script = [steps.say("D8 is PA9, on the Arduino header.")]
    result = _turn(_config(tmp_path, model, steps), state, "Which MCU pin is Arduino header pin D8 connected to?")
    assert result.response == "Pin: D8 is PA9 (CN10-21, CN5-1, D8, USART1_TX).\nD8 is PA9, on the Arduino header."


def test_pin_lines_come_from_the_index_records_not_the_rendered_block(tmp_path: Path) -> None:
    # Board tags are datasheet file names ("feather m4", "esp32+cam"): read back from the rendered pin
    # block, such a line did not split into board, name and pin, and the lookup stated nothing.
    from edge_agent.rag import HardwareRag
    from edge_agent.services.results import AgentContext

    (tmp_path / "feather m4.md").write_text("# Feather M4\n## Pin Aliases\nstatus_led: PA23\nrelay_coil: PA22\n")
    (tmp_path / "esp32+cam.md").write_text("# ESP32 camera board\n## Pin Aliases\nflash_led: GPIO4\n")
    message = "Which pin is the status_led, and which is the flash led?"
    text, matches = HardwareRag.load(tmp_path).context_and_pins(message, ["feather m4", "esp32+cam"])
    # what the agent_context action sends the agent, through its JSON
    facts = pin_facts(AgentContext(hardware=text, aliases=[m.record() for m in matches]).model_dump(mode="json"))
    # a datasheet-only pin's own name is a name, not a function: no "(status_led)" repeating it
    assert lookup_facts(message, text, facts) == ["Pin: status_led on feather m4 is PA23.",
                                                  "Pin: flash_led on esp32+cam is GPIO4."]
    assert pin_aliases(facts, message) == ["status_led", "flash_led"]
    # the rendered block is not read for pins: without the records no pin line is stated
    assert not [line for line in lookup_facts(message, text) if line.startswith("Pin: ")]


def test_a_datasheet_pin_line_for_another_name_is_never_offered(tmp_path: Path) -> None:
    # No board answers "status_led"; the best datasheet line is another board's flash_led. Offering it would
    # state the wrong pin, so the lookup says the asked name was not found and states no pin.
    from edge_agent.rag import HardwareRag
    from edge_agent.services.results import AgentContext

    (tmp_path / "feather m4.md").write_text("# Feather M4\n## Pin Aliases\nrelay_coil: PA22\n")
    (tmp_path / "esp32+cam.md").write_text("# ESP32 camera board\n## Pin Aliases\nflash_led: GPIO4\n")
    rag = HardwareRag.load(tmp_path)
    message = "Which pin is the status_led?"
    text, matches = rag.context_and_pins(message, ["feather m4", "esp32+cam"])
    facts = pin_facts(AgentContext(hardware=text, aliases=[m.record() for m in matches]).model_dump(mode="json"))
    assert "flash_led: GPIO4" in text  # the line is in the context: the lookup, not retrieval, refuses it
    lines = lookup_facts(message, text, facts)
    assert len(lines) == 1 and lines[0].startswith("Pin: not found: no pin named status_led")
    assert "GPIO4" not in lines[0] and "PA22" not in lines[0]
    # and a model that picks a pin anyway is left out of the answer
    said, notes = answer(lines, "The status LED is on PA22.")
    assert said == lines[0] and "PA22" in notes[0]
    # the same line answers a question that asks for its own name, written either way
    for asked in ("Which pin is the flash_led?", "which gpio is the flash led"):
        text, _ = rag.context_and_pins(asked, ["feather m4", "esp32+cam"])
        assert datasheet_lines(asked, text) == ["Datasheet esp32+cam.md (Pin Aliases): flash_led: GPIO4"]


def test_a_remembered_pin_is_stated_from_the_note_and_a_repeat_is_a_cache_hit(model: Any, steps: Any, tmp_path: Path,
                                                                             state: Path, capsys: Any) -> None:
    config = _config(tmp_path, model, steps)
    for key, note in (("relay", "The pump relay is wired to D7 (PA8) on the Nucleo."),
                      ("scope", "The bench scope's probe 2 is on the relay coil.")):
        assert main(["--state", str(state), "--config", str(config), "memory", "store", "--key", key, "--content",
                     note, "--category", "core"]) == 0
    capsys.readouterr()
    model.script = [steps.say("The pump relay is on LD2.")]
    first = _turn(config, state, "Which pin is the pump relay on?")
    assert first.response == "Your note: The pump relay is wired to D7 (PA8) on the Nucleo."
    assert first.source_krefs  # the note came through engage
    again = _turn(config, state, "Which pin is the pump relay on?")
    assert again.cached and again.response == first.response and len(model.requests) == 1


def test_an_action_gets_no_lookup_lines(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    model.script = [steps.call(("gpio_read", {"pin": "D7"})), steps.say("D7 is low.")]
    result = _turn(_config(tmp_path, model, steps), state, "Is D7 high right now?")
    assert result.response.startswith("Read: pin D7 (= PA8) reads 0 (low).")
    assert '<data source="lookup">' not in model.requests[0]["messages"][-1]["content"]


HARDWARE = """[Hardware documentation]
--- bme280.md (bme280) ---
# BME280 sensor > Registers
| Address | Name | Use |
| --- | --- | --- |
| 0xD0 | id | chip id, 0x60 |
| 0xF2 | ctrl_hum | humidity oversampling, bits 2:0 |
| 0xF4 | ctrl_meas | temperature oversampling 7:5, pressure oversampling 4:2, mode 1:0 |
…

--- bme280.md (bme280) ---
# BME280 sensor > Chip id
Register 0xD0 (`id`) reads 0x60 on a BME280. A BMP280 (no humidity) answers 0x58 in the same
register, so reading 0xD0 tells the two apart.
"""


def test_the_datasheet_line_is_the_rarest_words_row_and_the_part_name_picks_none() -> None:
    # "BME280" names the file (it scopes the question); humidity is in three lines, oversampling in two
    assert datasheet_lines("Which register holds the BME280's humidity oversampling setting?", HARDWARE) == [
        "Datasheet bme280.md (Registers): Address 0xF2, Name ctrl_hum, Use humidity oversampling, bits 2:0"]
    # a sentence of a paragraph, joined across its lines
    assert datasheet_lines("What does a BMP280 answer instead?", HARDWARE) == [
        "Datasheet bme280.md (Chip id): A BMP280 (no humidity) answers 0x58 in the same register, so reading 0xD0 "
        "tells the two apart."]
    assert datasheet_lines("What supply voltage does it take?", HARDWARE) == []


def test_a_note_is_stated_only_when_it_shares_the_questions_words() -> None:
    notes = [{"content": "The BME280 sensor board is mounted in the greenhouse.", "category": "core"},
             {"content": "User: where is the door sensor?\nAssistant: on D2", "category": "conversation"}]
    assert note_lines("Where is the sensor board mounted?", notes) == [
        "Your note: The BME280 sensor board is mounted in the greenhouse."]
    assert note_lines("Which pin is the door sensor on?", notes) == []  # one shared word of two; exchanges never
    assert "soft-reset" in terms("soft-reset it") and {"soft", "reset"} <= terms("soft-reset it")


@pytest.mark.parametrize("text,contradicts", [
    ("USART2 uses D1 and D0.", False), ("USART2 uses D1 and D2.", True), ("It is on PA3 and PA2.", False),
    ("TX is PA9.", True), ("Both are on the ST-LINK port.", False),
])
def test_what_contradicts_a_pin_lookup(text: str, contradicts: bool) -> None:
    lines = ["Pin: USART2_TX is PA2 (CN10-35, CN9-2, D1).", "Pin: USART2_RX is PA3 (CN10-37, CN9-1, D0)."]
    assert (contradiction(lines, text) is not None) is contradicts


def test_register_values_disjoint_from_the_datasheet_line_are_left_out() -> None:
    line = ["Datasheet bme280.md (Registers): Address 0xF4, Name ctrl_meas, Use mode 1:0"]
    assert answer(line, "It is 0xF5.")[0] == line[0]
    assert answer(line, "0xF4; write 0xF2 before it.")[0] == f"{line[0]}\n0xF4; write 0xF2 before it."
    assert answer([], "From the model.") == ("From the model.", [])


def test_an_action_without_a_pin_name_is_forced_to_the_alias_the_index_found(model: Any, steps: Any, tmp_path: Path,
                                                                             state: Path) -> None:
    from .conftest import sim_writes
    from .test_plan import forced

    model.script = [steps.call(("gpio_write", {"pin": "green_led", "value": 0})), steps.say("It is off.")]
    with open_agent(load_settings(_config(tmp_path, model, steps)), state) as agent:
        result = agent.turn("Switch the green user LED off.")
        writes = sim_writes(agent)
    assert forced(model.requests[0]) == {"gpio_write": {"pin": ["green_led"], "value": [0]}}
    assert result.tool_calls[0].error is None and writes == [("PA5", 0)]


def test_an_action_on_a_remembered_thing_is_forced_to_the_notes_pin(model: Any, steps: Any, tmp_path: Path,
                                                                   state: Path, capsys: Any) -> None:
    from .conftest import sim_writes
    from .test_plan import forced

    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    assert main(["--state", str(state), "--config", str(config), "memory", "store", "--key", "pump", "--content",
                 "The coolant pump relay is on D7 (PA8), active high.", "--category", "core"]) == 0
    capsys.readouterr()
    model.script = [steps.call(("gpio_write", {"pin": "D7", "value": 1})), steps.say("The pump runs.")]
    with open_agent(load_settings(config), state) as agent:
        agent.turn("Start the coolant pump.")
        writes = sim_writes(agent)
    assert forced(model.requests[0]) == {"gpio_write": {"pin": ["D7"], "value": [1]}}
    assert writes == [("PA8", 1)]


def test_the_date_stamp_a_small_model_copies_is_not_part_of_the_answer(model: Any, steps: Any, tmp_path: Path,
                                                                        state: Path) -> None:
    model.script = [steps.say("[2026-11-28] Au revoir !")]
    assert _turn(_config(tmp_path, model, steps), state, "Say goodbye in French.").response == "Au revoir !"


def test_a_native_pin_name_is_stated_with_its_headers_from_the_board_file(model: Any, steps: Any, tmp_path: Path,
                                                                          state: Path) -> None:
    model.script = [steps.say("PC13 is not on this board.")]
    result = _turn(_config(tmp_path, model, steps), state, "Which header is PC13 on?")
    assert result.response == "Pin: PC13 is on CN7-23 (BUTTON B1).\nPC13 is not on this board."
