"""What a message asks for, and what the request makes of it: only the action's tools, a call required
for the first reply, no call possible when the answer is asked for (the real openai SDK against the
scripted server, the real runtime on the simulated board)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.cachekey import asks_for_change
from edge_agent.agent.choice import asked_level, asks_change, plan
from edge_agent.agent.tools import COMPACT_TOOLS
from edge_agent.config import load_settings

from .conftest import sim_writes

BOARD = ["nucleo-f401re"]
COMPACT_TOOLS_IN_ORDER = ("gpio_read", "gpio_write", "i2c_scan", "sensor_read", "datasheet_search", "pin_resolve")


def forced(request: dict[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """The calls a request's response_format schema allows: tool -> {argument: allowed values}."""
    schema = request["response_format"]["json_schema"]["schema"]["anyOf"][0]
    out = {}
    for alt in schema.get("anyOf", [schema]):
        args = alt["properties"]["arguments"]["properties"]
        out[alt["properties"]["name"]["const"]] = {k: v["enum"] for k, v in args.items() if "enum" in v}
    return out


@pytest.mark.parametrize("message,kind,tools,require", [
    ("Please switch LD2 off.", "action", ["gpio_write"], True),
    ("Could you pull D4 high?", "action", ["gpio_write"], True),
    ("Light D13 up, please.", "action", ["gpio_write"], True),
    ("Bring D7 high.", "action", ["gpio_write"], True),
    ("Get the LED on LD2 on", "action", ["gpio_write"], True),
    ("Energise the relay on D4.", "action", ["gpio_write"], True),
    ("Turn the status lamp on.", "action", ["gpio_write"], True),
    ("Switch the pump off", "action", ["gpio_write"], True),
    ("Is B1 pressed?", "action", ["gpio_read"], True),
    ("What is D7 set to right now?", "action", ["gpio_read"], True),
    ("Is anything answering at 0x76?", "action", ["i2c_scan"], True),
    ("List the I2C addresses on the bus", "action", ["i2c_scan"], True),
    ("How warm is it in here?", "action", ["sensor_read"], True),
    ("Set D4 high and tell me the temperature", "action", ["gpio_write", "sensor_read"], True),
    ("Where is SDA on the Arduino header?", "lookup", [], False),
    ("What does register 0xF7 hold?", "lookup", [], False),
    ("What pin is D13 on the MCU?", "lookup", [], False),
    ("What is the BME280's temperature range?", "lookup", [], False),
    ("What is the supply voltage set to?", "lookup", [], False),
    ("What would happen if I set D7 high? Don't do it.", "lookup", [], False),
    # no known verb: a pin and a level, or a verb of its own on a thing a line drives, is an order; the
    # forced call (named pins, the level asked for) and the policy are the guard
    ("LD2 off.", "action", ["gpio_write"], True),
    ("PA8 to 0 now", "action", ["gpio_write"], True),
    ("I need D4 high", "action", ["gpio_write"], True),
    ("Fire the relay on D4.", "action", ["gpio_write"], True),
    ("Cut the heater", "action", ["gpio_write"], True),
    ("Check D7", "action", ["gpio_read"], True),
    ("Sweep the I2C bus", "action", ["i2c_scan"], True),
    ("The relay is on D7.", "lookup", [], False),
    ("Tell me about D13", "lookup", [], False),
    ("What is A3 on the MCU?", "lookup", [], False),
    ("D7 high?", "action", ["gpio_read"], True),
    ("I'd like LD2 on", "action", ["gpio_write"], True),
    ("Remind me which pin the fan is on", "lookup", [], False),  # a question inside an order writes nothing
    ("Switch off the relay which is on D4", "action", ["gpio_write"], True),
    ("Is PB5 driven?", "action", ["gpio_read"], True),
    ("What is D4 reading?", "action", ["gpio_read"], True),
    ("Read the BME280", "action", ["sensor_read"], True),
    ("Do you see the EEPROM?", "action", ["i2c_scan"], True),
    ("Which I2C addresses are in use?", "action", ["i2c_scan"], True),
    ("What is the BME280 chip ID?", "lookup", [], False),
    ("Hi there!", "talk", [], False),
    ("Thanks, the LED looks fine.", "talk", [], False),
    ("What is 12 times 7?", "talk", [], False),
])
def test_the_plan_of_a_message(message: str, kind: str, tools: list[str], require: bool) -> None:
    got = plan(message, COMPACT_TOOLS, board_words=BOARD, documented=True)
    assert (got.kind, got.tools, got.require) == (kind, tools, require)


def test_a_lookup_without_documentation_may_search() -> None:
    got = plan("Which pin is SDA?", COMPACT_TOOLS, board_words=BOARD, documented=False)
    assert got.kind == "lookup" and set(got.tools) == {"pin_resolve", "datasheet_search"} and not got.require


def test_a_change_no_offered_tool_can_make_offers_nothing() -> None:
    # compact mode has no register write: the model says it cannot, with nothing to call
    got = plan("Write 0x00 to register 0xF4 of the BME280.", COMPACT_TOOLS, board_words=BOARD, documented=True)
    assert (got.kind, got.tools) == ("action", [])


@pytest.mark.parametrize("message,change", [
    ("Turn on LD2.", True), ("Can you turn on LD2?", True), ("What voltage is the supply set to?", False),
    ("How do I set D7 high?", False), ("Set D7 high, no wait, just explain.", False),
    ("Bring up the datasheet for D7.", False), ("Is LD2 lit up?", False), ("Light D13 up", True),
    ("Bring PB5 low", True), ("What would happen if I bring D7 high?", False),
])
def test_questions_and_held_back_changes_ask_for_none(message: str, change: bool) -> None:
    assert asks_change(message) is change


@pytest.mark.parametrize("message,level", [
    ("Turn on the LED on D13", 1), ("Switch off the relay on D4", 0), ("Set the output on D4 to 1.", 1),
    ("LD2 on", 1), ("The LED on D13, off please", 0), ("Light D13 up", 1), ("Toggle D7", None),
    ("Kill the LED on D13", 0), ("Cut the pump on D7", 0), ("De-energise the relay on D4", 0),
    ("Energise the relay on D4", 1), ("Kill D7 and light up LD2", None),
])
def test_the_level_asked_for_is_not_the_on_of_a_place(message: str, level: int | None) -> None:
    assert asked_level(message) == level


def test_an_order_without_a_known_verb_is_never_answered_from_the_cache() -> None:
    assert asks_for_change("LD2 off.") and asks_for_change("Fire the relay on D4.")
    assert not asks_for_change("Which pin is LD2?") and not asks_for_change("Hi there!")


def _agent(config: Path, state: Path) -> Any:
    return open_agent(load_settings(config), state)


def test_an_action_gets_only_its_tool_and_the_answer_asked_for_allows_no_call(model: Any, steps: Any,
                                                                             tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.call(("gpio_write", {"pin": "LD2", "value": 1})), steps.say("LD2 is on.")]
    with _agent(config, state) as agent:
        result = agent.turn("Turn on LD2.")
    assert result.response == "Done: pin LD2 (= PA5) set to 1 (high).\nLD2 is on."
    assert result.tool_calls[0].error is None
    offered = [[t["function"]["name"] for t in r.get("tools", [])] for r in model.requests]
    # one tool block, every compact tool: the server reuses its cached prefix whatever the question
    assert offered == [list(COMPACT_TOOLS_IN_ORDER)] * 2
    # the first reply must be a call to the action's tool, on the pin the message names, at the level it asks
    assert forced(model.requests[0]) == {"gpio_write": {"pin": ["LD2"], "value": [1]}}
    assert [r.get("tool_choice") for r in model.requests] == [None, "none"]
    assert "Do not call a tool" in model.requests[1]["messages"][-1]["content"]
    assert all(r.get("max_tokens") == 512 for r in model.requests)  # compact mode caps a runaway reply


def test_an_action_answered_without_its_tool_is_asked_once_to_call_it(model: Any, steps: Any, tmp_path: Path,
                                                                      state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.say("The humidity is 70 %."), steps.call(("sensor_read", {})), steps.say("It is 45 %.")]
    with _agent(config, state) as agent:
        result = agent.turn("How humid is it?")
    assert result.response.endswith("humidity 45.0 %.\nIt is 45 %.")
    assert [t.name for t in result.tool_calls] == ["sensor_read"]
    assert "Call the tool (sensor_read) now" in model.requests[1]["messages"][-1]["content"]


def test_a_lookup_with_documentation_is_answered_without_tools(model: Any, steps: Any, tmp_path: Path,
                                                               state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.say("PA5 drives LD2.")]
    with _agent(config, state) as agent:
        result = agent.turn("Which MCU pin drives LD2 on the Nucleo-F401RE?")
    # the pin index answers it: in the prompt, and stated first
    assert result.response == "Pin: LD2 is PA5 (CN10-11, CN5-6, D13, TIM2_CH1, LED LD2, SPI1_SCK).\nPA5 drives LD2."
    assert "tools" not in model.requests[0] and "PA5" in model.requests[0]["messages"][-1]["content"]


def test_a_server_that_refuses_tool_choice_is_asked_again_without_it(model: Any, steps: Any, tmp_path: Path,
                                                                     state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.refuse_tool_choice = True
    model.script = [steps.call(("gpio_write", {"pin": "LD2", "value": 1})), steps.say("LD2 is on.")]
    with _agent(config, state) as agent:
        result = agent.turn("Turn on LD2.")
    assert result.response.endswith("\nLD2 is on.")
    assert [r.get("tool_choice") for r in model.requests] == [None, "none", None]


def test_a_write_to_a_pin_the_message_does_not_name_is_not_run(model: Any, steps: Any, tmp_path: Path,
                                                               state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.call(("gpio_write", {"pin": "PA5", "value": 1})),
                    steps.call(("gpio_write", {"pin": "D7", "value": 1})), steps.say("D7 is high.")]
    with _agent(config, state) as agent:
        result = agent.turn("Set D7 high.")
        writes = sim_writes(agent)
    assert writes == [("PA8", 1)]  # D7 is PA8; PA5 (LD2) was never driven
    first, second = result.tool_calls
    assert first.error is not None and "names pin D7 (= PA8)" in first.error and second.error is None


def test_an_action_still_answered_without_its_tool_says_nothing_ran(model: Any, steps: Any, tmp_path: Path,
                                                                    state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.say("The humidity is 70 %.")] * 2
    with _agent(config, state) as agent:
        result = agent.turn("How humid is it?")
    assert result.response.startswith("(No tool ran, so nothing was read or changed")
    assert not result.succeeded and len(model.requests) == 2
