"""The daemon as the one owner of the hardware: CLI processes and tool callers reach it over <state>/hub.sock."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from edge_agent.config import load_settings
from edge_agent.hub import open_tool_caller
from edge_agent.hub.client import HubClient, SocketServices
from edge_agent.hub.connect import LocalOps
from edge_agent.hub.tools import ToolCallError

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
    assert json.loads(wrote.stdout) == {"adapter": "nucleo-f401re", "board": "nucleo-f401re", "pin": "PA5",
                                        "requested": "red_led", "value": 1}
    read = cli(edge_agent_cmd, state, config, "gpio", "read", "PA5", "--json")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["value"] == 1  # the daemon's board, not a fresh one

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
        assert isinstance(local, LocalOps)
        direct = run_all(local)
    d = daemon_factory(config)
    d.wait_ready()
    with open_tool_caller(settings, state) as remote:
        assert isinstance(remote, SocketServices)
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

    from edge_agent.mcp.socket_server import SocketInUseError, bind_socket

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


def test_without_a_daemon_the_simulated_board_keeps_its_state_between_commands(
        state: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from edge_agent.cli import main

    base = ["--config", str(config), "--state", str(state)]
    assert main([*base, "gpio", "read", "PA5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0
    assert main([*base, "gpio", "write", "red_led", "1"]) == 0
    assert main([*base, "i2c", "write", "0x76", "0x27", "--register", "0xF4"]) == 0
    capsys.readouterr()
    assert main([*base, "gpio", "read", "PA5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 1
    assert main([*base, "i2c", "read", "0x76", "--register", "0xF4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"] == [0x27]
    # another state directory is another board
    other = state.parent / "other-state"
    assert main(["--config", str(config), "--state", str(other), "gpio", "read", "PA5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0


def test_a_damaged_board_state_file_is_reported_and_the_board_starts_from_its_scenario(
        state: Path, config: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    from edge_agent.cli import main

    base = ["--config", str(config), "--state", str(state)]
    assert main([*base, "gpio", "write", "red_led", "1"]) == 0
    capsys.readouterr()
    saved = next((state / "sim").glob("nucleo-f401re-*.json"))
    saved.write_text('{"lines": ')  # cut short, as by a power cut during a write of an older version
    assert main([*base, "gpio", "read", "PA5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0
    assert "ignoring the saved board state" in caplog.text


def _bridge_config(tmp_path: Path, fw_path: str) -> Path:
    config = tmp_path / "bridge.toml"
    config.write_text(
        '[[peripherals.boards]]\nboard = "nucleo-f401re"\nname = "bench"\ntransport = "serial"\n'
        f'url = "bridge://{fw_path}?timeout_scale=20"\n\n'
        '[hardware.safety.adapters.bench]\nwritable_gpio = ["LD2"]\n')
    return config


def test_many_cli_processes_and_a_stdio_mcp_client_share_one_daemon_on_the_bridge_firmware(
        host_firmware: Any, daemon_factory: Any, edge_agent_cmd: list[str], state: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    config = _bridge_config(tmp_path, host_firmware.path)
    d = daemon_factory(config)
    d.wait_ready()
    base = [*edge_agent_cmd, "--config", str(config), "--state", str(state)]
    n = 6
    procs = []
    for i in range(n):
        procs.append(subprocess.Popen([*base, "gpio", "write", "red_led", str(i % 2), "--json"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        procs.append(subprocess.Popen([*base, "gpio", "read", "D13", "--json"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        procs.append(subprocess.Popen([*base, "memory", "store", "--key", f"cli-{i}", "--content", f"note {i}"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    mcp_results: dict[str, Any] = {}

    async def mcp_client() -> None:
        params = StdioServerParameters(command=base[0], args=[*base[1:], "mcp"], env=dict(os.environ))
        async with stdio_client(params) as (r, w), ClientSession(r, w, read_timeout_seconds=60) as s:
            await s.initialize()
            await s.list_tools()
            for i in range(n):
                res = await s.call_tool("gpio_write", {"pin": "red_led", "value": i % 2})
                assert not res.is_error, res.content
                res = await s.call_tool("memory_store", {"content": f"from mcp {i}", "title": f"mcp-{i}"})
                assert not res.is_error, res.content
            res = await s.call_tool("gpio_read", {"pin": "PA5"})
            mcp_results["read"] = res.structured_content

    anyio.run(mcp_client)
    for p in procs:
        out, err = p.communicate(timeout=WAIT_S)
        assert p.returncode == 0, err
    assert mcp_results["read"]["pin"] == "PA5" and mcp_results["read"]["value"] in (0, 1)
    # No lost writes: every process's entry is in the daemon's store.
    listed = cli(edge_agent_cmd, state, config, "memory", "list", "--limit", "100", "--json")
    keys = {e["key"] for e in json.loads(listed.stdout)}
    assert {f"cli-{i}" for i in range(n)} | {f"mcp-{i}" for i in range(n)} <= keys
    # The link saw no protocol trouble, and the last write is what the board reports.
    assert cli(edge_agent_cmd, state, config, "gpio", "write", "red_led", "1").returncode == 0
    read = cli(edge_agent_cmd, state, config, "gpio", "read", "D13", "--json")
    assert json.loads(read.stdout)["value"] == 1
    d.send(signal.SIGTERM)
    assert d.wait_exit() == 0


def test_a_port_held_by_another_process_names_it(host_firmware: Any, edge_agent_cmd: list[str], state: Path,
                                                 tmp_path: Path) -> None:
    from edge_agent.bus import open_adapter

    config = _bridge_config(tmp_path, host_firmware.path)
    with open_adapter(f"bridge://{host_firmware.path}"):
        busy = cli(edge_agent_cmd, state, config, "gpio", "read", "D13")
    assert busy.returncode == 1
    assert "in use by another process" in busy.stderr and f"pid {os.getpid()}:" in busy.stderr


def _connections(path: Path) -> int:
    """Accepted connections on the socket at ``path`` (connected entries of /proc/net/unix)."""
    count = 0
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[7] == str(path) and fields[5] == "03":
            count += 1
    return count


def test_a_client_gets_a_clear_error_when_the_daemon_dies_mid_operation(
        daemon_factory: Any, edge_agent_cmd: list[str], state: Path, tmp_path: Path) -> None:
    import time

    config = tmp_path / "watch.toml"
    config.write_text(SIM_BOARD + '\n[[watch]]\nname = "slow"\ninterval_s = 0.25\nwindow = 400\n'
                      'rule = { kind = "summary", every_s = 600 }\n')
    d = daemon_factory(config)
    d.wait_ready()
    sock = state / "hub.sock"
    client = subprocess.Popen([*edge_agent_cmd, "--config", str(config), "--state", str(state), "watch", "run-once",
                               "slow", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + WAIT_S
    while _connections(sock) == 0:  # the request is with the daemon, which samples for 100 s
        assert client.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(timeout=WAIT_S)
    out, err = client.communicate(timeout=WAIT_S)
    assert client.returncode == 1 and out == ""
    assert err.startswith("edge-agent: error: the edge-agent daemon") and "stopped while handling" in err
    assert "Traceback" not in err
    # Nothing half-written: the store opens clean without the daemon and holds no capture of the window.
    health = cli(edge_agent_cmd, state, config, "memory", "health")
    assert health.returncode == 0 and json.loads(health.stdout)["integrity"] == "ok"
    stats = json.loads(cli(edge_agent_cmd, state, config, "memory", "stats").stdout)
    assert stats["captures"] == 0


def test_watchdog_pings_keep_coming_while_a_sighup_reload_rebuilds_the_index(daemon_factory: Any,
                                                                             tmp_path: Path) -> None:
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    for i in range(400):  # enough text that re-indexing takes many watchdog periods
        body = "\n".join(f"Register 0x{j:02X} of part {i} controls channel {j} with gain {i * j % 97} dB; "
                         f"pin PA{j % 16} routes signal {i}-{j}." for j in range(60))
        (sheets / f"part{i:03d}.md").write_text(f"# Part {i}\n\n## Registers\n\n{body}\n")
    config = tmp_path / "edge-agent.toml"
    config.write_text(SIM_BOARD)
    d = daemon_factory(config, watchdog_usec=300_000)
    d.wait_ready()
    config.write_text(f'[peripherals]\ndatasheet_dir = "{sheets.as_posix()}"\n\n' + SIM_BOARD)
    d.send(signal.SIGHUP)
    d.notify.expect("RELOADING", "1")
    during: list[dict[str, str]] = []
    while True:
        msg = d.notify.expect_any()
        if msg.get("READY") == "1":
            break
        during.append(msg)
    assert any(m.get("WATCHDOG") == "1" for m in during), "no watchdog ping while the reload ran"
    assert d.stop() == 0
    assert "datasheet index rebuilt" in d.log()


def test_status_and_watch_list_come_from_the_running_daemon(daemon_factory: Any, edge_agent_cmd: list[str],
                                                            state: Path) -> None:
    # A damaged memory database: the daemon sets it aside at start, and `status` says so.
    db = state / "workspaces" / "default" / "memory" / "memory.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not an sqlite file at all\n" * 200)
    d = daemon_factory(None)  # embedded defaults: the demo watch runs
    d.wait_ready()
    base = [*edge_agent_cmd, "--state", str(state)]
    status = json.loads(subprocess.run([*base, "status", "--json"], capture_output=True, text=True,
                                       timeout=WAIT_S).stdout)
    assert status["running"] is True and status["daemon"]["pid"] == d.proc.pid
    assert Path(status["memory"]["recovered_from"]).name.startswith("memory.db.corrupt-")
    text = subprocess.run([*base, "status"], capture_output=True, text=True, timeout=WAIT_S).stdout
    assert "found damaged" in text
    watches = json.loads(subprocess.run([*base, "watch", "list", "--json"], capture_output=True, text=True,
                                        timeout=WAIT_S).stdout)
    assert [w["name"] for w in watches] == ["demo-bme280"]
    assert d.stop() == 0


def test_routed_commands_print_what_the_direct_path_prints(daemon_factory: Any, edge_agent_cmd: list[str],
                                                           tmp_path: Path, config: Path) -> None:
    commands = [
        ["gpio", "read", "PA5", "--json"],
        ["gpio", "write", "red_led", "1", "--json"],
        ["i2c", "read", "0x76", "--register", "0xD0", "--length", "2", "--json"],
        ["i2c", "write", "0x76", "0x27", "--register", "0xF4", "--json"],
        ["spi", "transfer", "0x9F", "0", "0", "--json"],
        ["bus", "scan", "--json"],
        ["gpio", "read", "PA5", "--adapter", "nope"],
        ["gpio", "write", "B1", "1"],
        ["watch", "list", "--json"],
        ["memory", "forget", "no-such-key"],
        ["cache", "stats"],
    ]

    def run_all(state: Path) -> list[tuple[int, str, str]]:
        out = []
        for args in commands:
            p = cli(edge_agent_cmd, state, config, *args)
            out.append((p.returncode, p.stdout.replace(str(state), "STATE"), p.stderr.replace(str(state), "STATE")))
        return out

    direct_state, routed_state = tmp_path / "direct", tmp_path / "routed"
    direct = run_all(direct_state)
    d = daemon_factory(config, state_dir=routed_state)
    d.wait_ready()
    routed = run_all(routed_state)
    assert routed == direct
    assert [code for code, _, _ in direct] == [0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0]


def test_a_command_given_another_config_than_the_daemons_says_which_one_ran(
        daemon_factory: Any, edge_agent_cmd: list[str], state: Path, config: Path, tmp_path: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    same = cli(edge_agent_cmd, state, config, "gpio", "read", "PA5")
    assert same.returncode == 0 and same.stderr == ""
    other = tmp_path / "other.toml"
    other.write_text(SIM_BOARD)
    noted = cli(edge_agent_cmd, state, other, "gpio", "read", "PA5")
    assert noted.returncode == 0
    assert "note: the daemon serving" in noted.stderr and str(config.resolve()) in noted.stderr
    assert str(other.resolve()) in noted.stderr


def test_the_stdio_relay_answers_each_request_with_an_error_once_the_daemon_is_gone(
        daemon_factory: Any, edge_agent_cmd: list[str], state: Path, config: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    relay = subprocess.Popen([*edge_agent_cmd, "--config", str(config), "--state", str(state), "mcp"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert relay.stdin is not None and relay.stdout is not None
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        relay.stdin.write(json.dumps(init).encode() + b"\n")
        relay.stdin.flush()
        assert json.loads(relay.stdout.readline())["id"] == 1
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait(timeout=WAIT_S)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "gpio_read", "arguments": {"pin": "PA5"}}}
        relay.stdin.write(json.dumps(call).encode() + b"\n")
        relay.stdin.flush()
        answer = json.loads(relay.stdout.readline())
        assert answer["id"] == 2 and "edge-agent daemon" in answer["error"]["message"]
        relay.stdin.close()
        assert relay.wait(timeout=WAIT_S) == 0
    finally:
        if relay.poll() is None:
            relay.kill()
            relay.wait()


def _key_tree(value: Any) -> Any:
    """The keys of a JSON object, recursively wherever the value is itself an object."""
    if not isinstance(value, dict):
        return None
    return {k: _key_tree(v) for k, v in value.items()}


def _same_keys(a: Any, b: Any, where: str) -> None:
    assert isinstance(a, dict) and isinstance(b, dict), where
    assert sorted(a) == sorted(b), f"{where}: {sorted(set(a) ^ set(b))}"
    for k in a:
        if isinstance(a[k], dict) and isinstance(b[k], dict):
            _same_keys(a[k], b[k], f"{where}.{k}")


def test_status_json_has_the_same_keys_through_the_daemon_as_without_it(
        daemon_factory: Any, edge_agent_cmd: list[str], tmp_path: Path, config: Path) -> None:
    direct_state, routed_state = tmp_path / "direct", tmp_path / "routed"
    direct = json.loads(cli(edge_agent_cmd, direct_state, config, "status", "--json").stdout)
    d = daemon_factory(config, state_dir=routed_state)
    d.wait_ready()
    routed = json.loads(cli(edge_agent_cmd, routed_state, config, "status", "--json").stdout)
    assert d.stop() == 0
    assert (direct["running"], routed["running"]) == (False, True)
    assert sorted(direct) == sorted(routed)
    _same_keys(direct["components"], routed["components"], "components")
    assert {"watch", "socket", "mcp_http"} <= set(direct["components"])
    _same_keys(direct["daemon"], routed["daemon"], "daemon")
    assert [a["name"] for a in direct["adapters"]] == [a["name"] for a in routed["adapters"]] == ["nucleo-f401re"]
    for off, live in zip(direct["adapters"], routed["adapters"], strict=True):
        _same_keys(off, live, f"adapters.{live['name']}")
    assert direct["adapters"][0]["ok"] is None and routed["adapters"][0]["ok"] is True
    assert direct["components"]["mcp_http"]["url"] is None and routed["components"]["mcp_http"]["url"]


def test_a_state_directory_the_user_may_not_enter_is_named_with_the_group_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As on a real kernel for a non-root user: stat() of <state>/hub.sock fails with EACCES when the
    # service's state directory is 0700 (tests run as root, which the kernel never refuses).
    from edge_agent.hub import client

    real_exists = Path.exists

    def refused(self: Path, *args: Any, **kwargs: Any) -> bool:
        if self.parent == tmp_path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_exists(self, *args, **kwargs)

    monkeypatch.setattr(Path, "exists", refused)
    with pytest.raises(client.HubError, match=r"may not enter .*StateDirectoryMode=0710"):
        HubClient.find(tmp_path)
