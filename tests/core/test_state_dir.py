"""A state directory that cannot be used is a one-line ConfigError, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.cli import main
from edge_agent.errors import ConfigError
from edge_agent.paths import ensure_state_dir


def test_a_file_where_the_state_directory_should_be_is_a_config_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "state"
    not_a_dir.write_text("x")
    with pytest.raises(ConfigError) as info:
        ensure_state_dir(not_a_dir)
    assert "--state" in str(info.value)


def test_a_state_directory_that_cannot_be_created_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError):
        ensure_state_dir(blocker / "below" / "state")


@pytest.mark.parametrize("command", [["memory", "list"], ["status"], ["rag", "index"], ["sync", "status"],
                                     ["cache", "stats"]])
def test_commands_on_an_unusable_state_dir_exit_1_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    not_a_dir = tmp_path / "state"
    not_a_dir.write_text("x")
    assert main(["--state", str(not_a_dir), *command]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("edge-agent: error:") and "--state" in err


def test_a_relative_state_dir_is_reported_as_the_absolute_path_the_daemon_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The daemon resolves --state before it writes status.json, so paths a command prints must not
    # depend on whether it ran in the daemon or in this process.
    import json

    monkeypatch.chdir(tmp_path)
    assert main(["--state", "st", "cache", "stats"]) == 0
    path = json.loads(capsys.readouterr().out)["path"]
    assert Path(path).is_absolute()
    assert Path(path).is_relative_to((tmp_path / "st").resolve())
    assert main(["--state", "st", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["state_dir"] == str((tmp_path / "st").resolve())
