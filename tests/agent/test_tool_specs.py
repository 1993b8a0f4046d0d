"""The agent offers exactly the MCP server's tools: same names, descriptions and input schemas."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from edge_agent.agent.tools import COMPACT_SCHEMA_CHARS, COMPACT_TOOLS, openai_tool_specs, specs_chars
from edge_agent.config import Settings
from edge_agent.mcp.tools import TOOL_NAMES
from edge_agent.runtime import Runtime


def test_specs_equal_what_the_mcp_server_lists(state: Path) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK (extra 'mcp') is not installed")
    from edge_agent.mcp.server import build_server

    rt = Runtime.build(Settings(), state)
    try:
        listed = anyio.run(build_server(rt).list_tools)
    finally:
        rt.close()
    mcp = [{"name": t.name, "description": t.description, "parameters": t.input_schema} for t in listed]
    ours = [spec["function"] for spec in openai_tool_specs()]
    assert ours == mcp
    assert [t["name"] for t in ours] == list(TOOL_NAMES)
    assert all(spec["type"] == "function" for spec in openai_tool_specs())


def test_compact_tools_fit_their_budget() -> None:
    specs = openai_tool_specs(COMPACT_TOOLS)
    assert {s["function"]["name"] for s in specs} == set(COMPACT_TOOLS)
    assert specs_chars(specs) <= COMPACT_SCHEMA_CHARS


def test_an_invalid_call_is_the_same_error_for_the_agent_check_and_the_tool_caller(state: Path) -> None:
    from edge_agent.agent.tools import check_arguments
    from edge_agent.errors import EdgeAgentError, InvalidToolCallError, ToolCallError
    from edge_agent.hub.tools import LocalToolCaller

    assert issubclass(ToolCallError, EdgeAgentError) and issubclass(InvalidToolCallError, ToolCallError)
    with pytest.raises(InvalidToolCallError) as agent_side:
        check_arguments("gpio_write", {"pin": "PA5", "value": 1, "colour": "red"})
    rt = Runtime.build(Settings(), state)
    try:
        with LocalToolCaller(rt) as caller:
            with pytest.raises(InvalidToolCallError) as caller_side:
                caller.call_tool("gpio_write", {"pin": "PA5", "value": 1, "colour": "red"})
            with pytest.raises(ToolCallError) as refused:  # ran, and the board refused: not an invalid call
                caller.call_tool("gpio_write", {"pin": "no_such_pin", "value": 1})
            # A list sent as JSON text is read the same way on both sides.
            args = {"addr": "0x76", "register": 0xF4, "bytes": "[39]"}
            assert check_arguments("i2c_write", args)["bytes"] == [39]
            assert isinstance(caller.call_tool("i2c_write", args), dict)  # accepted and written
    finally:
        rt.close()
    assert agent_side.value.tool == caller_side.value.tool == refused.value.tool == "gpio_write"
    assert not isinstance(refused.value, InvalidToolCallError)


def test_compact_specs_keep_only_what_a_one_board_call_needs() -> None:
    from edge_agent.agent.tools import check_arguments, compact_spec

    full = {s["function"]["name"]: s for s in openai_tool_specs(COMPACT_TOOLS)}
    one = {n: compact_spec(s, boards=1)["function"] for n, s in full.items()}
    two = {n: compact_spec(s, boards=2)["function"] for n, s in full.items()}
    assert list(one["gpio_write"]["parameters"]["properties"]) == ["pin", "value"]
    assert one["gpio_write"]["parameters"]["required"] == ["pin", "value"]
    assert one["i2c_scan"]["parameters"]["properties"] == {}
    assert "sensor" not in one["sensor_read"]["parameters"]["properties"]  # a single allowed value
    assert "board" in two["gpio_write"]["parameters"]["properties"]  # two boards: the model must say which
    assert "adapter" not in two["gpio_write"]["parameters"]["properties"]
    assert "title" not in str(one) and "maxLength" not in str(one)
    small = specs_chars([{"type": "function", "function": f} for f in one.values()])
    assert small < specs_chars(list(full.values())) / 2
    for name, fn in one.items():  # names and descriptions as the MCP server's; every argument still accepted
        assert fn["description"] == full[name]["function"]["description"]
        assert set(fn["parameters"]["properties"]) <= set(full[name]["function"]["parameters"]["properties"])
    assert check_arguments("gpio_write", {"pin": "LD2", "value": 1, "board": "nucleo-f401re"})["board"] == \
        "nucleo-f401re"


def test_the_compact_system_prompt_has_the_small_model_rules_and_names_the_leds_and_buttons() -> None:
    from edge_agent.agent.loop import _board_hints
    from edge_agent.agent.prompt import system_prompt

    hints = _board_hints([("nucleo-f401re", "nucleo-f401re"), ("x", "no-such-board")])
    assert hints == ["On nucleo-f401re: LD2 = PA5 (LED), B1 = PC13 (button). Arduino names such as D7 can be "
                     "passed as they are."]
    compact = system_prompt([("nucleo-f401re", "nucleo-f401re")], compact=True, hints=hints)
    full = system_prompt([("nucleo-f401re", "nucleo-f401re")], hints=hints)
    assert "Rules:" in compact and "LD2 = PA5" in compact and "no tool" in compact
    assert "Rules:" not in full and "LD2 = PA5" not in full
    assert compact == system_prompt([("nucleo-f401re", "nucleo-f401re")], compact=True, hints=hints)  # stable
