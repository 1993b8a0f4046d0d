"""`edge-agent dashboard [--url]` against a real daemon started with --port 0."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import httpx2


def _run(daemon: Any, *args: str, env: dict[str, str] | None = None, state: Path | None = None) -> Any:
    return subprocess.run([*daemon.cli, "--state", str(state or daemon.state), "dashboard", *args],
                          capture_output=True, text=True, timeout=120, env=env)


def test_url_prints_the_login_link_of_the_running_daemon_and_it_logs_in(daemon: Any) -> None:
    out = _run(daemon, "--url")
    assert out.returncode == 0, out.stderr
    link = out.stdout.strip()
    assert "\n" not in link
    assert link == f"{daemon.base}/?token={daemon.token}"  # the port the daemon picked, not the default
    with httpx2.Client() as c:
        login = c.get(link)
        assert login.status_code == 303
        assert c.get(f"{daemon.base}/api/status").json()["boards"][0]["name"] == "nucleo-f401re"


def test_dashboard_opens_the_link_in_the_browser(daemon: Any, tmp_path: Path) -> None:
    seen = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\necho \"$1\" > {seen}\n")
    browser.chmod(browser.stat().st_mode | stat.S_IEXEC)
    out = _run(daemon, env={**os.environ, "BROWSER": f"{browser} %s"})
    assert out.returncode == 0, out.stderr
    assert seen.read_text().strip() == f"{daemon.base}/?token={daemon.token}"


def test_without_a_daemon_it_says_how_to_start_one(daemon: Any, tmp_path: Path) -> None:
    other = tmp_path / "no-daemon-here"
    out = _run(daemon, "--url", state=other)
    assert out.returncode == 1
    assert "edge-agent run" in out.stderr and str(other) in out.stderr and "token" not in out.stdout


def test_an_unreadable_token_file_names_who_can_read_it(daemon: Any, tmp_path: Path) -> None:
    # The token file is 0600: its owner (the service user) and root read it, its group does not.
    # Tests may run as root, where no mode keeps a file out; a directory in its place cannot be read by anyone.
    state = tmp_path / "copy"
    state.mkdir()
    (state / "daemon.json").write_text((daemon.state / "daemon.json").read_text())
    unreadable = tmp_path / "token-is-a-directory"
    unreadable.mkdir()
    (state / "status.json").write_text(json.dumps({"components": {"mcp_http": {"token_file": str(unreadable)}}}))
    out = _run(daemon, "--url", state=state)
    assert out.returncode == 1 and out.stdout == ""
    assert str(unreadable) in out.stderr
    assert "sudo -u edge-agent edge-agent dashboard --url" in out.stderr and "group" not in out.stderr
