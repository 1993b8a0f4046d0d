"""`edge-agent config check`: validate a config file and print the effective configuration."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import TYPE_CHECKING, Any

from edge_agent.errors import ConfigError, EdgeAgentError
from edge_agent.paths import find_config

if TYPE_CHECKING:
    from edge_agent.config import Settings


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
    problems = semantic_problems(settings)
    if problems:
        where = f"config file {path}" if path else "the embedded defaults"
        raise ConfigError(f"{where} is invalid:\n" + "\n".join(f"  {p}" for p in problems))
    print(f"# edge-agent effective configuration from {origin}", file=sys.stderr)
    sys.stdout.write(to_toml(settings))
    resolved = gpio_allow_lists(settings)
    if resolved:
        # TOML comments, so stdout stays a valid config file
        print("\n# writable_gpio as resolved at load (board file first, then datasheets); writes compare lines:")
        for name, key, grants in resolved:
            print(f"#   {name}: {key} = [{', '.join(g.describe() for g in grants)}]")
    return 0


def gpio_allow_lists(settings: Settings) -> list[tuple[str, str, list[Any]]]:
    """(adapter, key, resolved entries) of each configured board's writable_gpio, resolved as the runtime does."""
    from edge_agent.bus.gpio_grants import resolve_boards

    def datasheet_pins() -> Any:
        from edge_agent.rag import pin_index_for

        return pin_index_for(settings.datasheet_dir())

    boards = []
    for entry in settings.peripherals.boards:
        try:
            boards.append((entry.adapter_name, entry.adapter_url(), entry.board))
        except EdgeAgentError:
            continue  # reported by semantic_problems
    return resolve_boards(settings.hardware.safety, boards, functools.cache(datasheet_pins))


def semantic_problems(settings: Settings) -> list[str]:
    """What the schema cannot see but `run` would fail on: board ids, adapter URLs, watch adapters, endpoint."""
    from edge_agent.bus.registry import backends
    from edge_agent.bus.url import AdapterURL
    from edge_agent.pins import get_board

    problems: list[str] = []
    names = set()
    for i, entry in enumerate(settings.peripherals.boards):
        names.add(entry.adapter_name)
        try:
            url = AdapterURL.parse(entry.adapter_url())
            scheme = url.scheme.removeprefix("trace+")
            if scheme not in backends():
                problems.append(f"peripherals.boards.{i}.url: unknown adapter scheme {scheme!r}; "
                                f"known: {', '.join(sorted(backends()))}")
            if scheme == "sim" or entry.transport == "sim":
                get_board(entry.board)
        except EdgeAgentError as exc:
            problems.append(f"peripherals.boards.{i}: {exc}")
        else:
            names.add(str(url))
    try:
        gpio_allow_lists(settings)
    except ConfigError as exc:
        problems.append(str(exc))
    for i, watch in enumerate(settings.watch):
        if watch.adapter and "://" not in watch.adapter and watch.adapter not in names:
            problems.append(f"watch.{i}.adapter: {watch.adapter!r} is not a [[peripherals.boards]] name "
                            f"({', '.join(sorted(n for n in names if '://' not in n)) or 'none configured'}) "
                            "nor an adapter URL")
    if settings.kumiho.enabled:
        try:
            from edge_agent.sync.uploader import resolve_endpoint
        except ImportError:  # the sync module needs nothing optional to import; be safe anyway
            return problems
        try:
            resolve_endpoint(settings.kumiho)
        except ConfigError as exc:
            problems.append(str(exc))
    return problems
