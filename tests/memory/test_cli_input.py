"""`edge-agent memory` CLI: reflect queues for sync as the daemon does; bad input is one clear line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from edge_agent.cli import main


def test_cli_reflect_with_sync_enabled_puts_the_capture_in_the_outbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text('[device]\nid = "cli-pi"\n\n[kumiho]\nenabled = true\nendpoint = "127.0.0.1:1"\n')
    state = tmp_path / "state"
    body = {"session_id": "s1", "response": "ok", "source_krefs": [],
            "captures": [{"type": "fact", "title": "LED", "content": "red_led is PA5 on the nucleo"}]}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(body)))
    assert main(["--config", str(config), "--state", str(state), "memory", "reflect", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["stored"] == 1
    assert main(["--config", str(config), "--state", str(state), "sync", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["queued"] == 1


def test_cli_reflect_with_malformed_json_on_stdin_names_stdin_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('{"session_id": "s1", captures: ['))
    assert main(["--state", str(tmp_path / "state"), "memory", "reflect", "--json", "-"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stdin" in err and "session_id" in err


@pytest.mark.parametrize("command", [["recall", "led"], ["engage", "led"], ["list"], ["audit"]])
def test_memory_limit_below_one_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 command: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--state", str(tmp_path / "state"), "memory", *command, "--limit", "0"])
    assert info.value.code == 2
    assert "--limit" in capsys.readouterr().err
