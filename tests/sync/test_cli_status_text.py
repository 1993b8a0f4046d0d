"""`edge-agent sync status` text: an unset endpoint is only flagged invalid when sync is on."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.cli import main


def test_sync_off_with_no_endpoint_is_not_reported_invalid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(tmp_path / "state"), "sync", "status"]) == 0
    out = capsys.readouterr().out
    assert "(not set)" in out and "(invalid)" not in out


def test_sync_on_with_no_endpoint_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "edge-agent.toml"
    config.write_text("[kumiho]\nenabled = true\n")
    assert main(["--config", str(config), "--state", str(tmp_path / "state"), "sync", "status"]) == 0
    out = capsys.readouterr().out
    assert "(invalid)" in out and "kumiho.endpoint" in out
