"""With a daemon serving the state directory, the agent goes through it: tool calls (it owns the board),
memory engage and reflect, the response cache and the hardware context (it owns the databases)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent.assemble import open_agent
from edge_agent.cli import main
from edge_agent.config import load_settings
from edge_agent.hub.client import HubClient, SocketServices


def _edge_agent() -> list[str]:
    script = Path(sys.executable).with_name("edge-agent")
    return [str(script)] if script.exists() else [sys.executable, "-m", "edge_agent.cli"]


@pytest.fixture
def daemon(config: Path, state: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`edge-agent run` for the test's config and state directory, serving its socket."""
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    proc = subprocess.Popen([*_edge_agent(), "--config", str(config), "--state", str(state), "run", "--port", "0"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while HubClient.find(state) is None:  # the socket accepts connections
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the daemon did not start serving its socket")
            time.sleep(0.05)
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _open_files_under(folder: Path) -> list[str]:
    """Files under ``folder`` this process holds open."""
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(folder.resolve()) + os.sep):
            found.append(os.path.relpath(target, folder.resolve()))
    return sorted(found)


def test_tool_calls_reach_the_running_daemon(model: Any, steps: Any, config: Path, state: Path,
                                             capsys: Any, daemon: Any) -> None:
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("On.")]
    with open_agent(load_settings(config), state) as agent:
        result = agent.turn("turn the red led on")
        assert isinstance(agent.caller, SocketServices)
    assert result.tool_calls[0].error is None and result.response.endswith("set to 1 (high).\nOn.")
    # Another client of the same daemon sees the pin the agent drove.
    capsys.readouterr()
    assert main(["--config", str(config), "--state", str(state), "gpio", "read", "PA5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 1


def test_memory_cache_and_datasheets_are_the_daemons(model: Any, steps: Any, config: Path, state: Path,
                                                     capsys: Any, daemon: Any) -> None:
    question = "which pin drives the user led on the nucleo"
    model.script = [steps.say("PA5 drives the user LED.", usage={"prompt_tokens": 40, "completion_tokens": 7,
                                                                 "total_tokens": 47})]
    with open_agent(load_settings(config), state) as agent:
        first = agent.turn(question)
        ctx = agent.build(question)
        held = _open_files_under(state)
    assert first.response == "PA5 drives the user LED." and not first.cached
    # This process opened no database of the state dir but the agent's own chat history.
    assert all(f.startswith("agent" + os.sep) for f in held), held
    assert not (state / "agent").exists() or all("agent.db" in f for f in held)
    # The hardware context came from the daemon's datasheet index: the pin aliases of the board.
    assert "PA5" in ctx.prompt.user
    # The exchange landed in the daemon's memory: another client sees it through the daemon.
    capsys.readouterr()
    assert main(["--config", str(config), "--state", str(state), "memory", "recall", "user led", "--json"]) == 0
    recalled = json.loads(capsys.readouterr().out)
    entries = recalled["results"]
    assert any(e["category"] == "conversation" and "PA5 drives the user LED." in e["content"] for e in entries)

    # The identical question from a separate agent process is a hit, served by the daemon's cache.
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    out = subprocess.run([*_edge_agent(), "--config", str(config), "--state", str(state), "agent", "-m", question,
                          "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    second = json.loads(out.stdout)
    assert second["cached"] is True and second["response"] == "PA5 drives the user LED."
    assert len(model.requests) == 1  # no second provider call
    assert main(["--config", str(config), "--state", str(state), "cache", "stats"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["hits"] >= 1 and stats["entries"] == 1
