"""Helpers shared by CLI subcommands: loading settings and the state dir from global options."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.paths import ensure_state_dir, find_config, state_dir

if TYPE_CHECKING:  # pydantic model building costs ~0.1 s: only commands that run pay it, not --help
    from edge_agent.config import Settings


def settings_from(args: argparse.Namespace) -> Settings:
    """The effective settings for this invocation (global --config, env, defaults)."""
    from edge_agent.config import load_settings

    return load_settings(find_config(getattr(args, "config", None)))


def datasheets_from(args: argparse.Namespace, settings: Settings | None = None) -> Path:
    """The datasheet directory for this invocation: --datasheets, else [peripherals] datasheet_dir.

    A directory the user named (on the command line or in the config file) that is not there is
    an error: an index of nothing would answer every question with "no match", which reads as a bad
    question rather than a wrong path. The bundled default is different: nobody chose it, and the
    board files still answer pin questions without it, so its absence is left to the command.
    """
    from edge_agent.errors import DatasheetError

    settings = settings if settings is not None else settings_from(args)
    given = getattr(args, "datasheets", None)
    if given:
        root, origin, fix = Path(given), "--datasheets", "pass an existing directory"
    elif settings.peripherals.datasheet_dir:
        root, origin = settings.datasheet_dir(), "[peripherals] datasheet_dir"
        fix = "fix [peripherals] datasheet_dir in the config file or pass --datasheets DIR"
    else:
        return settings.datasheet_dir()
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise DatasheetError(f"the datasheet directory {root} (from {origin}) {what}; {fix}")
    return root


def state_from(args: argparse.Namespace, *, create: bool = True) -> Path:
    """The state directory for this invocation (global --state, env, default), as an absolute path.

    Resolved like the daemon resolves it, so a command prints the same paths in this process as it
    does when it runs in the daemon.
    """
    path = state_dir(getattr(args, "state", None)).resolve()
    if create:
        ensure_state_dir(path)
    return path


def run_op(args: argparse.Namespace, name: str, params: dict[str, Any], *, timeout: float | None = 120.0) -> Any:
    """Run action ``name``: in the daemon serving this state dir if one runs, else here.

    Both paths run the same code (the action in edge_agent.services) and return the same JSON, so
    commands print the same thing either way. The routed path imports only the standard-library client.
    A daemon that runs but cannot be reached stops the command (it owns the hardware).
    """
    from edge_agent.hub.client import SocketServices
    from edge_agent.hub.connect import connect

    with connect(state_from(args, create=False), lambda: settings_from(args)) as services:
        if isinstance(services, SocketServices):
            _note_other_config(args, services.state_dir)
        return services.call(name, params, timeout=timeout)


def _note_other_config(args: argparse.Namespace, state: Path) -> None:
    """Say so on stderr when this command names a config file (--config or $EDGE_AGENT_CONFIG) other than
    the one the daemon runs with: the command runs there, under the daemon's configuration.

    A config file found on its own (./edge-agent.toml) is not worth a note on every command; `edge-agent
    status` shows the daemon's configuration.
    """
    if not getattr(args, "config", None) and not os.environ.get("EDGE_AGENT_CONFIG"):
        return
    try:
        info = json.loads((state / "daemon.json").read_text())
    except (OSError, ValueError):
        return
    if not isinstance(info, dict) or "config" not in info:
        return
    wanted = find_config(getattr(args, "config", None))
    mine = str(wanted.resolve()) if wanted is not None else None
    if mine != info["config"]:
        print(f"edge-agent: note: the daemon serving {state} (pid {info.get('pid')}) runs with "
              f"{info['config'] or 'the embedded defaults'}; this command ran there under that configuration, "
              f"not {mine or 'the embedded defaults'}", file=sys.stderr)


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists (also when it belongs to another user, e.g. the service's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def int_auto(text: str) -> int:
    """argparse type: integers in decimal or 0x-hex (addresses, registers)."""
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (use decimal or 0x-hex)") from None


def query_text(text: str) -> str:
    """argparse type: a search query with at least one word (a blank one would match nothing, silently)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the query is empty; say what to look for, e.g. 'BME280 chip id register'")
    return text


def tcp_port(text: str) -> int:
    """argparse type: a TCP port, 0 (pick a free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (0-65535; 0 picks a free one)")
    return value


def positive_int(text: str) -> int:
    """argparse type: a whole number of 1 or more (limits, counts)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value
