"""The `edge-agent` command line: ``main(argv) -> int``.

Each area registers its subcommands from its own module (``edge_agent/cli/<area>.py`` exposing
``register(subparsers)``); heavy imports happen inside the handlers so ``--help`` stays fast.
Exit codes: 0 ok, 1 domain error, 2 usage, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from edge_agent import __version__
from edge_agent.errors import EdgeAgentError

# Subcommand modules, in help order. A module that does not exist yet is skipped.
COMMAND_MODULES = (
    "run",  # run, mcp, status, service
    "dashboard",  # the running daemon's status page
    "config",
    "rag",
    "pins",
    "bus",  # bus scan, i2c, spi, gpio, sensor
    "bridge",
    "memory",  # memory, cache
    "sync",  # sync, kumiho-test-server
    "watch",
    "agent",  # agent (the on-device agent loop)
)


#: Spellings a newcomer tries, with the command that does it (shown instead of a bare "invalid choice").
COMMON_SPELLINGS: dict[tuple[str, str], str] = {
    ("i2c", "scan"): "edge-agent bus scan",
    ("i2c", "detect"): "edge-agent bus scan",
    ("i2c", "list"): "edge-agent bus scan",
    ("gpio", "list"): "edge-agent pins list",
    ("gpio", "set"): "edge-agent gpio write PIN 0|1",
    ("gpio", "get"): "edge-agent gpio read PIN",
    ("sensor", "list"): "edge-agent sensor read --help (it lists the sensor drivers)",
    ("sensor", "get"): "edge-agent sensor read SENSOR",
    ("pins", "show"): "edge-agent pins list",
    ("bus", "list"): "edge-agent bus backends",
    ("scan", ""): "edge-agent bus scan",
}


class Parser(argparse.ArgumentParser):
    """argparse with a hint after an unknown command: the command that does it, or the closest names."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.format_usage()}{self.prog}: error: {message}{_did_you_mean(self.prog, message)}\n")


def _did_you_mean(prog: str, message: str) -> str:
    import difflib
    import re

    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if found is None:
        return ""
    given, choices = found.group(1), re.findall(r"'([^']*)'", found.group(2))
    area = prog.split()[-1] if len(prog.split()) > 1 else ""
    known = COMMON_SPELLINGS.get((area, given)) or COMMON_SPELLINGS.get((given, ""))
    if known:
        command, _, note = known.partition(" (")
        return f"; did you mean `{command}`{f' ({note}' if note else ''}?"
    close = difflib.get_close_matches(given, choices, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(f'`{prog} {c}`' for c in close)}?" if close else ""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="edge-agent",
        description="Edge runtime that lets AI agents work with real hardware boards safely, offline.",
    )
    parser.add_argument("--config", metavar="FILE", help="config file (default: $EDGE_AGENT_CONFIG, "
                        "./edge-agent.toml, /etc/edge-agent/edge-agent.toml, else embedded defaults); "
                        "'none' for the embedded defaults")
    parser.add_argument("--state", metavar="DIR", help="state directory (default: $EDGE_AGENT_STATE, "
                        "$STATE_DIRECTORY, ~/.local/state/edge-agent)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (repeatable)")
    parser.add_argument("--debug", action="store_true", help="print tracebacks for errors")
    parser.add_argument("--version", action="version", version=f"edge-agent {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"edge_agent.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"edge_agent.cli.{name}":
                continue
            raise
        module.register(sub)
    _accept_global_options_after_the_command(parser)
    return parser


def _accept_global_options_after_the_command(parser: argparse.ArgumentParser) -> None:
    """Let `edge-agent status --state DIR` work like `edge-agent --state DIR status`.

    Each subcommand parser gets hidden copies of the global options whose default is SUPPRESS, so a
    value given before the command is kept unless the same option is given again after it.
    """
    seen: set[int] = set()
    stack = [parser]
    while stack:
        current = stack.pop()
        for action in current._actions:
            if not isinstance(action, argparse._SubParsersAction):
                continue
            for sub in action.choices.values():
                if id(sub) in seen:
                    continue
                seen.add(id(sub))
                hidden = {"default": argparse.SUPPRESS, "help": argparse.SUPPRESS}
                sub.add_argument("--config", metavar="FILE", **hidden)
                sub.add_argument("--state", metavar="DIR", **hidden)
                sub.add_argument("-v", "--verbose", action="count", **hidden)
                sub.add_argument("--debug", action="store_true", **hidden)
                stack.append(sub)


def configure_logging(verbosity: int) -> None:
    level = logging.WARNING - 10 * verbosity
    # One line per record, no timestamp: journald adds its own.
    logging.basicConfig(level=max(level, logging.DEBUG), format="%(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    configure_logging(args.verbose)
    try:
        return int(args.handler(args) or 0)
    except EdgeAgentError as exc:
        print(f"edge-agent: error: {exc}", file=sys.stderr)
        if args.debug:
            traceback.print_exc()
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `edge-agent memory export | head`
        return 0
    except OSError as exc:  # a file or device the command was pointed at: say which and why
        print(f"edge-agent: error: {exc}", file=sys.stderr)
        if args.debug:
            traceback.print_exc()
        return 1
    except Exception as exc:  # a bug: one line for the user, the traceback with --debug
        print(f"edge-agent: internal error: {type(exc).__name__}: {exc}; rerun with --debug for the traceback "
              "and report it", file=sys.stderr)
        if args.debug:
            traceback.print_exc()
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
