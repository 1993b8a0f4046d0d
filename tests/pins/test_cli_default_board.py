"""`pins resolve|which|list` on a device wired to one board need no --board; with several they ask for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import main


def test_the_one_configured_board_is_the_default(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The embedded defaults configure one board, the simulated NUCLEO-F401RE.
    assert main(["--state", str(state), "pins", "resolve", "red_led", "--json"]) == 0
    pin = json.loads(capsys.readouterr().out)
    assert (pin["board"], pin["name"]) == ("nucleo-f401re", "PA5")
    assert main(["--state", str(state), "pins", "list"]) == 0
    assert "PA5" in capsys.readouterr().out


def test_several_configured_boards_need_board(tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text('[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n\n'
                      '[[peripherals.boards]]\nboard = "rpi-4b"\ntransport = "sim"\n')
    assert main(["--state", str(state), "--config", str(config), "pins", "resolve", "red_led"]) == 1
    err = capsys.readouterr().err
    assert "pass --board" in err and "nucleo-f401re, rpi-4b" in err
    assert main(["--state", str(state), "--config", str(config), "pins", "which", "PA5", "--board",
                 "nucleo-f401re"]) == 0
