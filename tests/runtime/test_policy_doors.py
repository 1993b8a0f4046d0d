"""The write policy through the CLI doors: a command in this process, the same command routed through a running
daemon, `config check`, and a daemon that refuses to start on an allow-list entry that names no single pin."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from edge_agent.cli import main

WAIT_S = 60
POLICY = ('[[peripherals.boards]]\nboard = "nucleo-f401re"\nname = "bench"\ntransport = "sim"\n\n'
          '[hardware.safety.adapters.bench]\nwritable_gpio = ["red_led"]\nwritable_i2c = ["0x50:0x00", "0x76:0xF2"]\n')


@pytest.fixture
def policy_config(tmp_path: Path) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(POLICY)
    return path


def _run(cmd: list[str], state: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, "--config", str(config), "--state", str(state), *args], capture_output=True,
                          text=True, timeout=WAIT_S)


def test_the_cli_in_process_checks_every_byte_mode_and_line(policy_config: Path, state: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--config", str(policy_config), "--state", str(state)]
    assert main([*base, "i2c", "write", "0x50", "0x00", "0xA1", "0xA2", "0xA3", "0xA4"]) != 0
    assert '"0x50:0x00-0x03"' in capsys.readouterr().err
    assert main([*base, "i2c", "write", "0x76", "0xF2", "0x01", "0xE0", "0xB6"]) != 0
    assert "0xE0" in capsys.readouterr().err
    assert main([*base, "i2c", "read", "0x50", "--register", "0x00", "-n", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"] == [0xFF] * 4  # the EEPROM kept its blank contents
    assert main([*base, "gpio", "read", "PA6", "--pull", "down"]) != 0
    assert "pull down" in capsys.readouterr().err
    assert main([*base, "gpio", "read", "PA6"]) == 0  # a read without a pull change
    assert main([*base, "gpio", "write", "13", "1"]) == 0  # 13 is D13 = PA5, the line red_led names
    assert main([*base, "gpio", "write", "PA6", "1"]) != 0
    capsys.readouterr()
    assert main([*base, "bus", "info", "--json"]) == 0
    assert '"red_led -> PA5"' in capsys.readouterr().out  # writes.writable_gpio_resolved


def test_config_check_shows_resolved_pins_and_rejects_a_disputed_name(policy_config: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(policy_config)]) == 0
    assert "writable_gpio = [red_led -> PA5]" in capsys.readouterr().out
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    (sheets / "generic-aa-notes.md").write_text("# Board notes\n\n## Pin Aliases\n\n- `red_led`: PA6\n")
    (sheets / "nucleo-f401re.md").write_text("# NUCLEO-F401RE\n\n## Pin Aliases\n\n- `red_led`: PA5\n")
    disputed = tmp_path / "disputed.toml"
    disputed.write_text(f'[peripherals]\ndatasheet_dir = "{sheets}"\n\n' + POLICY)
    assert main(["config", "check", str(disputed)]) != 0
    err = capsys.readouterr().err
    assert "'red_led'" in err and "PA6" in err and "writable_gpio" in err


def test_the_cli_routed_through_the_daemon_gets_the_same_refusals(daemon_factory: Any, edge_agent_cmd: list[str],
                                                                  state: Path, policy_config: Path) -> None:
    d = daemon_factory(policy_config)
    d.wait_ready()
    refused = _run(edge_agent_cmd, state, policy_config, "i2c", "write", "0x50", "0x00", "0xA1", "0xA2")
    assert refused.returncode != 0 and '"0x50:0x00-0x01"' in refused.stderr
    pulled = _run(edge_agent_cmd, state, policy_config, "gpio", "read", "PA6", "--pull", "down")
    assert pulled.returncode != 0 and "writable_gpio" in pulled.stderr
    # LD2 is PA5, the line red_led names: its pull may change
    assert _run(edge_agent_cmd, state, policy_config, "gpio", "read", "LD2", "--pull", "down").returncode == 0
    assert _run(edge_agent_cmd, state, policy_config, "gpio", "write", "13", "1").returncode == 0
    info = _run(edge_agent_cmd, state, policy_config, "bus", "info", "--json")
    assert '"red_led -> PA5"' in info.stdout
    assert "bench" in d.log() or d.proc.poll() is None  # the daemon served them and still runs
    assert d.stop() == 0


def test_the_daemon_does_not_start_on_an_entry_that_names_no_pin(daemon_factory: Any, tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(POLICY.replace('["red_led"]', '["red_led", "no_such_pin"]'))
    d = daemon_factory(config)
    assert d.proc.wait(timeout=WAIT_S) != 0
    d.stop(None)
    assert "no_such_pin" in d.log() and "writable_gpio" in d.log()
