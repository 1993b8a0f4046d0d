"""Global options (--state, --config, --debug, -v) work before or after the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.cli import build_parser, main


def test_state_after_the_command_is_the_state_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "after"
    assert main(["status", "--json", "--state", str(state)]) == 0
    assert json.loads(capsys.readouterr().out)["state_dir"] == str(state)


def test_config_after_a_nested_command_is_loaded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text("[memory]\nhalf_lfe_days = 3\n")  # invalid on purpose: proves the file was read
    assert main(["memory", "list", "--state", str(tmp_path / "s"), "--config", str(config)]) == 1
    assert "half_lfe_days" in capsys.readouterr().err


def test_an_option_given_before_the_command_is_not_reset_by_the_subcommand_defaults(tmp_path: Path) -> None:
    args = build_parser().parse_args(["--state", str(tmp_path), "--debug", "-vv", "memory", "list"])
    assert args.state == str(tmp_path) and args.debug is True and args.verbose == 2
    args = build_parser().parse_args(["memory", "list", "--debug"])
    assert args.debug is True and args.verbose == 0 and args.state is None
