"""Board pin data and the pin-alias resolver.

Board data lives in ``boards/<id>.toml`` (shipped in the wheel as ``edge_agent/_boards``). Each file
lists the native pins (``PA5``, ``GPIO17``, ``GP25``), their numbers, header positions (``CN10-11``,
``J8-11``, ``pin-34``), Arduino-header names (``D13``, ``A0``), LEDs, buttons, default bus pins and
the datasheet tags the board answers to (the Pi 40-pin boards answer to ``rpi-gpio``).

``resolve(board, name)`` turns any of these spellings, or an alias from a datasheet's
``## Pin Aliases`` section, into the canonical :class:`Pin`. Lookup order (first hit wins):

1. an integer (``13`` or ``"13"``): the board's integer convention, stored as ``Pin.number``:
   Arduino pin number on Nucleo-64 and Uno boards (13 = D13 = PA5 / PB5), BCM number on a Pi
   (17 = GPIO17), GPIO number on ESP32, GP number on a Pico;
2. a native name, board spelling (``BCM17``, ``IO2``, ``LED_BUILTIN``), header position (``J8-11``,
   ``J8:11``, ``pin 11``, ``BOARD11``), Arduino name, LED or button label;
3. a datasheet alias (``red_led``), see below;
4. a bus role (``I2C1_SCL``, ``i2c1.scl``: the board's default routing) or a function listed on
   exactly one pin (``TIM2_CH1``); a function on several pins raises :class:`AmbiguousPinError`.

Names compare case-insensitively, ignoring spaces, ``_``, ``-`` and ``:`` and leading zeros
(``pa_5`` = ``PA5``, ``gpio 04`` = ``GPIO4``).

Datasheet aliases for a board come from files tagged with the board id, then files tagged with one
of its ``datasheet_tags``, then generic files. When two entries give the same alias different pins,
the first in that order wins (ties: source path, then line), and a warning names both files. An
alias never overrides a native or header name; one that tries is reported. Boards known only from a
datasheet (no board file) still resolve: the returned pin's ``name`` and ``raw`` are the value as
written.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import threading
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from edge_agent.errors import AmbiguousPinError, EdgeAgentError, UnknownBoardError, UnknownPinError
from edge_agent.paths import bundled_boards_dir

if TYPE_CHECKING:
    from edge_agent.rag import HardwareRag
    from edge_agent.rag.aliases import AliasEntry

log = logging.getLogger(__name__)

__all__ = [
    "Board", "BoardDataError", "Pin", "PinReport", "aliases_for", "get_board", "list_boards", "pins_on", "resolve",
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


def name_key(name: str) -> str:
    """Comparison key: uppercase, no spaces/_/-/:, no dot before a letter, no leading zeros in numbers."""
    k = re.sub(r"[\s_\-:]+", "", name.strip().upper())
    k = re.sub(r"\.(?=[A-Z])", "", k)
    return re.sub(r"(?<!\d)0+(?=\d)", "", k)


def _int_value(name: str | int) -> int | None:
    if isinstance(name, bool):
        return None
    if isinstance(name, int):
        return name
    s = name.strip()
    return int(s) if s.isdigit() else None


_PHYS = re.compile(r"^(?:PIN|BOARD|PHYS|PHYSICAL)#?(\d+)$")


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


def _req(data: Mapping[str, Any], key: str, typ: type, where: str) -> Any:
    if key not in data or not isinstance(data[key], typ):
        raise BoardDataError(f"{where}: key {key!r} is missing or not a {typ.__name__}")
    return data[key]


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
    for label, pin in leds.items():
        extra.setdefault(pin, []).append(f"LED {label}")
    for label, pin in buttons.items():
        extra.setdefault(pin, []).append(f"BUTTON {label}")
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


# --- per-board name index ---------------------------------------------------------------------------


@dataclass
class _Index:
    board: Board
    names: dict[str, set[str]]  # key -> native pin names (native, spellings, headers, labels)
    display: dict[str, str]  # key -> a spelling to show in suggestions
    by_number: dict[int, str]
    functions: dict[str, set[str]]
    bus_roles: dict[str, str]


_index_cache: dict[int, _Index] = {}


def _index(board: Board) -> _Index:
    cached = _index_cache.get(id(board))
    if cached is not None and cached.board is board:
        return cached
    names: dict[str, set[str]] = {}
    display: dict[str, str] = {}

    def add(spelling: str, pin: str) -> None:
        k = name_key(spelling)
        names.setdefault(k, set()).add(pin)
        display.setdefault(k, spelling)

    by_number: dict[int, str] = {}
    functions: dict[str, set[str]] = {}
    for p in board.pins:
        add(p.name, p.name)
        for h in p.headers:
            add(h, p.name)
        if p.number is not None:
            by_number.setdefault(p.number, p.name)
            if board.integers == "bcm":
                add(f"BCM{p.number}", p.name)
            if p.name.startswith("GPIO") and board.integers == "gpio":
                add(f"IO{p.number}", p.name)
        for f in p.functions:
            functions.setdefault(name_key(f), set()).add(p.name)
            display.setdefault(name_key(f), f)
    for label, pin in [*board.leds.items(), *board.buttons.items(), *board.names.items()]:
        add(label, pin)
    bus_roles = {name_key(f"{b}{r}"): p for b, rs in board.buses.items() for r, p in rs.items()}
    idx = _Index(board, names, display, by_number, functions, bus_roles)
    _index_cache[id(board)] = idx
    return idx


def _lookup_native(idx: _Index, name: str | int) -> Pin | None:
    """Steps 1-2 of the lookup order; AmbiguousPinError if a spelling names two pins."""
    board = idx.board
    n = _int_value(name)
    if n is not None:
        pin = idx.by_number.get(n)
        return board.pin(pin) if pin else None
    k = name_key(str(name))
    hits = idx.names.get(k)
    if not hits and board.physical_header:
        m = _PHYS.match(k)
        if m:
            hits = idx.names.get(name_key(f"{board.physical_header}-{m.group(1)}"))
    if not hits:
        return None
    if len(hits) > 1:
        raise AmbiguousPinError(board.id, str(name), sorted(hits))
    return board.pin(next(iter(hits)))


# --- datasheet aliases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Alias:
    pin: Pin
    entry: AliasEntry


class _AliasSet:
    """Alias entries from one datasheet source, resolved per board on demand (cached)."""

    def __init__(self, entries: list[AliasEntry]) -> None:
        self.entries = entries
        self._per_board: dict[str, dict[str, _Alias]] = {}
        self._lock = threading.Lock()
        self.tags = {e.tag for e in entries if e.tag}

    def for_board(self, board: Board) -> dict[str, _Alias]:
        with self._lock:
            if board.id not in self._per_board:
                self._per_board[board.id] = self._build(board)
            return self._per_board[board.id]

    def _build(self, board: Board) -> dict[str, _Alias]:
        idx = _index(board)
        tags = (board.id, *board.datasheet_tags)

        def rank(e: AliasEntry) -> tuple[int, str, int]:
            r = 0 if e.tag == board.id else (1 if e.tag in tags else 2)
            return (r, e.source, e.line)

        relevant = sorted((e for e in self.entries if e.tag is None or e.tag in tags), key=rank)
        out: dict[str, _Alias] = {}
        for e in relevant:
            pin = self._resolve_value(idx, e)
            if pin is None:
                if e.tag is not None:  # generic files may name pins of other boards; only board files warn
                    log.warning("datasheet %s line %d: alias %r = %r is not a pin of %s; ignored "
                                "(use a native name such as %s, a header position or a number)",
                                e.source, e.line, e.alias, e.value, board.id, board.pins[0].name)
                continue
            k = name_key(e.alias)
            native = idx.names.get(k)
            if native and pin.name not in native:
                log.warning("datasheet %s line %d: alias %r = %r (%s) conflicts with the board's own name %r (%s); "
                            "the board name wins", e.source, e.line, e.alias, e.value, pin.name, e.alias,
                            "/".join(sorted(native)))
                continue
            prev = out.get(k)
            if prev is None:
                out[k] = _Alias(replace(pin, raw=e.value), e)
            elif prev.pin.name != pin.name:
                log.warning("conflicting pin alias %r on %s: %s line %d says %s (%s), %s line %d says %s (%s); "
                            "using %s (board-specific files first, then by path)", e.alias, board.id,
                            prev.entry.source, prev.entry.line, prev.entry.value, prev.pin.name, e.source, e.line,
                            e.value, pin.name, prev.entry.source)
        return out

    @staticmethod
    def _resolve_value(idx: _Index, e: AliasEntry) -> Pin | None:
        n = _int_value(e.value)
        if n is not None and e.numbering == "physical":
            if not idx.board.physical_header:
                return None
            return _lookup_native(idx, f"{idx.board.physical_header}-{n}")
        try:
            return _lookup_native(idx, e.value)
        except AmbiguousPinError:
            return None

    def raw_for_tag(self, tag: str) -> dict[str, AliasEntry]:
        """First entry per alias key for a board known only from datasheets."""
        out: dict[str, AliasEntry] = {}
        for e in sorted((e for e in self.entries if e.tag == tag), key=lambda e: (e.source, e.line)):
            out.setdefault(name_key(e.alias), e)
        return out


_alias_cache: dict[tuple[Path, tuple[tuple[str, int, int], ...]], _AliasSet] = {}
_alias_lock = threading.Lock()


def _alias_set_for_dir(root: Path) -> _AliasSet:
    from edge_agent.rag.aliases import parse_aliases
    from edge_agent.rag.files import read_pdf, read_text, scan

    files, _ = scan(root)
    sig = tuple((f.rel, f.size, f.mtime_ns) for f in files)
    key = (root.resolve(), sig)
    with _alias_lock:
        cached = _alias_cache.get(key)
        if cached is not None:
            return cached
    entries: list[AliasEntry] = []
    for f in files:
        if f.kind == "pdf":
            pages, _ = read_pdf(f)
            text = "\n".join(t for _, t in pages or [])
        else:
            text = read_text(f)[0] or ""
        entries.extend(parse_aliases(text, f.rel, f.board)[0])
    aset = _AliasSet(entries)
    with _alias_lock:
        _alias_cache.clear()  # keep one directory's worth; a changed signature replaces it
        _alias_cache[key] = aset
    return aset


def _default_datasheet_dir() -> Path:
    from edge_agent.config import load_settings
    from edge_agent.paths import find_config

    return load_settings(find_config(None)).datasheet_dir()


def _alias_set(datasheets: Path | str | HardwareRag | None) -> _AliasSet:
    if datasheets is None:
        return _alias_set_for_dir(_default_datasheet_dir())
    if isinstance(datasheets, str | os.PathLike):
        return _alias_set_for_dir(Path(datasheets))
    aset = getattr(datasheets, "_alias_set", None)
    if aset is None:
        aset = _AliasSet(list(datasheets.alias_entries()))
        datasheets._alias_set = aset
    return aset


def aliases_for(board: str, datasheets: Path | str | HardwareRag | None = None) -> dict[str, Pin]:
    """Every datasheet alias of a board (alias as written -> resolved pin), sorted by alias."""
    aset = _alias_set(datasheets)
    try:
        b = get_board(board)
    except UnknownBoardError:
        raw = aset.raw_for_tag(board.strip().lower())
        if not raw:
            raise UnknownBoardError(board, _known_boards(aset)) from None
        return {e.alias: _raw_pin(board, e) for _, e in sorted(raw.items())}
    return {a.entry.alias: a.pin for _, a in sorted(aset.for_board(b).items())}


def _raw_pin(board: str, e: AliasEntry) -> Pin:
    return Pin(board.strip().lower(), e.value, _int_value(e.value), (), (e.alias,), raw=e.value)


def _known_boards(aset: _AliasSet) -> list[str]:
    return sorted(set(list_boards()) | aset.tags)


# --- resolve and inverse lookup ----------------------------------------------------------------------


def resolve(board: str, name: str | int, datasheets: Path | str | HardwareRag | None = None) -> Pin:
    """Resolve a pin name, number, header position or datasheet alias to the board's canonical pin.

    Raises:
        UnknownBoardError: no board file and no datasheet names the board.
        UnknownPinError: nothing matches; ``suggestions`` holds the closest names.
        AmbiguousPinError: the name fits several pins; ``candidates`` lists them.
    """
    if isinstance(name, str) and not name.strip():
        raise UnknownPinError(board, name, [])
    try:
        b = get_board(board)
    except UnknownBoardError:
        aset = _alias_set(datasheets)
        raw = aset.raw_for_tag(board.strip().lower())
        if not raw:
            raise UnknownBoardError(board, _known_boards(aset)) from None
        e = raw.get(name_key(str(name)))
        if e is None:
            raise UnknownPinError(board, str(name), _suggest(str(name), [x.alias for x in raw.values()])) from None
        return _raw_pin(board, e)
    idx = _index(b)
    pin = _lookup_native(idx, name)
    if pin is not None:
        return pin
    if _int_value(name) is not None:
        raise UnknownPinError(b.id, str(name), _number_hint(b))
    k = name_key(str(name))
    aliases = _alias_set(datasheets).for_board(b)
    if k in aliases:
        return aliases[k].pin
    if k in idx.bus_roles:
        return b.pin(idx.bus_roles[k])
    hits = idx.functions.get(k)
    if hits:
        if len(hits) > 1:
            raise AmbiguousPinError(b.id, str(name), sorted(hits, key=_natural))
        return b.pin(next(iter(hits)))
    spellings = [*idx.display.values(), *(a.entry.alias for a in aliases.values())]
    raise UnknownPinError(b.id, str(name), _suggest(str(name), spellings))


def _number_hint(b: Board) -> list[str]:
    nums = sorted(idx for idx in _index(b).by_number)
    return [f"{nums[0]}..{nums[-1]}"] if nums else []


def _natural(s: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


def _suggest(name: str, spellings: Iterable[str]) -> list[str]:
    by_key: dict[str, str] = {}
    for s in spellings:
        by_key.setdefault(name_key(s), s)
    k = name_key(name)
    close = difflib.get_close_matches(k, list(by_key), n=5, cutoff=0.6)
    contains = [key for key in by_key if len(k) >= 2 and (k in key or key in k) and key not in close]
    return [by_key[c] for c in (close + sorted(contains, key=len))[:5]]


def pins_on(board: str, name: str | int, datasheets: Path | str | HardwareRag | None = None) -> PinReport:
    """Inverse lookup: what is on this pin or header position (labels, bus roles, datasheet aliases)."""
    b = get_board(board)
    k = name_key(str(name))
    phys = _PHYS.match(k)
    if phys and b.physical_header:
        k = name_key(f"{b.physical_header}-{phys.group(1)}")
    for position, what in b.power.items():
        if name_key(position) == k:
            return PinReport(b.id, str(name), None, power=what)
    pin = resolve(b.id, name, datasheets)
    labels = tuple(lbl for lbl, p in [*b.leds.items(), *b.buttons.items(), *b.names.items()] if p == pin.name)
    if b.integers == "bcm" and pin.number is not None:
        labels += (f"BCM{pin.number}",)
    aliases = tuple((a.entry.alias, a.entry.source) for _, a in sorted(_alias_set(datasheets).for_board(b).items())
                    if a.pin.name == pin.name)
    return PinReport(b.id, str(name), pin, labels=labels, aliases=aliases)
