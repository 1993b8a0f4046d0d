"""The answer of a turn that ran tools starts with what the tools did, stated from their results, and a
model claim that contradicts them never stands: the wrong answers real 0.5B-1.5B models gave, replayed
through the scripted server against the real runtime on the simulated board."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.facts import answer, contradiction
from edge_agent.agent.records import Outcome, ToolRecord
from edge_agent.cli import main
from edge_agent.config import load_settings

from .conftest import type_lines

POLICY = '[hardware.safety.adapters.nucleo-f401re]\nwritable_gpio = ["PA5"]'


def _turn(config: Path, state: Path, message: str) -> Any:
    with open_agent(load_settings(config), state) as agent:
        return agent.turn(message)


def test_a_refused_write_is_said_to_be_refused_before_the_models_advice(model: Any, steps: Any, tmp_path: Path,
                                                                        state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, POLICY)
    model.script = [steps.call(("gpio_write", {"pin": "PB0", "value": 1})),
                    steps.say('To set PB0 high, you need to add "PB0" to the writable_gpio list.')]
    result = _turn(config, state, "Set PB0 high.")
    first, advice = result.response.split("\n")
    assert first.startswith("Refused, not done: gpio_write PB0 = 1: refused to drive GPIO PB0 to 1")
    assert 'add "PB0" there' in first  # what would allow it, in the policy's own words
    assert advice.startswith("To set PB0 high")


def test_a_claimed_write_after_a_refusal_is_left_out(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, POLICY)
    model.script = [steps.call(("gpio_write", {"pin": "PA0", "value": "1"})),
                    steps.say("I changed the pin PA0 to 1 using the GPIO_write tool.")]
    result = _turn(config, state, "Drive PA0 high.")
    assert result.response.startswith("Refused, not done: gpio_write PA0 = 1") and "changed" not in result.response
    assert any("left out" in n and "I changed the pin PA0" in n for n in result.notes)


def test_a_scan_is_counted_from_its_result_and_a_wrong_count_is_left_out(model: Any, steps: Any, config: Path,
                                                                         state: Path) -> None:
    model.script = [steps.call(("i2c_scan", {})),
                    steps.say("4 I2C devices are connected, with addresses 32, 60, 64, and 80.")]
    result = _turn(config, state, "How many devices are on the I2C bus?")
    assert result.response == "Scan: 5 devices answered on I2C bus 1 on nucleo-f401re: 0x20, 0x3C, 0x40, 0x50, 0x76."
    assert any("counts 4 devices" in n for n in result.notes)


def test_a_reading_is_stated_with_units_and_a_wrong_number_is_left_out(model: Any, steps: Any, config: Path,
                                                                       state: Path) -> None:
    model.script = [steps.call(("sensor_read", {"addr": 118})),
                    steps.say("The temperature is 10.0 degrees Celsius.")]
    result = _turn(config, state, "What is the temperature?")
    assert result.response == ("Reading: BME280 at 0x76: temperature 22.5 °C, pressure 1009.3 hPa, "
                               "humidity 45.0 %.")


def test_a_read_states_pin_button_and_level(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.call(("gpio_read", {"pin": "B1"})), steps.say("The button line is low.")]
    result = _turn(config, state, "Read the user button.")
    level = result.tool_calls[0].result["value"]
    word = "high" if level else "low"
    assert result.response.startswith(f"Read: pin B1 (= PC13) reads {level} ({word}).")
    # a model that says the opposite level is left out; the same level stays
    assert ("The button line is low." in result.response) == (level == 0)


def test_a_turn_without_tools_keeps_the_models_words(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.say("Buenos días.")]
    assert _turn(config, state, "Say good morning in Spanish.").response == "Buenos días."


def test_the_one_shot_prints_the_facts_and_json_keeps_the_calls(model: Any, steps: Any, tmp_path: Path,
                                                               state: Path, capsys: Any) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, POLICY)
    model.script = [steps.call(("gpio_write", {"pin": "PB0", "value": 1})), steps.say("PB0 is now high.")]
    code = main(["--state", str(state), "--config", str(config), "agent", "-m", "Set PB0 high.", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["response"].startswith("Refused, not done:") and "now high" not in data["response"]
    assert data["tool_calls"][0]["name"] == "gpio_write" and "writable_gpio" in data["tool_calls"][0]["error"]


def test_the_chat_shows_the_answer_with_the_facts_once(model: Any, steps: Any, config: Path, state: Path,
                                                       capsys: Any, monkeypatch: Any) -> None:
    type_lines(monkeypatch, "turn LD2 on")
    model.script = [steps.call(("gpio_write", {"pin": "LD2", "value": 1})), steps.say("LD2 is on.")]
    assert main(["--state", str(state), "--config", str(config), "agent"]) == 0
    out = capsys.readouterr().out
    assert out.count("Done: pin LD2 (= PA5) set to 1 (high).\nLD2 is on.") == 1


@pytest.mark.parametrize("text,contradicts", [
    ("The LED is on now.", False),
    ("I could not turn it on.", True),  # the write was done
    ("The temperature in the I2C room is 22 C.", False),  # "I2C" is not a temperature of 2
    ("One of the devices is the BME280 at 0x76.", False),
    ("Nothing answered at 0x77.", True),
    ('{"error": "x"}', True),
])
def test_what_counts_as_a_contradiction(text: str, contradicts: bool) -> None:
    records = [ToolRecord("gpio_write", {"pin": "PA5", "value": 1},
                          result={"pin": "PA5", "requested": "PA5", "value": 1}),
               ToolRecord("i2c_scan", {}, result={"bus": 1, "addresses": [118], "busy": []}),
               ToolRecord("sensor_read", {}, result={"temperature_c": 22.4, "addr_hex": "0x76"})]
    assert (contradiction(records, text) is not None) is contradicts


def test_malformed_calls_and_repeats_add_no_line() -> None:
    records = [ToolRecord("i2c_scan", {"x": 1}, error="i2c_scan has no argument x. A valid call looks like {}",
                          outcome=Outcome.MALFORMED),
               ToolRecord("i2c_scan", {}, result={"bus": 1, "addresses": [], "busy": []}),
               ToolRecord("i2c_scan", {}, result={"bus": 1, "addresses": [], "busy": []}, repeat=True)]
    assert answer(records, "Nothing there.") == ("Scan: no device answered on I2C bus 1.\nNothing there.", [])


# --- the language the operator asks for -----------------------------------------------------------------


@pytest.mark.parametrize("message,line", [
    ("Say good morning in Spanish.", "Write the answer in Spanish."),
    ("Dis bonjour en français, s'il te plaît.", "Write the answer in French."),
    ("Sag hallo auf Deutsch.", "Write the answer in German."),
    ("Translate 'the LED is on' into Italian.", "Write the answer in Italian."),
    ("What is the temperature?", None),
    ("Is the LED in the French or the German kit?", None),  # names no language for the answer
])
def test_a_language_named_for_the_answer_is_asked_for_explicitly(model: Any, steps: Any, config: Path, state: Path,
                                                                 message: str, line: str | None) -> None:
    model.script = [steps.say("Buenos días.")]
    _turn(config, state, message)
    user = model.requests[0]["messages"][-1]["content"]
    if line is None:
        assert "Write the answer in" not in user
    else:
        assert user.endswith(f"{message}\n{line}")
