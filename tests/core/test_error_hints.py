"""Errors carry their next step as data: a command for an operator, a tool for an agent."""

from __future__ import annotations

import pytest

from edge_agent.bus import open_adapter
from edge_agent.errors import EdgeAgentError, I2CNackError, NextStep, UnknownPinError
from edge_agent.mcp.messages import for_agent


def test_a_nack_names_the_scan_for_each_reader() -> None:
    sim = open_adapter("sim://nucleo-f401re", name="nucleo-f401re")
    try:
        with pytest.raises(I2CNackError) as info:
            sim.i2c().read(0x55, 1)
    finally:
        sim.close()
    exc = info.value
    assert exc.hint is not None and exc.hint.tool == "i2c_scan"
    assert exc.hint.command == "edge-agent bus scan --url sim://nucleo-f401re"
    assert "`edge-agent bus scan --url sim://nucleo-f401re`" in str(exc)  # the operator's form
    agent = for_agent(exc)
    assert "call i2c_scan" in agent and "edge-agent" not in agent
    assert agent.startswith(exc.message()) and str(exc).startswith(exc.message())


def test_an_unknown_pin_points_the_agent_at_the_board_listing_with_its_board() -> None:
    exc = UnknownPinError("nucleo-f401re", "PZ9", ["PA9"])
    assert exc.hint is not None
    assert (exc.hint.tool, dict(exc.hint.arguments)) == ("hardware_board_info", {"board": "nucleo-f401re"})
    assert "call hardware_board_info with board='nucleo-f401re'" in exc.explain("agent")
    assert "edge-agent pins list --board nucleo-f401re" in str(exc)


def test_a_step_with_no_tool_is_left_out_for_an_agent_and_no_text_is_rewritten() -> None:
    step = NextStep("to see attached boards", command="edge-agent bridge list")
    exc = EdgeAgentError("cannot open /dev/ttyACM0", hint=step)
    assert str(exc) == "cannot open /dev/ttyACM0; run `edge-agent bridge list` to see attached boards"
    assert for_agent(exc) == "cannot open /dev/ttyACM0"
    plain = EdgeAgentError("see `edge-agent bus scan --url sim://x` in the manual")  # text is never rewritten
    assert for_agent(plain) == str(plain) and plain.hint is None
