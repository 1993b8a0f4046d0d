"""One board's names, and how a name is looked up among them (steps 1 to 5, 7 and 8 of the pin index),
what an unknown name's error suggests, and the notes an answer carries.

:class:`BoardNames` holds every spelling a board's pins answer to, built by the index from the board file and
the datasheets; the functions below find a name among them: exactly as written, then compared without case
and separators, a physical position, a bare number in the numberings the datasheets use, a bus role named
by its kind or alone, a role named by a bus family no kind covers ("CAN RX"), and last what a datasheet says a
pin does. None of them picks between two pins: several answers are an :class:`AmbiguousPinError`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from edge_agent.errors import AmbiguousPinError, PinError, UnknownPinError
from edge_agent.pins import described
from edge_agent.pins.boards import PHYSICAL, Board, Pin, int_value, name_key
from edge_agent.pins.datasheet import AliasEntry
from edge_agent.pins.spellings import BUS_KINDS, ROLE_WORDS, alternatives, bare_role, bus_role

__all__ = [
    "DIGITAL", "POSITION", "BoardNames", "Contradiction", "Name", "ambiguous_shared", "board_spellings",
    "by_description", "by_name", "choice", "distinct", "family_role", "known_pin", "members", "named_role",
    "names_of_several", "native", "natural", "noted", "number_hint", "numbered", "numberings", "only_bus_role",
    "positions_are_numbers", "unknown", "value_pin", "with_names",
]


@dataclass(frozen=True)
class Contradiction:
    """A datasheet name that the board file gives another pin (the board file wins)."""

    board: str
    name: str
    value: str  # the datasheet's pin as written
    datasheet_pin: str
    board_pin: str
    source: str  # file and line
    message: str


@dataclass(frozen=True)
class Name:
    spelling: str
    pin: Pin
    source: str
    rank: int
    entry: AliasEntry | None = None


@dataclass
class BoardNames:
    board_id: str
    board: Board | None
    exact: dict[str, list[Name]] = field(default_factory=dict)
    keyed: dict[str, list[Name]] = field(default_factory=dict)
    by_number: dict[int, str] = field(default_factory=dict)
    functions: dict[str, set[str]] = field(default_factory=dict)
    bus_roles: dict[str, str] = field(default_factory=dict)
    contradictions: list[Contradiction] = field(default_factory=list)
    shared: tuple[str, ...] = ()  # a datasheet tag several board files answer to: those boards
    #: Datasheet names dropped because another datasheet gives the same spelling another pin, by name key.
    dropped: dict[str, list[Name]] = field(default_factory=dict)
    #: Every pin a function table or the board file lists a function on, by name key: (pin -> where, as written),
    #: kept even where an alias line or a name answers first.
    listed: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)

    def list_function(self, spelling: str, pin: str, source: str) -> None:
        self.listed.setdefault(name_key(spelling), {}).setdefault(pin, (source, spelling))

    def add(self, n: Name) -> None:
        self.exact.setdefault(n.spelling, []).append(n)
        self.keyed.setdefault(name_key(n.spelling), []).append(n)

    def pin(self, name: str) -> Pin:
        assert self.board is not None
        return self.board.pin(name)


def distinct(names: Iterable[Name]) -> dict[str, Name]:
    """First name per distinct pin."""
    out: dict[str, Name] = {}
    for n in names:
        out.setdefault(n.pin.name, n)
    return out


def by_name(idx: BoardNames, name: str) -> Pin | None:
    """Steps 2 and 3: the exact spelling, then the spellings equal without case and separators."""
    exact = distinct(idx.exact.get(name.strip(), []))
    if len(exact) == 1:
        return next(iter(exact.values())).pin
    same = distinct(idx.keyed.get(name_key(name), []))
    if len(same) == 1:
        return next(iter(same.values())).pin
    if len(same) > 1:
        spellings: dict[tuple[str, str], Name] = {}
        for n in idx.keyed[name_key(name)]:
            spellings.setdefault((n.spelling, n.pin.name), n)
        matches = [(n.spelling, n.pin.name, n.source) for n in spellings.values()]
        raise AmbiguousPinError(idx.board_id, name, sorted(same, key=natural), matches)
    return None


def with_names(idx: BoardNames, pin: Pin) -> Pin:
    """`pin` of a board known only from datasheets with every other name they give it, in reading order
    (alias lines and tables first, then prose); entries of a function list are functions, not names."""
    names: dict[str, str] = {}
    for spelling, found in idx.exact.items():
        if spelling != pin.name and any(n.pin.name == pin.name and n.entry is not None and n.entry.kind != "function"
                                        for n in found):
            names.setdefault(name_key(spelling), spelling)
    return replace(pin, also_named=tuple(names.values()))


def known_pin(idx: BoardNames, name: str) -> Pin | None:
    """The one pin a board known only from datasheets already gives `name`, if any (never a guess between two)."""
    try:
        return by_name(idx, name)
    except AmbiguousPinError:
        return None


#: How a bare number is written on boards known only from datasheets: the Arduino number (``D13``), the
#: GPIO number (``GPIO13``, ``GP13``, ``IO13``) or pin 13 of port 0 (``P0.13``).
_NUMBER_SPELLINGS = ("D{n}", "GPIO{n}", "GP{n}", "IO{n}", "P0.{n:02d}")
_ARDUINO_NAME = re.compile(r"D\d{1,2}")


def numbered(idx: BoardNames, name: str) -> Pin | None:
    """A bare number on a board known only from datasheets, read through the numbering its datasheets use;
    a number two of those numberings give different pins (13 = D13 = P1.15 or P0.13 on an nRF52 DK) is
    ambiguous."""
    n = int_value(name)
    assert n is not None
    found: dict[str, tuple[str, Pin]] = {}
    arduino = sum(1 for k in idx.keyed if _ARDUINO_NAME.fullmatch(k)) >= 3  # an Arduino header, not a chip's D1
    for spelling in _NUMBER_SPELLINGS if arduino else _NUMBER_SPELLINGS[1:]:
        written = spelling.format(n=n)
        try:
            pin = by_name(idx, written)
        except AmbiguousPinError:
            continue
        if pin is not None:
            found.setdefault(pin.name, (written, pin))
    if len(found) > 1:
        raise AmbiguousPinError(idx.board_id, name, sorted(found, key=natural),
                                choices=[choice(idx, p, [w]) for p, (w, _) in found.items()])
    return next(iter(found.values()))[1] if found else None


def named_role(idx: BoardNames, kind: str, role: str, name: str) -> Pin | None:
    """'I2C SDA' on a board known only from datasheets: the one name they write for the role (SDA), else the role
    of their one numbered bus of the kind (i2c0_SDA); several such buses are an error naming each (i2c0_SDA,
    i2c1_SDA), never a pick. (Other spellings of the role, NSS for CS, are the index's step 6.)"""
    found = by_name(idx, role)
    if found is not None:
        return found
    return _the_one(idx, name, _numbered_roles(idx, kind, role))


def _the_one(idx: BoardNames, name: str, hits: dict[str, list[Name]]) -> Pin | None:
    """The one pin `hits` (names by pin) give `name`, None for none; several are an error naming a name for each."""
    if len(hits) > 1:
        raise AmbiguousPinError(idx.board_id, name, sorted(hits, key=natural),
                                choices=[choice(idx, pin, names) for pin, names in hits.items()])
    return next(iter(hits.values()))[0].pin if hits else None


#: A role named with a bus family and no number ("CAN RX", "sai_sd"), for families no bus kind covers.
_FAMILY_ROLE = re.compile(r"([A-Za-z]{2,6})[\s_-]+([A-Za-z]{2,4})")


def family_role(idx: BoardNames, name: str) -> Pin | None:
    """'CAN RX' on a board whose datasheets name numbered buses of that family (CAN1_RX, CAN2_RX) but no bus kind
    covers it: the one such bus's pin; several are an error naming each (CAN1 RX = PB8, CAN2 RX = PB12), never a
    pick. Read last, when nothing else names the pin."""
    m = _FAMILY_ROLE.fullmatch(name.strip())
    if m is None or m.group(2).lower() not in ROLE_WORDS:
        return None
    pattern = re.compile(rf"{m.group(1).upper()}(\d+){m.group(2).upper()}")
    hits: dict[str, list[Name]] = {}
    for key, names in idx.keyed.items():
        if pattern.fullmatch(key):
            for n in names:
                hits.setdefault(n.pin.name, []).append(n)
    return _the_one(idx, name, hits)


def _numbered_roles(idx: BoardNames, kind: str, role: str, functions: bool = False) -> dict[str, list[Name]]:
    """The names the datasheets give `role` of a numbered bus of `kind` (i2c0_SDA, I2C3 SDA), and with `functions`
    the board file's pin functions (UART0_CTS), by pin, each pin's first first; each name comes first written the
    common way (``I2C3 SDA``, ``SPI0 MOSI``)."""
    buses = "|".join(w.upper() for w, k in BUS_KINDS.items() if k == kind)
    pattern = re.compile(rf"({buses})(\d*)({role.upper()})")
    out: dict[str, list[Name]] = {}
    for key, pins in idx.functions.items() if functions else ():
        m = pattern.fullmatch(key)
        if m is None:
            continue
        for p in sorted(pins, key=natural):
            out.setdefault(p, []).append(Name(f"{m.group(1)}{m.group(2)} {m.group(3)}", idx.pin(p), f"function of {p}",
                                              0))
    for key, names in idx.keyed.items():
        m = pattern.fullmatch(key)
        if m is None:
            continue
        common = f"{m.group(1)}{m.group(2)} {m.group(3)}"
        for n in names:
            out.setdefault(n.pin.name, []).extend([replace(n, spelling=common), n])
    return out


def choice(idx: BoardNames, pin: str, names: Iterable[str | Name]) -> tuple[str, str]:
    """(name, pin) for an ambiguity's candidate `pin`: the first of `names` that gives `pin` and no other pin on the
    board (a datasheet name, a bus role the board file routes, a pin function of one pin), else the pin itself (I2C6
    SDA is on two pins of a Pi 4: naming either one by it would be another ambiguity)."""
    for n in names:
        spelling = n.spelling if isinstance(n, Name) else n
        try:
            found = by_name(idx, spelling)
        except AmbiguousPinError:
            continue
        k = name_key(spelling)
        if found is not None:
            gives = {found.name}
        elif k in idx.bus_roles:
            gives = {idx.bus_roles[k]}
        else:
            gives = idx.functions.get(k, set())
        if gives == {pin}:
            return spelling, pin
    return pin, pin


#: What follows the name of a bus or a converter in the names of its signals and channels (I2C1 SDA, ADC1_IN0,
#: ADC2_CH3, arduino_serial_TX, SPI0 CE1).
_MEMBER = re.compile("(?:IN|CH|CHAN|AIN)\\d{1,2}|CE\\d|"
                     + "|".join(sorted({r.upper() for r in ROLE_WORDS}, key=len, reverse=True)))


def members(idx: BoardNames, name: str) -> None:
    """A bus or converter named alone (``arduino_serial``, ``ADC1``, ``UART0``) whose signals or channels the board's
    names and pin functions put on several pins: an error naming each (arduino_serial_TX = P1.02, arduino_serial_RX =
    P1.01), never a pick; a name with no such members returns."""
    k = name_key(name)
    if not k or not k[-1].isalnum():
        return
    found: dict[str, list[str]] = {}
    for key, names in idx.keyed.items():
        if key.startswith(k) and _MEMBER.fullmatch(key[len(k):]):
            for n in names:
                found.setdefault(n.pin.name, []).append(n.spelling)
    for key, pins in idx.functions.items() if idx.board is not None else ():
        if key.startswith(k) and _MEMBER.fullmatch(key[len(k):]):
            for p in sorted(pins, key=natural):
                found.setdefault(p, []).append(idx.listed[key][p][1] if p in idx.listed.get(key, {}) else key)
    if len(found) > 1 and len({s for ss in found.values() for s in ss}) > 1:
        hits = sorted(found, key=natural)
        raise AmbiguousPinError(idx.board_id, name, hits, choices=[choice(idx, p, found[p]) for p in hits])


#: "pin 13", "pin number 13", "digital pin 13": how a board without a physical header is spoken of by number.
POSITION = re.compile(r"(?:digital\s+)?pin(?:\s+number)?\s*#?\s*(\d{1,3})", re.IGNORECASE)
#: "digital 13", "Digital13", "digital #13": Arduino's own word for its numbered pins (the D of D13), said without
#: "pin". A number only, never a header position: a 40-pin header's place 13 is not a digital pin 13.
DIGITAL = re.compile(r"digital\s*#?\s*(\d{1,3})", re.IGNORECASE)


#: A place on a named connector (CN7-13, J3-13): a numbering "pin 13" may mean besides the board's pin number.
_CONNECTOR_POSITION = re.compile(r"([A-Z]{1,3}\d{0,2})-(\d{1,3})")


def numberings(idx: BoardNames, name: str, n: int) -> None:
    """ "pin N" on a board file numbered by pin number that also has connectors numbering their places: the board's
    pin number N (D13 on a Nucleo, GPIO13 on an ESP32 DevKitC) and place N of each connector (CN7-13, CN10-13; J2-13,
    J3-13) are all "pin 13", and which one is meant is the user's call. Where they give more than one pin or supply
    position, an error naming each (D13 = PA5, CN7-13 = PA13, CN10-13 = PA6); where they agree or only one exists,
    nothing (an Uno, which has no such connector, keeps "pin 13" = D13). Only supply positions of one kind
    ("pin 20", GND on CN7 and CN10) are said to be that supply."""
    board = idx.board
    if board is None:
        return
    said: dict[str, str] = {}  # what each numbering gives: spelling -> pin
    if (number := idx.by_number.get(n)) is not None:
        said[choice(idx, number, [f"D{n}", f"GPIO{n}", f"IO{n}"])[0]] = number
    for spelling in idx.exact:
        m = _CONNECTOR_POSITION.fullmatch(spelling)
        if m is not None and int(m.group(2)) == n and (pin := known_pin(idx, spelling)) is not None:
            said.setdefault(spelling, pin.name)
    supplies = sorted(((p, rail) for p, rail in board.power.items()
                       if (m := _CONNECTOR_POSITION.fullmatch(p)) is not None and int(m.group(2)) == n),
                      key=lambda pr: natural(pr[0]))
    pins = sorted(set(said.values()), key=natural)
    if len(pins) + len(supplies) <= 1:
        return
    if not pins and len({rail for _, rail in supplies}) == 1:
        raise UnknownPinError(idx.board_id, name, [], power=supplies[0][1])
    first: dict[str, str] = {}  # pin -> its first name: the board's number, then the connectors in order
    for written, gives in sorted(said.items(), key=lambda sp: (sp[1] != number, natural(sp[0]))):
        first.setdefault(gives, written)
    choices = [(written, gives) for gives, written in first.items()]
    raise AmbiguousPinError(idx.board_id, name, pins, choices=choices, supplies=supplies)


def positions_are_numbers(idx: BoardNames) -> bool:
    """Whether "pin N" means the board's pin number N: a board file without a physical header (Arduino and Nucleo
    boards number their pins, an ESP32 its GPIOs), or a datasheet board numbered Arduino-style whose datasheets
    write no header positions (a HAT's "pin 16" is a place on the 40-pin header, never GPIO16)."""
    if idx.board is not None:
        return not idx.board.physical_header
    if idx.shared or any(POSITION.fullmatch(s) for s in idx.exact):
        return False
    return sum(1 for k in idx.keyed if _ARDUINO_NAME.fullmatch(k)) >= 3


def only_bus_role(idx: BoardNames, name: str) -> Pin | None:
    """A role named by its bus kind alone ("I2C SDA") or alone where one kind of bus has it ("SDA", "MOSI"), on a
    board file with exactly one bus of that kind holding the role (the Uno's only I2C bus is i2c0); several such
    buses make the name ambiguous, not a pick. A role no bus of the board file has (a Pi's CTS) is read from the
    numbered buses its datasheets and pin functions give it (UART0 CTS on GPIO16, UART2 CTS on GPIO2...), the same
    way: one pin, or an error naming each."""
    role = bus_role(name) or bare_role(name)
    if role is None or idx.board is None:
        return None
    kind, r = role
    pins: dict[str, list[str | Name]] = {}
    for b, rs in idx.board.buses.items():
        if BUS_KINDS.get(b.lower().rstrip("0123456789")) == kind:
            for rr, p in rs.items():
                if rr.lower() == r:
                    pins.setdefault(p, []).append(f"{b.upper()} {rr.upper()}")
    if pins:
        # The board's datasheets may name a further bus of the kind that the board file does not route (the
        # L476's I2C3 on A4/A5 beside the header's I2C1): then the kind alone names two pins, not the routed one.
        for p, names in _numbered_roles(idx, kind, r).items():
            pins.setdefault(p, []).extend(names)
    else:
        for p, names in _numbered_roles(idx, kind, r, functions=True).items():
            pins.setdefault(p, []).extend(names)
    hits = sorted(pins, key=natural)
    if len(hits) > 1:
        raise AmbiguousPinError(idx.board_id, name, hits, choices=[choice(idx, p, pins[p]) for p in hits])
    return idx.pin(hits[0]) if hits else None


def native(idx: BoardNames, name: str | int) -> Pin | None:
    """Steps 1, 2, 3 and 4 for a board with a board file."""
    board = idx.board
    assert board is not None
    n = int_value(name)
    if n is not None:
        pin = idx.by_number.get(n)
        return board.pin(pin) if pin else None
    found = by_name(idx, str(name))
    if found is not None:
        return found
    if board.physical_header:
        m = PHYSICAL.match(name_key(str(name)))
        if m:
            return by_name(idx, f"{board.physical_header}-{m.group(1)}")
    return None


def number_hint(idx: BoardNames) -> list[str]:
    nums = sorted(idx.by_number)
    return [f"{nums[0]}..{nums[-1]}"] if nums else []


def natural(s: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


def value_pin(idx: BoardNames, e: AliasEntry) -> Pin | None:
    """The pin of a board file an entry's value names (a header position where the section numbers them so), if
    one; a value naming several pins is none."""
    board = idx.board
    assert board is not None
    n = int_value(e.value)
    try:
        if n is not None and e.numbering == "physical":
            if not board.physical_header:
                return None
            return native(idx, f"{board.physical_header}-{n}")
        return native(idx, e.value)
    except AmbiguousPinError:
        return None


def unknown(idx: BoardNames, name: str) -> UnknownPinError:
    """The error for a name nothing answers to, with the three closest names the board answers to and where each
    comes from."""
    by_key: dict[str, tuple[str, str]] = {}
    for names in idx.exact.values():
        for n in names:
            by_key.setdefault(name_key(n.spelling), (n.spelling, n.source))
    if idx.board is not None:
        # Bus roles and pin functions resolve too (a bare 'SDA' is near I2C1_SDA, not near A0),
        # so they are offered when they name one pin.
        src = f"board file {idx.board.id}.toml"
        for b, roles in idx.board.buses.items():
            for r in roles:
                by_key.setdefault(name_key(f"{b}{r}"), (f"{b}_{r}", src))
        for p in idx.board.pins:
            for f in p.functions:
                if len(idx.functions.get(name_key(f), ())) == 1:
                    by_key.setdefault(name_key(f), (f, f"function of {p.name}"))
    # the name as typed and as its other spellings read it ("analog 6" is A6: A5 is close, "L" is not)
    typed = list(dict.fromkeys(name_key(s) for s in (name, *alternatives(name))))

    def near(k: str, key: str) -> float:
        contains = len(k) >= 2 and len(key) >= 2 and (k in key or key in k)  # one letter is inside every name
        return difflib.SequenceMatcher(None, k, key).ratio() + (0.3 if contains else 0.0)

    def closeness(key: str) -> tuple[float, int, str]:
        return (-max(near(k, key) for k in typed), len(key), key)

    close = sorted(by_key, key=closeness)[:3]
    picked = [by_key[c] for c in close]
    return UnknownPinError(idx.board_id, name, [n for n, _ in picked], [src for _, src in picked])


def noted(names: Sequence[BoardNames], name: str, pin: Pin) -> Pin:
    """`pin` with a note for each other pin a function table or the board file lists `name` on: a datasheet's
    alias line is its author's choice and stays the answer (pwm0 is GPIO12), but the answer must not hide that
    the function can be taken elsewhere (PWM0 on GPIO18). `names`: the board's, then those of the boards sharing
    its tag."""
    k = name_key(name)
    others: dict[str, tuple[str, str]] = {}
    for idx in names:
        for p, where in idx.listed.get(k, {}).items():
            if p != pin.name:
                others.setdefault(p, where)
    if not others:
        return pin
    by_spelling: dict[str, dict[str, list[str]]] = {}  # spelling -> source -> pins
    for p, (source, spelling) in sorted(others.items(), key=lambda kv: natural(kv[0])):
        by_spelling.setdefault(spelling, {}).setdefault(source, []).append(p)
    notes = tuple(f"{spelling} is also available on {', '.join(p for ps in sources.values() for p in ps)} "
                  f"({'; '.join(sources)})" for spelling, sources in by_spelling.items())
    return replace(pin, notes=pin.notes + tuple(n for n in notes if n not in pin.notes))


def names_of_several(idx: BoardNames) -> dict[str, list[str]]:
    """Datasheet names of a board that name several of its pins, as written -> those pins (a lookup of one is an
    :class:`AmbiguousPinError`), sorted by name."""
    out: dict[str, list[str]] = {}
    for spelling in sorted(idx.exact, key=lambda s: (name_key(s), s)):
        try:
            by_name(idx, spelling)
        except AmbiguousPinError as exc:
            if any(n.entry is not None and n.rank != 0 for n in idx.exact[spelling]):  # not the board file's own
                out[spelling] = sorted(exc.pins, key=natural)
    return out


def board_spellings(idx: BoardNames, name: str) -> list[str]:
    """The other spellings of `name` on this board: :func:`~edge_agent.pins.spellings.alternatives`, the
    devicetree's ``led0`` for the user LED in words where the board has one user LED, and the board's pin number
    for "pin N" or "digital N" where positions are numbers (a "pin N" its connectors' places also give is refused
    here, by :func:`numberings`)."""
    spellings = alternatives(name)
    if "LED_BUILTIN" in spellings and name_key("led1") not in idx.keyed:
        # the user LED in words is also a devicetree's led0, the first user LED, where the board has no second one
        # (a board with four user LEDs has no single "user LED"); both found and apart, the words refuse
        spellings.append("led0")
    position = POSITION.fullmatch(name) or DIGITAL.fullmatch(name)
    if position is not None and positions_are_numbers(idx):
        if not name.lower().startswith("digital"):  # "digital pin 13" says which numbering: Arduino's
            numberings(idx, name, int(position.group(1)))
        spellings.append(position.group(1))
    return spellings


def by_description(idx: BoardNames, descriptions: Iterable[AliasEntry], name: str,
                   as_written: Callable[[str], Pin]) -> Pin | None:
    """The one pin of board `idx` whose description `name` matches (the pin as `as_written` resolves its value, or on
    a board known only from datasheets as they write it), with a note quoting the description; descriptions of
    several pins that match are an error naming each."""
    found: dict[str, tuple[AliasEntry, Pin]] = {}
    for value, hits in described.matching(descriptions, name).items():
        try:
            pin = as_written(value)
        except PinError:
            if idx.board is not None:
                continue  # a description of a pin the board file does not have
            pin = Pin(idx.board_id, value, None, (), (), raw=value)  # as the datasheet writes it
        found.setdefault(pin.name, (hits[0], pin))
    if len(found) > 1:
        pins = sorted(found, key=natural)
        raise AmbiguousPinError(idx.board_id, name, pins, choices=[(p, p) for p in pins])  # typed as pins
    if not found:
        return None
    e, pin = next(iter(found.values()))
    return replace(pin, notes=(*pin.notes, f"found by its description {e.alias!r} ({e.source} line {e.line})"))


def ambiguous_shared(idx: BoardNames, name: str, known: set[str], refused: Sequence[AmbiguousPinError],
                     resolve: Callable[[str, str], Pin]) -> AmbiguousPinError:
    """The error for a name that boards sharing a tag give several pins: every pin any of them could mean, each
    with the first name the boards offer for it that gives the tag that pin (UART2 CTS is no pin of a Pi Zero 2 W,
    so on the tag GPIO2 is offered as itself); `resolve` is the index's lookup."""
    pins = known.union(*(e.pins for e in refused))
    named: dict[str, str] = {}
    for n, p in (c for e in refused for c in e.choices if c[0] != c[1]):
        if p in named:
            continue
        try:
            if resolve(idx.board_id, n).name == p:
                named[p] = n
        except PinError:
            continue
    ordered = sorted(pins, key=natural)
    return AmbiguousPinError(idx.board_id, name, ordered, choices=[(named.get(p, p), p) for p in ordered])
