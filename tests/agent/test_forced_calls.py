"""An action's calls forced by a schema: the request keeps one tool block (the server's cached prefix),
and its `response_format` narrows the reply to a call of the tools, pins and level the message asks for,
until each ran (the real openai SDK against the scripted server, the real runtime on the simulated board)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.choice import asked_level, still_needed
from edge_agent.agent.prompt import pins_only
from edge_agent.agent.toolmode import call_schema
from edge_agent.agent.toolset import build_specs
from edge_agent.config import load_settings

from .conftest import sim_writes
from .test_plan import forced


def _agent(config: Path, state: Path) -> Any:
    return open_agent(load_settings(config), state)


def test_each_named_pin_is_forced_until_it_was_written(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.call(("gpio_write", {"pin": "LD2", "value": 1})),
                    steps.call(("gpio_write", {"pin": "D7", "value": 1})), steps.say("LD2 and D7 are high.")]
    with _agent(config, state) as agent:
        result = agent.turn("Turn LD2 on and set D7 high.")
        writes = sim_writes(agent)
    assert [t.error for t in result.tool_calls] == [None, None] and result.response.endswith("\nLD2 and D7 are high.")
    assert forced(model.requests[0]) == {"gpio_write": {"pin": ["LD2", "D7"], "value": [1]}}
    assert forced(model.requests[1]) == {"gpio_write": {"pin": ["D7"], "value": [1]}}  # LD2 is done
    assert "response_format" not in model.requests[2] and model.requests[2]["tool_choice"] == "none"
    assert writes == [("PA5", 1), ("PA8", 1)]


def test_a_server_that_refuses_the_schema_gets_tool_choice_required(model: Any, steps: Any, tmp_path: Path,
                                                                    state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.refuse_response_format = True
    model.script = [steps.call(("i2c_scan", {})), steps.say("Five devices answer.")]
    with _agent(config, state) as agent:
        result = agent.turn("Which devices respond on the I2C bus?")
    assert result.response.endswith("\nFive devices answer.") and result.tool_calls[0].name == "i2c_scan"
    assert "response_format" in model.requests[0]  # refused (HTTP 400), then:
    assert "response_format" not in model.requests[1] and model.requests[1]["tool_choice"] == "required"


def test_a_sensor_read_is_forced_to_the_address_the_message_names(model: Any, steps: Any, tmp_path: Path,
                                                                  state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.call(("sensor_read", {"addr": 0x76})), steps.say("22.5 C."),
                    steps.call(("sensor_read", {})), steps.say("22.5 C.")]
    with _agent(config, state) as agent:
        agent.turn("What temperature does the sensor at 0x76 read?")
        agent.turn("How warm is it right now?")
    assert forced(model.requests[0]) == {"sensor_read": {"addr": [0x76]}}
    assert forced(model.requests[2]) == {"sensor_read": {}}
    args = model.requests[2]["response_format"]["json_schema"]["schema"]["anyOf"][0]["properties"]["arguments"]
    assert "addr" not in args["properties"]


def test_a_call_the_answer_does_not_need_is_not_forced(model: Any, steps: Any, tmp_path: Path, state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, tool_choice=None, compact=True)
    model.script = [steps.say("Bonjour !")]
    with _agent(config, state) as agent:
        assert agent.turn("Say hello in French.").response == "Bonjour !"
    assert "response_format" not in model.requests[0] and "tools" not in model.requests[0]


def test_the_call_schema_admits_only_calls_of_the_chosen_tools() -> None:
    specs = list(build_specs(True, 1).values())
    schema = call_schema(specs, ["gpio_write"], {"pin": ["D7"], "value": [0]})
    one = schema["anyOf"][0]
    assert one["properties"]["name"] == {"const": "gpio_write"} and one["additionalProperties"] is False
    args = one["properties"]["arguments"]
    assert args["properties"]["pin"]["enum"] == ["D7"] and args["properties"]["value"]["enum"] == [0]
    assert args["additionalProperties"] is False and set(args["required"]) == {"pin", "value"}
    assert schema["anyOf"][1]["items"] == one and schema["anyOf"][1]["maxItems"] == 4
    both = call_schema(specs, ["i2c_scan", "sensor_read"])
    assert [a["properties"]["name"]["const"] for a in both["anyOf"][0]["anyOf"]] == ["i2c_scan", "sensor_read"]
    sensor = call_schema(specs, ["sensor_read"])["anyOf"][0]["properties"]["arguments"]
    assert sensor["properties"] == {}  # no address named: the tool's default, not any number the type allows
    named = call_schema(specs, ["sensor_read"], {"addr": [0x77]})["anyOf"][0]["properties"]["arguments"]
    assert named["properties"]["addr"]["enum"] == [0x77]
    with pytest.raises(ValueError, match="names none of the tools"):
        call_schema(specs, ["spi_transfer"])


def test_compact_pin_arguments_are_names_only() -> None:
    specs = build_specs(True, 1)
    for tool, arg in (("gpio_write", "pin"), ("gpio_read", "pin"), ("pin_resolve", "name")):
        prop = specs[tool]["function"]["parameters"]["properties"][arg]
        assert prop["type"] == "string" and "17" not in json.dumps(prop), tool
    assert specs["gpio_write"]["function"]["parameters"]["properties"]["value"]["enum"] == [0, 1]
    addr = specs["sensor_read"]["function"]["parameters"]["properties"]["addr"]
    assert addr["type"] == "integer" and addr["default"] == 0x76  # a number: never a chip's name


@pytest.mark.parametrize("message,level", [
    ("Turn the fan on.", 1), ("Set D7 high.", 1), ("Switch LD2 off.", 0), ("Drive pin D4 low.", 0),
    ("Turn LD2 on and D7 off.", None), ("Toggle D7.", None),
])
def test_the_level_a_write_asks_for(message: str, level: int | None) -> None:
    assert asked_level(message) == level


def test_what_an_action_still_needs() -> None:
    assert still_needed(["gpio_write"], ["LD2", "D7"], [("gpio_write", {"pin": "ld2", "value": 1})]) == \
        (["gpio_write"], ["D7"])
    assert still_needed(["gpio_write"], ["LD2"], [("gpio_write", {"pin": "LD2", "value": 1})]) == ([], [])
    assert still_needed(["gpio_write"], [], []) == (["gpio_write"], [])
    assert still_needed(["gpio_write", "sensor_read"], [], [("gpio_write", {"pin": "PB5", "value": 1})]) == \
        (["sensor_read"], [])


def test_an_action_keeps_the_pin_index_not_the_datasheets() -> None:
    context = "[Pin aliases for query]\nLD2 = PA5\n\n[Hardware documentation]\n--- bme280.md ---\nregisters"
    assert pins_only(context) == "[Pin aliases for query]\nLD2 = PA5"
    assert pins_only("[Hardware documentation]\n--- bme280.md ---\nregisters") == ""
