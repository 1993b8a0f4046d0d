"""The daemon as the one owner of the hardware: CLI processes and tool callers reach it over <state>/hub.sock."""

from __future__ import annotations

import json
import signal
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from edge_agent.config import load_settings
from edge_agent.hub import open_tool_caller
from edge_agent.hub.client import HubClient
from edge_agent.hub.tools import LocalToolCaller, SocketToolCaller, ToolCallError

SIM_BOARD = '[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n'
WAIT_S = 60.0


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "edge-agent.toml"
    path.write_text(SIM_BOARD)
    return path


def cli(cmd: list[str], state: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, "--config", str(config), "--state", str(state), *args], capture_output=True,
                          text=True, timeout=WAIT_S)


def test_cli_commands_reach_the_running_daemon_and_share_its_board(daemon_factory: Any, edge_agent_cmd: list[str],
                                                                     state: Path, config: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    sock = state / "hub.sock"
    assert stat.S_ISSOCK(sock.stat().st_mode)
    assert stat.S_IMODE(sock.stat().st_mode) == 0o660
    assert json.loads((state / "daemon.json").read_text())["socket"] == str(sock)

    wrote = cli(edge_agent_cmd, state, config, "gpio", "write", "red_led", "1", "--json")
    assert wrote.returncode == 0, wrote.stderr
    assert json.loads(wrote.stdout) == {"pin": "red_led", "value": 1}
    read = cli(edge_agent_cmd, state, config, "gpio", "read", "PA5", "--json")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout) == {"pin": "PA5", "value": 1}  # the daemon's board, not a fresh one

    # A refusal comes back as the same one-line error and exit status as the direct path.
    bad = cli(edge_agent_cmd, state, config, "gpio", "write", "B1", "1")
    assert bad.returncode == 1 and bad.stderr.startswith("edge-agent: error: ") and "push-button" in bad.stderr

    # memory commands write through the daemon's open store
    stored = cli(edge_agent_cmd, state, config, "memory", "store", "--key", "k1", "--content", "the fan is on D7")
    assert stored.returncode == 0, stored.stderr
    got = cli(edge_agent_cmd, state, config, "memory", "get", "k1")
    assert json.loads(got.stdout)["content"] == "the fan is on D7"

    d.send(signal.SIGTERM)
    assert d.wait_exit() == 0
    assert not sock.exists()


def test_the_tool_caller_gives_the_same_results_and_errors_in_process_and_through_the_daemon(
        daemon_factory: Any, state: Path, config: Path) -> None:
    settings = load_settings(config)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("gpio_write", {"pin": "red_led", "value": 1}),
        ("gpio_read", {"pin": "PA5"}),
        ("gpio_write", {"pin": "PA5", "value": 5}),
        ("gpio_write", {"pin": "PA5"}),
        ("gpio_write", {"pin": "PA5", "value": 1, "colour": "red"}),
        ("gpio_write", {"pin": "no_such_pin", "value": 1}),
        ("i2c_write", {"addr": "0x76", "register": 0xF4, "bytes": "[39]"}),
        ("i2c_read", {"addr": "0x76", "register": "0xD0", "len": 1}),
    ]

    def run_all(caller: Any) -> list[Any]:
        out = []
        for name, args in calls:
            try:
                result = caller.call_tool(name, args)
                out.append(("ok", {k: v for k, v in result.items() if k != "capture"}))
            except ToolCallError as exc:
                out.append(("error", str(exc)))
        return out

    with open_tool_caller(settings, state) as local:
        assert isinstance(local, LocalToolCaller)
        direct = run_all(local)
    d = daemon_factory(config)
    d.wait_ready()
    with open_tool_caller(settings, state) as remote:
        assert isinstance(remote, SocketToolCaller)
        routed = run_all(remote)
    assert routed == direct
    kinds = [k for k, _ in direct]
    assert kinds == ["ok", "ok", "error", "error", "error", "error", "ok", "ok"]
    assert "unknown argument(s) 'colour'" in direct[4][1]
    assert direct[7][1]["data"] == [0x60]  # the BME280 chip id


def test_a_stale_socket_from_a_killed_daemon_is_replaced_and_clients_do_not_hang(
        daemon_factory: Any, edge_agent_cmd: list[str], state: Path, config: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(timeout=WAIT_S)
    assert (state / "hub.sock").exists()  # left behind
    assert HubClient.find(state) is None  # nobody accepts: not a daemon
    # Without a daemon the command opens the board itself, and the simulated board kept its state.
    read = cli(edge_agent_cmd, state, config, "gpio", "read", "PA5", "--json")
    assert read.returncode == 0, read.stderr
    d2 = daemon_factory(config)
    d2.wait_ready()
    assert HubClient.find(state) is not None
    d2.send(signal.SIGTERM)
    assert d2.wait_exit() == 0


def test_a_live_socket_is_never_taken_over(tmp_path: Path) -> None:
    import socket as socketlib

    from edge_agent.hub.server import SocketInUseError, bind_socket

    path = tmp_path / "hub.sock"
    listener = bind_socket(path)
    listener.listen(1)
    try:
        with pytest.raises(SocketInUseError):
            bind_socket(path)
        probe = socketlib.socket(socketlib.AF_UNIX)
        probe.connect(str(path))  # still the first listener's socket
        probe.close()
    finally:
        listener.close()
    replaced = bind_socket(path)  # now stale: replaced
    replaced.close()
