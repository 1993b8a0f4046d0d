"""`edge-agent config check`: validate a config file and print the effective configuration."""

from __future__ import annotations

import argparse
import sys

from edge_agent.paths import find_config


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("config", help="validate and show configuration")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = csub.add_parser("check", help="validate a config file and print the effective config")
    check.add_argument("file", nargs="?", help="file to check (default: the global --config resolution)")
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from edge_agent.config import load_settings, to_toml  # here, not at import: keeps --help fast

    path = find_config(args.file or args.config)
    settings = load_settings(path)
    origin = str(path) if path else "embedded defaults (no config file found)"
    print(f"# edge-agent effective configuration from {origin}", file=sys.stderr)
    sys.stdout.write(to_toml(settings))
    return 0
