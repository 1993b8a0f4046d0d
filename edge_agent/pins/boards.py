"""Board data files: the native pins, header positions, labels and bus routing of each board.

Board data lives in ``boards/<id>.toml`` (shipped in the wheel as ``edge_agent/_boards``). Each file
lists the native pins (``PA5``, ``GPIO17``, ``GP25``), their numbers, header positions (``CN10-11``,
``J8-11``, ``pin-34``), Arduino-header names (``D13``, ``A0``), LEDs, buttons, default bus pins and
the datasheet tags the board answers to (the Pi 40-pin boards answer to ``rpi-gpio``). A board file
is the authority for its board: datasheets add names, never move one.
"""

from __future__ import annotations

import re
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from edge_agent.errors import EdgeAgentError, UnknownBoardError, UnknownPinError
from edge_agent.jsontypes import JsonObject
from edge_agent.paths import bundled_boards_dir

T = TypeVar("T")

__all__ = [
    "Board", "BoardDataError", "Pin", "PinReport", "get_board", "list_boards", "load_board_file", "name_key",
]

INTEGER_CONVENTIONS = ("arduino", "bcm", "gpio")


class BoardDataError(EdgeAgentError, ValueError):
    """A board data file (boards/<id>.toml) is malformed; the message names the file and key."""


@dataclass(frozen=True)
class Pin:
    """One pin of a board, as canonical data."""

    board: str
    name: str
    number: int | None
    headers: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    raw: str | None = None
    #: For a board or part known only from datasheets (no board file): every other name its datasheets give
    #: this pin ("A8" and "62" for the Mega's PK0). Names, not functions, so they are never listed as such.
    also_named: tuple[str, ...] = ()
    #: What the answer to a name must not hide: the other pins a function table or the board file lists the same
    #: name on ("PWM0 is also available on GPIO18 (...)" when a datasheet's alias line says pwm0 is GPIO12).
    notes: tuple[str, ...] = ()

    def to_dict(self) -> JsonObject:
        """The pin as a JSON record (`pins list`, `pins resolve`, the pin tools): its fields in order, with
        `also_named` only on a pin whose datasheets give it other names and `notes` only on an answer that has
        them, so other records keep their keys."""
        out: JsonObject = {"board": self.board, "name": self.name, "number": self.number,
                               "headers": list(self.headers), "functions": list(self.functions), "raw": self.raw}
        if self.also_named:
            out["also_named"] = list(self.also_named)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Board:
    """A board's pins, labels and default bus routing, loaded from boards/<id>.toml."""

    id: str
    name: str
    mcu: str
    pins: tuple[Pin, ...]
    leds: Mapping[str, str]
    buttons: Mapping[str, str]
    buses: Mapping[str, Mapping[str, str]]
    datasheet_tags: tuple[str, ...]
    integers: str = "gpio"
    physical_header: str = ""
    names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    power: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def pin(self, name: str) -> Pin:
        """The pin with this exact native name."""
        for p in self.pins:
            if p.name == name:
                return p
        raise UnknownPinError(self.id, name, [])


@dataclass(frozen=True)
class PinReport:
    """What is on a pin or header position (inverse lookup)."""

    board: str
    query: str
    pin: Pin | None
    power: str | None = None
    labels: tuple[str, ...] = ()  # LED / button labels and board spellings
    aliases: tuple[tuple[str, str], ...] = ()  # (alias, source file)


# --- name normalisation ----------------------------------------------------------------------------


_PORT_UNDERSCORE = re.compile(r"^(P\d)_(?=\d{1,2}$)")


def name_key(name: str) -> str:
    """Comparison key: uppercase, no spaces/_/-/:, no dot before a letter, no leading zeros in numbers; a port
    and pin number apart by an underscore are the nRF spelling with a dot (``P0_13`` is ``P0.13``)."""
    k = _PORT_UNDERSCORE.sub(r"\1.", name.strip().upper())
    k = re.sub(r"[\s_\-:]+", "", k)
    k = re.sub(r"\.(?=[A-Z])", "", k)
    return re.sub(r"(?<!\d)0+(?=\d)", "", k)


def int_value(name: str | int) -> int | None:
    if isinstance(name, bool):
        return None
    if isinstance(name, int):
        return name
    s = name.strip()
    return int(s) if s.isdigit() else None


#: A position on a board's physical header, as a name key: ``pin 11``, ``BOARD11``, ``physical pin 11``,
#: ``header pin 11``, ``board pin 11`` (RPi.GPIO's BOARD numbering).
PHYSICAL = re.compile(r"^(?:PIN|BOARD|BOARDPIN|PHYS|PHYSPIN|PHYSICAL|PHYSICALPIN|HEADERPIN)#?(\d+)$")


# --- board files -----------------------------------------------------------------------------------

_boards_lock = threading.Lock()
_boards_cache: dict[Path, dict[str, Board]] = {}


def _boards(directory: Path | None = None) -> dict[str, Board]:
    d = (directory or bundled_boards_dir()).resolve()
    with _boards_lock:
        if d not in _boards_cache:
            _boards_cache[d] = _load_board_dir(d)
        return _boards_cache[d]


def _load_board_dir(d: Path) -> dict[str, Board]:
    boards: dict[str, Board] = {}
    for path in sorted(d.glob("*.toml")) if d.is_dir() else []:
        board = load_board_file(path)
        boards[board.id] = board
    return boards


def load_board_file(path: Path) -> Board:
    """Load and validate one board file; BoardDataError names the file and the bad key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BoardDataError(f"board file {path.name} cannot be loaded: {exc}") from None
    return _board_from_data(data, path.name)


def _req(data: Mapping[str, Any], key: str, typ: type[T], where: str) -> T:
    if key not in data or not isinstance(data[key], typ):
        raise BoardDataError(f"{where}: key {key!r} is missing or not a {typ.__name__}")
    value: T = data[key]
    return value


def _str_map(data: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = data.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise BoardDataError(f"{where}: [{key}] must map labels to pin names (strings)")
    return dict(value)


def _board_from_data(data: Mapping[str, Any], where: str) -> Board:
    bid = _req(data, "id", str, where)
    if where.endswith(".toml") and where[:-5] != bid:
        raise BoardDataError(f"{where}: id {bid!r} must match the file name")
    integers = data.get("integers", "gpio")
    if integers not in INTEGER_CONVENTIONS:
        raise BoardDataError(f"{where}: integers={integers!r}; allowed: {', '.join(INTEGER_CONVENTIONS)}")
    leds = _str_map(data, "leds", where)
    buttons = _str_map(data, "buttons", where)
    names = _str_map(data, "names", where)
    power = _str_map(data, "power", where)
    buses_raw = data.get("buses", {})
    if not isinstance(buses_raw, dict):
        raise BoardDataError(f"{where}: [buses] must be tables of role = pin")
    buses = {bus: _str_map(buses_raw, bus, where) for bus in buses_raw}
    extra: dict[str, list[str]] = {}
    # an LED or button labelled by its kind alone (the Pico's "LED") is that kind, not "LED LED"
    for kind, labelled in (("LED", leds), ("BUTTON", buttons)):
        for label, pin in labelled.items():
            extra.setdefault(pin, []).append(kind if label.upper() == kind else f"{kind} {label}")
    for bus, roles in buses.items():
        for role, pin in roles.items():
            extra.setdefault(pin, []).append(f"{bus.upper()}_{role.upper()}")
    pins: list[Pin] = []
    seen: set[str] = set()
    for i, entry in enumerate(_req(data, "pins", list, where)):
        w = f"{where}: pins[{i}]"
        if not isinstance(entry, dict):
            raise BoardDataError(f"{w} must be a table with name, number, headers, functions")
        name = _req(entry, "name", str, w)
        if name in seen:
            raise BoardDataError(f"{w}: pin {name!r} is listed twice")
        seen.add(name)
        number = entry.get("number")
        if number is not None and (not isinstance(number, int) or isinstance(number, bool) or number < 0):
            raise BoardDataError(f"{w}: number must be a non-negative integer")
        headers = tuple(entry.get("headers", []))
        functions = tuple(entry.get("functions", []))
        if not all(isinstance(x, str) for x in (*headers, *functions)):
            raise BoardDataError(f"{w}: headers and functions must be lists of strings")
        funcs = functions + tuple(f for f in extra.get(name, []) if f not in functions)
        pins.append(Pin(bid, name, number, headers, funcs))
    for label, pin in [*leds.items(), *buttons.items(), *names.items(),
                       *((f"{b}.{r}", p) for b, rs in buses.items() for r, p in rs.items())]:
        if pin not in seen:
            raise BoardDataError(f"{where}: {label!r} names pin {pin!r}, which is not in pins")
    return Board(
        id=bid,
        name=_req(data, "name", str, where),
        mcu=_req(data, "mcu", str, where),
        pins=tuple(pins),
        leds=MappingProxyType(leds),
        buttons=MappingProxyType(buttons),
        buses=MappingProxyType({k: MappingProxyType(v) for k, v in buses.items()}),
        datasheet_tags=tuple(t.lower() for t in data.get("datasheet_tags", [])),
        integers=integers,
        physical_header=data.get("physical_header", ""),
        names=MappingProxyType(names),
        power=MappingProxyType(power),
    )


def list_boards() -> list[str]:
    """Ids of every board with a data file, sorted."""
    return sorted(_boards())


def get_board(board: str) -> Board:
    """The board with this id (or a datasheet tag only it answers to); UnknownBoardError lists known boards."""
    boards = _boards()
    key = board.strip().lower()
    if key in boards:
        return boards[key]
    owners = [b for b in boards.values() if key in b.datasheet_tags]
    if len(owners) == 1:
        return owners[0]
    raise UnknownBoardError(board, sorted(boards))
