"""The one door: service actions reached in-process or through the daemon, errors crossing the socket whole,
and a CLI that never opens the hardware behind a running daemon's back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from edge_agent.bus.base import ReadOnlyPinError
from edge_agent.errors import (
    AmbiguousPinError,
    EdgeAgentError,
    InvalidArgumentError,
    NextStep,
    UnknownPinError,
    WriteRefusedError,
    error_from_wire,
    error_to_wire,
)
from edge_agent.hub.client import DaemonUnreachableError, SocketServices
from edge_agent.hub.connect import LocalOps, connect

SIM_BOARD = '[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n'


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "edge-agent.toml"
    path.write_text(SIM_BOARD)
    return path


def test_an_error_survives_the_wire_as_the_same_type_with_its_hint_and_fields() -> None:
    original = UnknownPinError("nucleo-f401re", "PZ9", ["PA9", "PB9"], ["board file", "board file"])
    wire = json.loads(json.dumps(error_to_wire(original)))  # what travels is JSON
    back = error_from_wire(wire)
    assert type(back) is UnknownPinError
    assert str(back) == str(original) and back.message() == original.message()
    assert back.hint == original.hint and isinstance(back.hint, NextStep)
    assert back.hint.for_reader("agent") == original.hint.for_reader("agent")
    assert (back.board, back.name, back.suggestions) == ("nucleo-f401re", "PZ9", ["PA9", "PB9"])


def test_an_error_class_this_process_cannot_import_arrives_as_its_nearest_known_base() -> None:
    wire = error_to_wire(WriteRefusedError("refused", adapter="sim://x"))
    wire.update(type="SomeFutureRefusal", module="edge_agent.not_a_module")
    wire["bases"] = ["WriteRefusedError", *wire["bases"]]  # type: ignore[misc]  # it derives from one we know
    back = error_from_wire(wire)
    assert type(back) is WriteRefusedError and back.adapter == "sim://x"
    assert isinstance(error_from_wire({"type": "Nope", "module": "x", "bases": [], "message": "m"}), EdgeAgentError)


def test_the_actions_in_process_check_their_arguments_and_run(config: Path, tmp_path: Path) -> None:
    from edge_agent.config import load_settings

    services = connect(tmp_path / "state", load_settings(config))
    assert isinstance(services, LocalOps)
    with services:
        wrote = services.call("gpio_write", {"pin": "red_led", "value": 1})
        assert (wrote["pin"], wrote["requested"], wrote["value"]) == ("PA5", "red_led", 1)
        with pytest.raises(InvalidArgumentError, match="valu"):
            services.call("gpio_write", {"pin": "red_led", "valu": 1})
        with pytest.raises(UnknownPinError):
            services.call("gpio_read", {"pin": "no_such_pin"})


def test_kept_open_in_process_one_store_serves_every_call_until_close(config: Path, tmp_path: Path) -> None:
    """An agent without a daemon keeps one store open across its turns, and no adapter until a tool runs."""
    from edge_agent.config import load_settings

    services = connect(tmp_path / "state", load_settings(config), keep=True)
    assert isinstance(services, LocalOps)
    with services:
        services.call("memory_store", {"key": "fan", "content": "the fan relay is on D7", "memory_type": "core",
                                       "importance": 0.5})
        with services.context.store(None) as first, services.context.store(None) as second:
            assert first is second
        found = services.call("memory_engage", {"query": "fan relay", "limit": 3})
        assert any("D7" in r["content"] for r in found["results"])
        assert services.runtime is None  # no tool called: no runtime, no adapter
        assert services.call_tool("gpio_read", {"pin": "red_led"})["pin"] == "PA5"
        assert services.runtime is not None
    with pytest.raises(EdgeAgentError):  # closed with the services
        first.get("fan")


def test_through_the_daemon_the_same_error_type_arrives_with_its_hint(
        daemon_factory: Any, config: Path, state: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    services = connect(state, lambda: pytest.fail("a routed call must not load settings"))  # type: ignore[arg-type]
    assert isinstance(services, SocketServices)
    assert services.call("gpio_read", {"pin": "red_led"})["pin"] == "PA5"
    with pytest.raises(UnknownPinError) as err:
        services.call("gpio_read", {"pin": "no_such_pin"})
    assert err.value.board == "nucleo-f401re" and err.value.hint is not None
    assert err.value.hint.tool == "hardware_board_info"
    with pytest.raises(ReadOnlyPinError) as refused:
        services.call("gpio_write", {"pin": "B1", "value": 1})  # the user button is an input
    assert refused.value.pin == "PC13" and refused.value.hint is not None
    assert refused.value.hint.arguments == {"pin": "PC13"} and "sim.press" not in str(refused.value)
    with pytest.raises(InvalidArgumentError):
        services.call("gpio_write", {"pin": "red_led", "value": 7})


def test_through_the_daemon_an_ambiguity_says_what_to_type_and_an_answer_keeps_its_notes(
        daemon_factory: Any, config: Path, state: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    services = connect(state, lambda: pytest.fail("a routed call must not load settings"))  # type: ignore[arg-type]
    assert isinstance(services, SocketServices)
    with pytest.raises(AmbiguousPinError) as err:  # usart1 and usart2 both have a TX
        services.call("pin_resolve", {"name": "TX", "board": "nucleo-f401re"})
    assert [tuple(c) for c in err.value.choices] == [("USART2 TX", "PA2"), ("USART1 TX", "PA9")]
    assert "USART2 TX = PA2" in str(err.value)
    record = services.call("pin_resolve", {"name": "pwm0", "board": "rpi-4b"})  # the 40-pin header's alias line
    assert record["name"] == "GPIO12" and "GPIO18" in record["notes"][0]


def test_a_running_daemon_without_a_socket_stops_the_cli_instead_of_opening_the_hardware(
        state: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from edge_agent.cli import main

    # A live daemon process (this one stands in for it) that serves no socket.
    (state / "daemon.json").write_text(json.dumps({"pid": os.getpid(), "socket": None, "config": None}))
    code = main(["--config", str(config), "--state", str(state), "gpio", "write", "red_led", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "did not open them itself" in err and f"pid {os.getpid()}" in err
    assert not (state / "sim").exists()  # the simulated board was never opened
    with pytest.raises(DaemonUnreachableError):
        connect(state, lambda: pytest.fail("must not get this far"))  # type: ignore[arg-type]
    # A daemon that was killed leaves daemon.json naming a process that is gone: the command runs here.
    (state / "daemon.json").write_text(json.dumps({"pid": 2**22 + 12345, "socket": None, "config": None}))
    assert main(["--config", str(config), "--state", str(state), "gpio", "write", "red_led", "1"]) == 0


#: Run edge-agent's CLI with these top-level packages made unimportable, as on an install without the extra.
_BLOCKED_RUN = """
import sys
blocked = set(sys.argv[1].split(","))
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
from edge_agent.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _blocked(blocked: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _BLOCKED_RUN, blocked, *argv], capture_output=True, text=True,
                          timeout=120)


def test_the_thin_client_needs_only_the_base_install(daemon_factory: Any, config: Path, state: Path) -> None:
    d = daemon_factory(config)
    d.wait_ready()
    # Not even pydantic: the routed command reads JSON; mcp, anyio, uvicorn, starlette are the daemon's.
    got = _blocked("mcp,anyio,uvicorn,starlette,pydantic,pydantic_core", "--config", str(config), "--state",
                   str(state), "gpio", "write", "red_led", "1")
    assert got.returncode == 0, got.stderr
    assert got.stdout == "PA5 (red_led) = 1\n" and got.stderr == ""


def test_a_daemon_that_cannot_serve_its_socket_does_not_start(config: Path, state: Path) -> None:
    got = _blocked("uvicorn", "--config", str(config), "--state", str(state), "run", "--no-http")
    assert got.returncode == 1
    assert "needs the mcp extra" in got.stderr and "edge-agent[linux,mcp]" in got.stderr
    assert not (state / "daemon.json").exists()


def test_the_configuration_note_is_said_in_status_not_on_every_routed_command(
        daemon_factory: Any, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.cli import main

    d = daemon_factory(None)  # the embedded defaults
    d.wait_ready()
    work = tmp_path / "work"
    work.mkdir()
    (work / "edge-agent.toml").write_text(SIM_BOARD)  # found on its own by every command run here
    monkeypatch.chdir(work)
    assert main(["--state", str(state), "gpio", "read", "red_led"]) == 0
    assert capsys.readouterr().err == ""  # routed, and nothing to say about it
    assert main(["--state", str(state), "status"]) == 0
    out = capsys.readouterr().out
    assert "note: commands run in the daemon under its configuration (embedded defaults)" in out
    assert str(work / "edge-agent.toml") in out
    # Named on the command line, a different file matters to the command: it is told at once.
    assert main(["--state", str(state), "--config", str(work / "edge-agent.toml"), "gpio", "read", "red_led"]) == 0
    assert "runs with the embedded defaults" in capsys.readouterr().err


def test_a_routed_command_needs_only_to_enter_the_state_directory(
        daemon_factory: Any, config: Path, state: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A member of the daemon's group may enter its state directory but not write it; the command is routed."""
    from edge_agent.cli import main

    d = daemon_factory(config)
    d.wait_ready()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: (
        False if Path(p) == state.resolve() and mode & os.W_OK else real_access(p, mode, **kw)))
    assert main(["--state", str(state), "gpio", "write", "red_led", "1"]) == 0
    assert "PA5 (red_led) = 1" in capsys.readouterr().out
    d.stop()
    assert main(["--state", str(state), "gpio", "write", "red_led", "1"]) != 0  # in process it must write there
    assert "not writable by this user" in capsys.readouterr().err
