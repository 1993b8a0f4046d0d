"""`edge-agent pins resolve|which|list|check|boards`: the pin index on the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.cli._common import datasheets_from, print_json, settings_from, state_from

if TYPE_CHECKING:
    from edge_agent.pins import PinIndex


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("pins", help="resolve pin names and aliases, list a board's pins")
    psub = p.add_subparsers(dest="pins_command", metavar="ACTION", required=True)

    r = psub.add_parser("resolve", help="resolve a name, number, header position or alias to the canonical pin")
    r.add_argument("name", help="e.g. red_led, PA5, D13, 17, J8:11, 'pin 11'")
    _common(r)
    r.set_defaults(handler=_resolve)

    w = psub.add_parser("which", help="inverse lookup: what is on this pin or header position")
    w.add_argument("name", help="e.g. PA5, J8-6, CN10-11")
    _common(w)
    w.set_defaults(handler=_which)

    ls = psub.add_parser("list", help="every pin of a board with numbers, headers, functions and aliases")
    _common(ls)
    ls.set_defaults(handler=_list)

    c = psub.add_parser("check", help="report datasheet pin names that contradict a board file (exit 1 if any)")
    c.add_argument("--board", action="append", default=[], metavar="B", help="only this board (repeatable)")
    c.add_argument("--datasheets", metavar="DIR", help="datasheet directory (default: [peripherals] datasheet_dir)")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(handler=_check)

    b = psub.add_parser("boards", help="list the boards with data files")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(handler=_boards)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--board", metavar="B", help="board id, e.g. nucleo-f401re or rpi-4b (default: the board "
                   "in [[peripherals.boards]] when exactly one is configured)")
    p.add_argument("--datasheets", metavar="DIR", help="datasheet directory (default: [peripherals] datasheet_dir)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _datasheets(args: argparse.Namespace) -> Path:
    return datasheets_from(args)


def _index(args: argparse.Namespace) -> PinIndex:
    from edge_agent.rag import pin_index_for

    if getattr(args, "board", "") is None:
        args.board = _configured_board(args)
    return pin_index_for(_datasheets(args))


def _configured_board(args: argparse.Namespace) -> str:
    """The board of a device wired to one board; with none or several, saying which is the user's call."""
    from edge_agent.errors import PinError

    boards = sorted({b.board for b in settings_from(args).peripherals.boards})
    if len(boards) == 1:
        return boards[0]
    which = f"{len(boards)} boards are configured ({', '.join(boards)})" if boards else "no board is configured"
    raise PinError(f"pass --board B: {which}; `edge-agent pins boards` lists the known boards")


def lookup(args: argparse.Namespace, name: str, params: dict[str, Any], *, note_missing: bool = False) -> Any:
    """Run lookup action ``name``: through the daemon when one runs (its loaded index answers), else here.

    With --datasheets naming a directory, the answer must come from that directory's index: it runs in
    this process even beside a daemon (a lookup opens no hardware). ``note_missing``: say on stderr when
    the bundled datasheet directory is missing from this install (results are then empty for that reason).
    """
    from edge_agent.hub.client import SocketServices, find_client
    from edge_agent.hub.connect import LocalOps

    state = state_from(args)
    if not getattr(args, "datasheets", None):
        client = find_client(state)
        if client is not None:
            return SocketServices(client).call(name, params)
    settings = settings_from(args)
    root = datasheets_from(args, settings).resolve()
    if note_missing and not root.is_dir():  # only the bundled default gets here (see datasheets_from)
        print(f"the bundled datasheet directory {root} is missing from this install; "
              "set [peripherals] datasheet_dir or pass --datasheets DIR", file=sys.stderr)
    peripherals = settings.peripherals.model_copy(update={"datasheet_dir": str(root)})
    return LocalOps(settings.model_copy(update={"peripherals": peripherals}), state).call(name, params)


def describe(pin: dict[str, Any]) -> str:
    """One line about a pin record: its name, number, headers, functions, other names and datasheet value."""
    parts = [str(pin["name"])]
    if pin.get("number") is not None:
        parts.append(f"number {pin['number']}")
    if pin.get("headers"):
        parts.append("headers " + ", ".join(pin["headers"]))
    if pin.get("functions"):
        parts.append("functions " + ", ".join(pin["functions"]))
    if pin.get("also_named"):
        parts.append("also named " + ", ".join(pin["also_named"]))
    if pin.get("raw") is not None and pin["raw"] != pin["name"]:
        parts.append(f"datasheet value {pin['raw']!r}")
    return "; ".join(parts)


def _shared_note(boards: list[str], board: str) -> str:
    """For a datasheet tag several board files share (rpi-gpio), the boards the answer holds for."""
    return f"  applies to {', '.join(boards)} (they share the {board} datasheets)"


def _resolve(args: argparse.Namespace) -> int:
    pin = lookup(args, "pin_resolve", {"name": args.name, "board": args.board})
    if args.json:
        print_json(pin)
    else:
        print(f"{pin['board']}: {args.name} = {describe(pin)}")
        if len(pin.get("applies_to") or []) > 1:
            print(_shared_note(pin["applies_to"], pin["board"]))
        for note in pin.get("notes") or []:
            print(f"  note: {note}")
    return 0


def _which(args: argparse.Namespace) -> int:
    report = lookup(args, "pin_which", {"name": args.name, "board": args.board})
    if args.json:
        print_json(report)
        return 0
    if report["power"]:
        print(f"{report['board']}: {args.name} is {report['power']} (not a GPIO)")
        return 0
    print(f"{report['board']}: {args.name} is {describe(report['pin'])}")
    if len(report.get("applies_to") or []) > 1:
        print(_shared_note(report["applies_to"], report["board"]))
    for note in report["pin"].get("notes") or []:
        print(f"  note: {note}")
    if report["labels"]:
        print("  board names: " + ", ".join(report["labels"]))
    for alias in report["aliases"]:
        print(f"  alias {alias['alias']} ({alias['source']})")
    return 0


def _list(args: argparse.Namespace) -> int:
    index = _index(args)
    aliases = index.aliases_for(args.board)
    several = index.names_of_several(args.board)  # names a lookup refuses as ambiguous, with their pins
    board = index.board(args.board)  # None: known only from datasheets, names are all there is
    by_pin: dict[str, list[str]] = {}
    for alias, pin in aliases.items():
        by_pin.setdefault(pin.name, []).append(alias)
    if args.json:
        print_json({
            "board": args.board,
            "name": board.name if board else None,
            "pins": [p.to_dict() | {"aliases": by_pin.get(p.name, [])} for p in (board.pins if board else ())],
            "aliases": {a: p.to_dict() for a, p in aliases.items()},
            "names_of_several_pins": several,
            "leds": dict(board.leds) if board else {}, "buttons": dict(board.buttons) if board else {},
            "buses": {k: dict(v) for k, v in board.buses.items()} if board else {},
        })
        return 0
    if board is None:
        shared = index.applies_to(args.board)
        print(f"{args.board}: " + (f"datasheet tag shared by {', '.join(shared)}" if shared else "no board file")
              + "; aliases from datasheets:")
        for alias, pin in aliases.items():
            print(f"  {alias:<20} {pin.raw}")
        _print_several(several)
        return 0
    print(f"{board.id}: {board.name} ({board.mcu}); a bare number means: {board.integers} numbering")
    print(f"{'pin':<8} {'number':>6}  {'headers':<28} functions / aliases")
    for p in board.pins:
        extra = ", ".join([*p.functions, *(f"alias {a}" for a in by_pin.get(p.name, []))])
        num = "" if p.number is None else str(p.number)
        print(f"{p.name:<8} {num:>6}  {', '.join(p.headers):<28} {extra}")
    _print_several(several)
    return 0


def _print_several(several: dict[str, list[str]]) -> None:
    """The datasheet names that name several pins: a lookup of one is refused, so none is listed as an alias."""
    if several:
        print("names of several pins (use the pin name): "
              + "; ".join(f"{name} ({', '.join(pins)})" for name, pins in several.items()))


def _check(args: argparse.Namespace) -> int:
    index = _index(args)
    boards = [b.id for b in (index.board(x) for x in args.board) if b is not None] if args.board else None
    found = index.check(boards)
    if args.json:
        print_json([c.__dict__ for c in found])
    elif not found:
        print(f"no contradictions between the board files and the datasheets in {_datasheets(args)}")
    for c in [] if args.json else found:
        print(f"{c.board}: {c.source}: {c.name!r} = {c.value} ({c.datasheet_pin}), "
              f"but the board file has {c.board_pin}; the board file wins")
    return 1 if found else 0


def _boards(args: argparse.Namespace) -> int:
    from edge_agent.pins import get_board, list_boards

    boards = [get_board(b) for b in list_boards()]
    if args.json:
        print_json([{"id": b.id, "name": b.name, "mcu": b.mcu, "datasheet_tags": list(b.datasheet_tags)}
                    for b in boards])
        return 0
    for b in boards:
        print(f"{b.id:<16} {b.name} ({b.mcu})")
    return 0
