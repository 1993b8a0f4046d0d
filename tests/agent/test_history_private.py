"""The chat history is private: 0600 in a 0700 directory whatever the umask, screened like memory writes.

docs/hub.md tells operators to open the state directory to a group (0710) so its members reach the
socket; nothing under it may then be readable by that group, the chat history included.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.cli import main

AWS_KEY = "AKIAZ7Q2M4XK9PLT3RWB"
PASSWORD = "hunter2-Zq8!fV"
MESSAGE = f"remember for the bench: the aws key is {AWS_KEY} and password={PASSWORD}"


@pytest.fixture
def wide_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def _turn(capsys: Any, config: Path, state: Path, message: str = MESSAGE) -> int:
    code = main(["--state", str(state), "--config", str(config), "agent", "-m", message, "--session", "bench"])
    capsys.readouterr()
    return code


def _history(state: Path) -> list[str]:
    with sqlite3.connect(state / "agent" / "agent.db") as conn:
        return [row[0] for row in conn.execute("SELECT content FROM history ORDER BY seq")]


@pytest.mark.parametrize("state_mode", [0o755, 0o710])
def test_history_is_0600_in_a_0700_directory_when_the_state_dir_already_exists(
        model: Any, steps: Any, config: Path, tmp_path: Path, capsys: Any, wide_umask: None, state_mode: int) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(state_mode)  # pre-created by the operator, or StateDirectoryMode=0710 as docs/hub.md advises
    model.script = [steps.say(f"Noted. Key {AWS_KEY}.")]
    assert _turn(capsys, config, state) == 0
    assert stat.S_IMODE((state / "agent").stat().st_mode) == 0o700
    for path in (state / "agent").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    assert stat.S_IMODE(state.stat().st_mode) == state_mode  # the operator's choice for the state dir stays


def test_nothing_under_a_group_traversable_state_dir_is_readable_by_the_group(
        model: Any, steps: Any, config: Path, tmp_path: Path, capsys: Any, wide_umask: None) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(0o710)
    model.script = [steps.call(("gpio_write", {"pin": "red_led", "value": 1})), steps.say("On.")]
    assert _turn(capsys, config, state, "turn the red led on") == 0
    assert main(["--state", str(state), "--config", str(config), "memory", "store", "--key", "bench",
                 "--content", f"password={PASSWORD}"]) == 0
    capsys.readouterr()
    exposed = [f"{p.relative_to(state)} {stat.S_IMODE(p.lstat().st_mode):o}" for p in state.rglob("*")
               if not p.is_symlink() and stat.S_IMODE(p.lstat().st_mode) & 0o077]
    assert exposed == []


def test_an_older_wider_history_is_narrowed(model: Any, steps: Any, config: Path, tmp_path: Path, capsys: Any,
                                             wide_umask: None) -> None:
    state = tmp_path / "state"
    (state / "agent").mkdir(parents=True, mode=0o755)
    (state / "agent").chmod(0o755)
    sqlite3.connect(state / "agent" / "agent.db").close()
    (state / "agent" / "agent.db").chmod(0o644)
    model.script = [steps.say("Hello.")]
    assert _turn(capsys, config, state, "hello") == 0
    assert stat.S_IMODE((state / "agent").stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "agent" / "agent.db").stat().st_mode) == 0o600


def test_messages_are_screened_for_credentials_before_they_are_stored(model: Any, steps: Any, config: Path,
                                                                      tmp_path: Path, capsys: Any) -> None:
    state = tmp_path / "state"
    model.script = [steps.say(f"Noted: {AWS_KEY}.")]
    assert _turn(capsys, config, state) == 0
    history = _history(state)
    assert len(history) == 2
    assert not any(AWS_KEY in text or PASSWORD in text for text in history)
    assert "[REDACTED:aws_access_key:" in history[0] and "[REDACTED:aws_access_key:" in history[1]
    raw = b"".join(p.read_bytes() for p in (state / "agent").iterdir())
    assert AWS_KEY.encode() not in raw and PASSWORD.encode() not in raw  # not in the WAL either


def test_under_the_reject_policy_an_exchange_with_credentials_is_left_out_of_the_history(
        model: Any, steps: Any, tmp_path: Path, capsys: Any) -> None:
    config = steps.write_config(tmp_path / "edge-agent.toml", model, '[kumiho]\nsecret_policy = "reject"\n')
    state = tmp_path / "state"
    model.script = [steps.say("Noted."), steps.say("Hello.")]
    assert _turn(capsys, config, state) == 0  # the turn still answers
    assert _turn(capsys, config, state, "hello") == 0
    assert _history(state) == ["hello", "Hello."]
