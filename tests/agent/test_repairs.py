"""Small-model slips seen with real 0.5B-1.5B models, repaired deterministically: the schema or an
earlier result copied as a call's arguments, several calls and copied results in one text reply, and a
reply that tries to be a call and cannot be read. The real openai SDK against the scripted server, the
real runtime on the simulated board."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.agent.tools import check_arguments
from edge_agent.config import load_settings
from edge_agent.errors import InvalidToolCallError

from .conftest import sim_writes, tool_body


def _tool_results(request: dict[str, Any]) -> list[Any]:
    return [tool_body(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def _turn(config: Path, state: Path, message: str) -> tuple[Any, list[tuple[str, int]]]:
    with open_agent(load_settings(config), state) as agent:
        result = agent.turn(message)
        return result, sim_writes(agent)


# --- the tool's schema sent as its arguments ------------------------------------------------------------


def test_a_copied_schema_as_i2c_scan_arguments_runs_the_scan_with_a_note(model: Any, steps: Any, config: Path,
                                                                         state: Path) -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    model.script = [steps.call(("i2c_scan", schema)), steps.say("Five devices.")]
    result, _ = _turn(config, state, "scan the i2c bus")
    rec = result.tool_calls[0]
    assert rec.error is None and rec.arguments == {} and 118 in rec.result["addresses"]
    body = _tool_results(model.requests[1])[0]
    assert "JSON schema" in body["note"] and body["addresses_hex"][-1] == "0x76"


def test_a_copied_schema_naming_a_default_address_reads_that_address(model: Any, steps: Any, config: Path,
                                                                     state: Path) -> None:
    schema = {"type": "object", "properties": {"addr": {"type": "integer", "default": 118}}}
    model.script = [steps.call(("sensor_read", schema)), steps.say("22.5 C.")]
    result, _ = _turn(config, state, "read the temperature")
    rec = result.tool_calls[0]
    assert rec.error is None and rec.arguments == {"addr": 118} and rec.result["addr_hex"] == "0x76"
    assert "addr=118" in _tool_results(model.requests[1])[0]["note"]


def test_a_schema_keyword_beside_real_arguments_is_dropped(model: Any, steps: Any, config: Path, state: Path) -> None:
    model.script = [steps.call(("sensor_read", {"addr": 118, "additionalProperties": False})), steps.say("Done.")]
    result, _ = _turn(config, state, "read the temperature")
    assert result.tool_calls[0].error is None and result.tool_calls[0].arguments == {"addr": 118}
    assert "additionalProperties" in _tool_results(model.requests[1])[0]["note"]


def test_a_copied_schema_never_supplies_a_write(model: Any, steps: Any, config: Path, state: Path) -> None:
    # A write takes its pin and value only as sent: a schema's default is never written.
    schema = {"type": "object", "properties": {"pin": {"default": "PA5"}, "value": {"const": 1}}}
    model.script = [steps.call(("gpio_write", schema)), steps.say("Could not.")]
    result, writes = _turn(config, state, "turn LD2 on")
    assert writes == [] and "pin" in (result.tool_calls[0].error or "")


def test_mcp_clients_stay_strict_about_a_schema_as_arguments() -> None:
    with pytest.raises(InvalidToolCallError, match="has no argument"):
        check_arguments("i2c_scan", {"type": "object", "properties": {}, "additionalProperties": False})


# --- an earlier result sent back as the arguments -------------------------------------------------------


@pytest.mark.parametrize("pin,requested,written", [("PA5", "PA5", "PA5"), ("PA5", "LD2", "PA5")])
def test_an_echoed_result_as_a_write_drops_only_the_result_keys(model: Any, steps: Any, config: Path, state: Path,
                                                                pin: str, requested: str, written: str) -> None:
    echoed = {"adapter": "nucleo-f401re", "board": "nucleo-f401re", "pin": pin, "requested": requested, "value": 1}
    model.script = [steps.call(("gpio_write", echoed)), steps.say("LD2 is on.")]
    result, writes = _turn(config, state, "turn LD2 on")
    rec = result.tool_calls[0]
    assert rec.error is None and "requested" not in rec.arguments
    assert writes == [(written, 1)]  # the pin and value are the result's own: nothing else is written
    assert "ignored requested" in _tool_results(model.requests[1])[0]["note"]


def test_result_keys_are_kept_and_refused_when_the_rest_is_no_call(model: Any, steps: Any, config: Path,
                                                                  state: Path) -> None:
    model.script = [steps.call(("gpio_write", {"requested": "PA5", "value": 1})), steps.say("Could not.")]
    result, writes = _turn(config, state, "turn LD2 on")
    assert writes == [] and "has no argument requested" in (result.tool_calls[0].error or "")


# --- several calls and copied results in one text reply --------------------------------------------------


def test_a_text_reply_with_a_call_its_copied_result_and_the_call_again_runs_once(
        model: Any, steps: Any, config: Path, state: Path) -> None:
    call = '{"name": "gpio_write", "arguments": {"pin": "PA5", "value": 1}}'
    echoed = '{"adapter": "nucleo-f401re", "board": "nucleo-f401re", "pin": "PA5", "requested": "PA5", "value": 1}}'
    model.script = [steps.say(f"{call}\n{echoed}\n{call}\n{echoed}\n{call}\n" + '{"adapter": "nucl'),
                    steps.say("LD2 is on.")]
    result, writes = _turn(config, state, "turn LD2 on")
    assert writes == [("PA5", 1)]
    assert [(t.name, t.error) for t in result.tool_calls] == [("gpio_write", None)]
    note = _tool_results(model.requests[1])[0]["note"]
    assert "not a call" in note and "identical" in note
    names = [c["function"]["name"] for m in model.requests[1]["messages"] for c in m.get("tool_calls") or []]
    assert names == ["gpio_write"]


def test_two_different_calls_in_one_text_reply_both_run(model: Any, steps: Any, config: Path, state: Path) -> None:
    text = ('{"name": "gpio_write", "arguments": {"pin": "PA5", "value": 1}}\n'
            '{"name": "gpio_write", "arguments": {"pin": "PA5", "value": 0}}\n'
            '{"name": "gpio_write", "arguments": {"pin": "PA5", "value": 1}}')
    model.script = [steps.say(text), steps.say("Blinked.")]
    _, writes = _turn(config, state, "blink LD2 once and leave it on")
    assert writes == [("PA5", 1), ("PA5", 0), ("PA5", 1)]


# --- a reply that tries to be a call and cannot be read --------------------------------------------------


def test_unreadable_calls_are_not_tool_calls_and_no_invalid_name_is_sent(model: Any, steps: Any, config: Path,
                                                                         state: Path) -> None:
    broken = '{"name": "gpio_read", "arguments": {"pin": "PC13"'
    model.script = [steps.say(broken), steps.say(broken), steps.say("I could not read it.")]
    result, _ = _turn(config, state, "read the button")
    assert result.tool_calls == [] and result.rounds == 0
    assert sum("not a readable tool call" in n for n in result.notes) == 2
    sent = json.dumps([m for r in model.requests for m in r["messages"]])
    assert '"invalid"' not in sent and '"name": ""' not in sent
    # the second unreadable reply ends the calling: the answer is asked for, with no call possible
    assert model.requests[2]["tool_choice"] == "none"
