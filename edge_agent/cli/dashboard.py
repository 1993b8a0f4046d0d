"""`edge-agent dashboard [--url]`: the login link of the running daemon's status page, opened in a browser.

The link carries the MCP token (``/?token=...``); the page trades it for a session cookie and drops it
from the address bar. Host and port are the running daemon's own (it may have picked a free port).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from edge_agent.cli._common import pid_alive, settings_from, state_from
from edge_agent.errors import EdgeAgentError


class DashboardError(EdgeAgentError):
    """The status page cannot be reached: no daemon, or a daemon without HTTP."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("dashboard", help="open the running daemon's status page in a browser (or print its link)")
    p.add_argument("--url", action="store_true", help="print the login link (it contains the token) and exit")
    p.set_defaults(handler=_dashboard)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def login_link(args: argparse.Namespace) -> str:
    """``scheme://host:port/?token=...`` of the daemon running on this state directory."""
    state = state_from(args, create=False)
    daemon = _read_json(state / "daemon.json")
    pid = int(daemon.get("pid") or 0)
    if not pid or not pid_alive(pid):
        raise DashboardError(f"no edge-agent daemon is running for the state directory {state}; the status page is "
                             "served by the daemon: start it with `edge-agent run` (or `systemctl start edge-agent`), "
                             "or pass the --state it runs with")
    url = daemon.get("url")
    if not url:
        raise DashboardError(f"the daemon (pid {pid}) runs without HTTP ([server] http_enabled = false or --no-http), "
                             "and the status page is served over HTTP; enable it and restart the daemon")
    parts = urlsplit(str(url))
    host = parts.hostname or "127.0.0.1"
    # A wildcard bind answers on loopback too; the link has to name an address a browser can open.
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    shown = f"[{host}]" if ":" in host else host
    token_file = _token_file(state, args)
    try:
        token = token_file.read_text().strip()
    except OSError as exc:
        # The token file is 0600 (and put back to 0600 at start if loosened): group membership is not enough.
        raise DashboardError(f"cannot read the token file {token_file}: {exc.strerror or exc}; run this as the "
                             "daemon's user or as root, e.g. `sudo -u edge-agent edge-agent dashboard --url`") from None
    return f"{parts.scheme}://{shown}:{parts.port}/?token={quote(token, safe='')}"


def _token_file(state: Path, args: argparse.Namespace) -> Path:
    """The token file the running daemon uses (from its status file), else the configured one."""
    status = _read_json(state / "status.json")
    recorded = ((status.get("components") or {}).get("mcp_http") or {}).get("token_file")
    if recorded:
        return Path(recorded)
    from edge_agent.mcp.token import token_path

    return token_path(settings_from(args), state)


def _dashboard(args: argparse.Namespace) -> int:
    link = login_link(args)
    print(link)
    if args.url:
        return 0
    import webbrowser

    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        print("edge-agent: no web browser found here; open the link above on a machine that reaches this "
              "device (over an SSH tunnel: ssh -L PORT:127.0.0.1:PORT this-device)", file=sys.stderr)
        return 0
    if not browser.open(link):
        print("edge-agent: the browser did not start; open the link above yourself", file=sys.stderr)
    return 0
