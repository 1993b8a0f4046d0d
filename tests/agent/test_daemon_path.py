"""With a daemon serving the state directory, the agent's tool calls go through it (it owns the board)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.cli import main
from edge_agent.config import load_settings
from edge_agent.hub.client import HubClient
from edge_agent.hub.tools import SocketToolCaller


def _edge_agent() -> list[str]:
    script = Path(sys.executable).with_name("edge-agent")
    return [str(script)] if script.exists() else [sys.executable, "-m", "edge_agent.cli"]


def test_tool_calls_reach_the_running_daemon(model: Any, steps: Any, config: Path, state: Path,
                                             capsys: Any) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    daemon = subprocess.Popen([*_edge_agent(), "--config", str(config), "--state", str(state), "run", "--port", "0"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while HubClient.find(state) is None:  # the socket accepts connections
            if daemon.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the daemon did not start serving its socket")
            time.sleep(0.05)
        model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("On.")]
        with open_agent(load_settings(config), state) as agent:
            result = agent.turn("turn the red led on")
            assert isinstance(agent.caller.inner, SocketToolCaller)
        assert result.tool_calls[0].error is None and result.response == "On."
        # Another client of the same daemon sees the pin the agent drove.
        capsys.readouterr()
        assert main(["--config", str(config), "--state", str(state), "gpio", "read", "PA5", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["value"] == 1
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(30)
