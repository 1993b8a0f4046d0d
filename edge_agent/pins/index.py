"""The pin index: every name a board's pins answer to, from its board file and its datasheets.

Built once from the board files and the alias entries of the datasheet directory (pin-alias
sections and pin tables, see :mod:`edge_agent.pins.datasheet`) and then shared by everything that
turns a name into a pin: ``pin_resolve``, the ``gpio_*`` tools and commands, the agent's context.
Nothing here reads the configuration or the disk: whoever builds the index decides which datasheets
count.

Lookup of a name on a board (first hit wins):

1. an integer (``13`` or ``"13"``): the board's integer convention (Arduino number on Nucleo-64 and
   Uno boards, BCM number on a Pi, GPIO number on an ESP32, GP number on a Pico); on a board known only
   from datasheets, the numberings its names use (``D13``, ``GPIO13``, ``GP13``, ``IO13``, ``P0.13``),
   ambiguous when two of them give different pins;
2. the name exactly as written (case and separators included) when it names one pin: a native name,
   board spelling (``BCM17``, ``IO2``, the RP2040's ``GPIO25`` for a Pico's ``GP25``, ``LED_BUILTIN``),
   header position (``J8-11``), LED or button
   label, or a datasheet name;
3. the name compared without case, spaces, ``_``, ``-``, ``:`` and leading zeros (``pa_5`` = ``PA5``).
   When the spellings that compare equal name different pins (``LED1`` = P0.13 and ``led1`` = P0.14
   on the nRF52840-DK) and none was written exactly, the lookup is an :class:`AmbiguousPinError`
   listing each spelling, its pin and its source, never a pick;
4. a physical position (``pin 11``, ``BOARD11``) on boards with a physical header;
5. a bus role (``I2C1_SCL``, ``i2c1.scl``, ``I2C SDA`` and ``SDA`` on a board with one I2C bus) or a function
   listed on exactly one pin (``TIM2_CH1``); a function on several pins is ambiguous;
6. for a name nothing answers to as written, its other spellings (:mod:`edge_agent.pins.spellings`: ``UART2 TX``
   for a table's ``UART2 TXD``, ``TXD0``, ``PIN_A0``, ``~3``), a silkscreen label with two names of one pin
   (``D13/SCK``) and ``pin 13`` on a board without a physical header; they must all give one pin;
7. a role named by a bus family no bus kind covers (``CAN RX``): the pin of the one numbered bus of that
   family the board names (``CAN1_RX``), ambiguous between several;
8. last, what the board's datasheets say a pin does (:mod:`edge_agent.pins.described`: ``illumination LEDs`` for
   a row "illumination LEDs enable"), ambiguous where it describes several pins.

A name none of these answers that names a bus or converter alone (``arduino_serial``, ``ADC1``, ``UART0``) is an
:class:`AmbiguousPinError` naming the pin of each of its signals or channels; an answer whose name a function table
or the board file also lists on other pins carries a note naming them (:attr:`Pin.notes`).

A board file is the authority for its board. Datasheet names come from files tagged with the board
id, then files tagged with one of its ``datasheet_tags``, then generic files; a more specific file
wins a conflict (and a warning names both files). A datasheet name that gives a board-file name a
different pin is not merged: it is kept as a :class:`Contradiction` for ``edge-agent pins check``.
Boards known only from a datasheet (no board file) resolve to the pin as the datasheet writes it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace

from edge_agent.errors import AmbiguousPinError, PinError, UnknownBoardError, UnknownPinError, echo
from edge_agent.pins import described
from edge_agent.pins.boards import PHYSICAL, Board, Pin, PinReport, get_board, int_value, list_boards, name_key
from edge_agent.pins.datasheet import AliasEntry
from edge_agent.pins.lookup import (
    POSITION,
    BoardNames,
    Contradiction,
    Name,
    ambiguous_shared,
    board_spellings,
    by_description,
    by_name,
    family_role,
    known_pin,
    members,
    named_role,
    names_of_several,
    native,
    natural,
    noted,
    number_hint,
    numbered,
    only_bus_role,
    unknown,
    value_pin,
    with_names,
)
from edge_agent.pins.spellings import BUS_KINDS, bare_role, bus_role

log = logging.getLogger(__name__)

__all__ = ["Contradiction", "PinIndex", "bus_role"]

_NATIVE, _OWN, _TAGGED, _GENERIC = 0, 1, 2, 3
#: The signals of each kind of bus a kind named alone stands for ("Serial" is its TX and RX).
_PRIMARY_ROLES = {"i2c": ("SDA", "SCL"), "spi": ("SCK", "MOSI", "MISO", "CS"), "uart": ("TX", "RX")}
_TABLES = ("table", "function")
#: Order in which entries are read: alias lines and tables first, then ranges set equal in prose (D2-D7 =
#: PD2-PD7), constants set equal to a pin (D2 = INT0), the functions a pin can take, and last the pins a range in
#: prose names (only those nothing else names).
_WEAK = {"prose": 1, "equal": 2, "function": 3, "range": 4}


def _entry_source(e: AliasEntry) -> str:
    where = f"{e.source} line {e.line}"
    heading = e.heading.split(" > ")[-1]
    return f"{where}, table under {heading!r}" if e.kind != "alias" and heading else where


def _same_table_rows(a: Name, b: Name) -> bool:
    """Two rows of one file's pin tables naming different pins alike: a real ambiguity, not a conflict."""
    return (a.entry is not None and b.entry is not None and a.entry.kind in _TABLES and b.entry.kind in _TABLES
            and a.entry.source == b.entry.source)


def _power_at(board: Board, name: str) -> str | None:
    """What a supply or ground position of the board carries (J8-2 is 5V; "pin 6" on a Pi is J8-6, GND)."""
    k = name_key(name)
    phys = PHYSICAL.match(k)
    if phys and board.physical_header:
        k = name_key(f"{board.physical_header}-{phys.group(1)}")
    return next((what for position, what in board.power.items() if name_key(position) == k), None)


class PinIndex:
    """Names -> pins for every board file and every board or part a datasheet describes."""

    def __init__(self, entries: Sequence[AliasEntry] = (), boards: Iterable[Board] | None = None) -> None:
        self.entries = tuple(e for e in entries if e.kind != "description")
        #: What datasheets say pins do, with their places among the entries; by tag once a lookup first reads them.
        self._placed = tuple((i, e) for i, e in enumerate(entries) if e.kind == "description")
        self._described: dict[str, list[AliasEntry]] | None = None
        self._boards = {b.id: b for b in boards} if boards is not None else {b: get_board(b) for b in list_boards()}
        self._tags = {e.tag for e in self.entries if e.tag}
        self._per_board: dict[str, BoardNames] = {}
        self._lock = threading.Lock()

    # --- boards -------------------------------------------------------------------------------------

    def known_boards(self) -> list[str]:
        """Every name :meth:`board` accepts: board files, datasheet tags and the tags board files share, sorted."""
        shared = {t for b in self._boards.values() for t in b.datasheet_tags if len(self._owners(t)) > 1}
        return sorted(set(self._boards) | self._tags | shared)

    def board_ids(self) -> list[str]:
        """Boards with a board file, sorted."""
        return sorted(self._boards)

    def _owners(self, key: str) -> list[str]:
        return sorted(b.id for b in self._boards.values() if key in b.datasheet_tags)

    def applies_to(self, board: str) -> list[str]:
        """The board files a name stands for: itself, the one board answering to a tag, every board sharing a
        tag (``rpi-gpio``: each 40-pin Pi), or none for a board or part known only from datasheets."""
        b = self.board(board)
        return [b.id] if b is not None else self._owners(board.strip().lower())

    def board(self, board: str) -> Board | None:
        """The board file for `board` (an id or a tag only it answers to); None for a tag several board files
        share (its names come from its own datasheets, see :meth:`applies_to`) and for datasheet-only boards."""
        key = board.strip().lower()
        if key in self._boards:
            return self._boards[key]
        owners = self._owners(key)
        if len(owners) == 1:
            return self._boards[owners[0]]
        if owners or key in self._tags:
            return None
        raise UnknownBoardError(board, self.known_boards())

    def _names(self, board: str) -> BoardNames:
        b = self.board(board)
        key = b.id if b is not None else board.strip().lower()
        with self._lock:
            got = self._per_board.get(key)
        if got is None:
            owners = self._owners(key) if b is None else []
            # built outside the lock: a shared tag's build looks up each of its boards' names
            got = self._build(b) if b is not None else self._build_raw(key, owners)
            with self._lock:
                got = self._per_board.setdefault(key, got)
        return got

    # --- building -----------------------------------------------------------------------------------

    def _build(self, board: Board) -> BoardNames:
        idx = BoardNames(board.id, board)
        src = f"board file {board.id}.toml"
        for p in board.pins:
            idx.add(Name(p.name, p, src, _NATIVE))
            for h in p.headers:
                idx.add(Name(h, p, src, _NATIVE))
            if p.number is not None:
                idx.by_number.setdefault(p.number, p.name)
                if board.integers == "bcm":
                    idx.add(Name(f"BCM{p.number}", p, src, _NATIVE))
                if p.name.startswith("GPIO") and board.integers == "gpio":
                    idx.add(Name(f"IO{p.number}", p, src, _NATIVE))
                elif p.name == f"GP{p.number}":  # a Pico's GP25 is its RP2040's GPIO25
                    idx.add(Name(f"GPIO{p.number}", p, src, _NATIVE))
            for f in p.functions:
                idx.functions.setdefault(name_key(f), set()).add(p.name)
                idx.list_function(f, p.name, src)
        for label, pin in [*board.leds.items(), *board.buttons.items(), *board.names.items()]:
            idx.add(Name(label, board.pin(pin), src, _NATIVE))
        idx.bus_roles = {name_key(f"{b}{r}"): p for b, rs in board.buses.items() for r, p in rs.items()}
        tags = board.datasheet_tags

        def rank(e: AliasEntry) -> int:
            return _OWN if e.tag == board.id else (_TAGGED if e.tag in tags else _GENERIC)

        # a function a pin can take (SPI4 CE0 among a Pi's alternate functions) comes after every name a pin has
        relevant = sorted((e for e in self.entries if e.tag is None or e.tag == board.id or e.tag in tags),
                          key=lambda e: (_WEAK.get(e.kind, 0), rank(e), e.source, e.line))
        for e in relevant:
            if e.kind == "range" and name_key(e.alias) in idx.keyed:
                continue  # a pin a range names (A0 of "A0-A15") that the board already knows
            found = value_pin(idx, e)
            if found is None:
                if e.tag is not None and e.kind == "alias":  # generic files and table rows naming internal
                    # channels (ADC4) may name what is not a pin of the board; only alias lines warn
                    log.warning("datasheet %s line %d: %r = %r is not a pin of %s; ignored (use a native name "
                                "such as %s, a header position or a number)", e.source, e.line, e.alias, e.value,
                                board.id, board.pins[0].name)
                continue
            if e.kind == "function":
                idx.list_function(e.alias, found.name, _entry_source(e))
            self._merge(idx, Name(e.alias, replace(found, raw=e.value), _entry_source(e), rank(e), e))
        return idx

    @staticmethod
    def _merge(idx: BoardNames, n: Name) -> None:
        k = name_key(n.spelling)
        if n.entry is not None and n.entry.kind == "function" and any(
                x.entry is None or x.entry.kind != "function" or x.entry.source != n.entry.source
                for x in idx.keyed.get(k, [])):
            return  # a name (GPCLK0 for the header's pin 7) or another file's function list answers first
        role = idx.bus_roles.get(k)
        if role is not None:
            # A bus signal the board file names (I2C1_SCL) is the board file's to answer. A datasheet table giving
            # it another pin describes another mapping of the same peripheral (USART1 on PB6/PB7 in Zephyr's
            # devicetree, on PA9/PA10 on the Arduino header): both are real, so it is not a contradiction.
            if role != n.pin.name:
                log.info("datasheet %s: %r = %s is another mapping of the board file's %s (%s); the board file's "
                         "is used", n.source, n.spelling, n.pin.name, n.spelling, role)
                idx.list_function(n.spelling, n.pin.name, n.source)  # the answer notes the other mapping
            return
        same_key = idx.keyed.get(k, [])
        native = [x for x in same_key if x.rank == _NATIVE]
        if native:
            if all(x.pin.name != n.pin.name for x in native):
                x = native[0]
                msg = (f"{n.source}: {n.spelling!r} = {n.pin.raw!r} ({n.pin.name}) contradicts the board file, "
                       f"where {x.spelling!r} is {x.pin.name}; the board file wins")
                log.warning("datasheet %s", msg)
                idx.contradictions.append(Contradiction(idx.board_id, n.spelling, n.pin.raw or n.pin.name,
                                                        n.pin.name, x.pin.name, n.source, msg))
                return
            idx.add(n)
            return
        better = [x for x in same_key if x.rank < n.rank and x.pin.name != n.pin.name]
        twin = [x for x in idx.exact.get(n.spelling, []) if x.pin.name != n.pin.name and not _same_table_rows(x, n)]
        clash = better or twin
        if clash:
            x = clash[0]
            idx.dropped.setdefault(k, []).append(n)
            log.warning("conflicting pin alias %r on %s: %s says %s (%s), %s says %s (%s); using %s (board-specific "
                        "files first, then by path)", n.spelling, idx.board_id, x.source, x.pin.raw, x.pin.name,
                        n.source, n.pin.raw, n.pin.name, x.source)
            return
        # A spelling that differs only in case or separators from one naming another pin is kept: the
        # exact spelling picks, anything in between is ambiguous (see lookup step 3).
        idx.add(n)

    def _build_raw(self, tag: str, owners: Sequence[str] = ()) -> BoardNames:
        """A board or part known only from datasheets: names resolve to the pin as the datasheet writes it.

        A tag several board files share (`owners`) is read the same way, from its own datasheets; where
        every one of those boards gives the datasheet's value the same pin, the answer carries that pin's
        number, header positions and functions (the 40-pin Pi header: GPIO17 is J8-11 on each of them).
        """
        idx = BoardNames(tag, None, shared=tuple(owners))
        for e in sorted((e for e in self.entries if e.tag == tag), key=lambda e: (_WEAK.get(e.kind, 0), e.source,
                                                                                   e.line)):
            if e.kind == "range" and name_key(e.alias) in idx.keyed:
                continue  # a table or alias line already names it (the Mega's A0 is PF0)
            value = e.value
            n = int_value(value)
            pin_name = f"pin {n}" if n is not None and e.numbering == "physical" else value
            # a function list's entry (GP0 can be SPI0 RX) is a function of its pin; any other entry is a name
            functions = (e.alias,) if e.kind == "function" else ()
            pin = Pin(tag, pin_name, None if e.numbering == "physical" else n, (), functions, raw=value)
            if e.kind in ("prose", "equal") and (known := known_pin(idx, value)) is not None:
                # set equal in prose to a name the board already has (69 is A15, 62 is A8 = PK0): that name's pin
                pin, pin_name = replace(known, raw=value), known.name
            elif e.kind == "equal" and not owners:
                continue  # a constant set equal to what is no pin of the board (yet): not a pin of its own
            if owners:
                agreed = self._agreed(idx, value if e.numbering == "native" else f"pin {value}")
                if isinstance(agreed, Pin):
                    pin = replace(agreed, board=tag, raw=value)
                    pin_name = pin.name
            named = Name(e.alias, pin, _entry_source(e), _OWN, e)
            if e.kind == "function":
                idx.list_function(e.alias, pin_name, named.source)
            if e.kind == "function" and any(x.entry is None or x.entry.kind != "function" or x.entry.source != e.source
                                            for x in idx.keyed.get(name_key(e.alias), [])):
                continue  # a name of a pin, or another file's function list, answers first
            twin = [x for x in idx.exact.get(e.alias, [])
                    if name_key(x.pin.name) != name_key(pin_name) and not _same_table_rows(x, named)]
            if twin:
                x = twin[0]
                idx.dropped.setdefault(name_key(e.alias), []).append(named)
                log.warning("conflicting pin alias %r on %s: %s says %s, %s says %s; using %s", e.alias, tag,
                            x.source, x.pin.raw, named.source, value, x.source)
                continue
            idx.add(named)
            if not idx.exact.get(pin_name):
                idx.add(Name(pin_name, replace(pin, functions=()), named.source, _OWN, e))
        return idx

    def _agreed(self, idx: BoardNames, name: str | int) -> Pin | dict[str, Pin | PinError]:
        """`name` on every board sharing `idx`'s tag: the pin when all give the same one (headers and functions
        they have in common), else what each board said."""
        said: dict[str, Pin | PinError] = {}
        for owner in idx.shared:
            try:
                said[owner] = self.resolve(owner, name)
            except PinError as exc:
                said[owner] = exc
        pins = [p for p in said.values() if isinstance(p, Pin)]
        if len(pins) != len(said) or len({p.name for p in pins}) != 1:
            return said
        first = pins[0]
        headers = tuple(h for h in first.headers if all(h in p.headers for p in pins))
        functions = tuple(f for f in first.functions if all(f in p.functions for p in pins))
        number = first.number if all(p.number == first.number for p in pins) else None
        return Pin(idx.board_id, first.name, number, headers, functions)

    def _lookup_shared(self, idx: BoardNames, name: str | int) -> Pin:
        """A shared tag: its own datasheets' names first, then a name every board sharing it gives one pin."""
        if not isinstance(name, int) or isinstance(name, bool):
            found = by_name(idx, str(name))
            if found is not None:
                return with_names(idx, found)
        agreed = self._agreed(idx, name)
        if isinstance(agreed, Pin):
            return agreed
        known = {b: p.name for b, p in agreed.items() if isinstance(p, Pin)}
        if len(set(known.values())) > 1:  # the boards sharing the tag disagree: which one is meant is the user's call
            raise AmbiguousPinError(idx.board_id, str(name), sorted(set(known.values()), key=natural),
                                    [(str(name), p, f"board file {b}.toml") for b, p in known.items()])
        refused = [e for e in agreed.values() if isinstance(e, AmbiguousPinError)]
        if refused:  # several pins on some board sharing the tag (a Pi 4's CTS: UART0's, or UART2's to UART5's)
            raise ambiguous_shared(idx, str(name), set(known.values()), refused, self.resolve)
        if known:
            missing = [b for b in agreed if b not in known]
            first = next(iter(known))
            raise PinError(f"{echo(str(name))} is {known[first]} on {', '.join(known)} but not a pin of "
                           f"{', '.join(missing)}, which share {idx.board_id}; pass --board {first}")
        powers = {e.power for e in agreed.values() if isinstance(e, UnknownPinError)}
        if len(powers) == 1 and None not in powers and all(isinstance(e, UnknownPinError) for e in agreed.values()):
            raise UnknownPinError(idx.board_id, str(name), [], power=powers.pop())  # J8-2 is 5 V on every Pi
        raise unknown(idx, str(name))

    # --- lookup -------------------------------------------------------------------------------------

    def resolve(self, board: str, name: str | int) -> Pin:
        """Resolve a pin name, number, header position or datasheet name to the board's pin.

        Raises:
            UnknownBoardError: no board file and no datasheet names the board.
            UnknownPinError: nothing matches; ``suggestions`` holds the three closest names, ``sources``
                where each comes from.
            AmbiguousPinError: the name fits several pins; ``candidates`` lists them and ``matches`` the
                spellings (name, pin, source) that fit.
        """
        try:
            pin = self._as_written(board, name)
        except UnknownPinError as exc:
            found = self._last_steps(board, name) if isinstance(name, str) and int_value(name) is None else None
            if found is None:
                if isinstance(name, str) and name.strip().lower() in BUS_KINDS:
                    self._kind_alone(board, name)
                raise exc from None
            pin = found
        return self._noted(board, name, pin) if isinstance(name, str) and int_value(name) is None else pin

    def _last_steps(self, board: str, name: str) -> Pin | None:
        """Steps 6 to 8 for a name nothing answers to as written: its other spellings, a role of a bus family no
        kind covers ("CAN RX"), what the board's datasheets say a pin does (:mod:`.described`)."""
        found = self._spelled_otherwise(board, name)
        idx = self._names(board)
        if found is None:
            found = family_role(idx, name)
        if found is None:
            tags = {idx.board_id, *(idx.board.datasheet_tags if idx.board is not None else ())}
            if self._described is None:  # gathered on the first name to reach this step, not when a daemon starts
                self._described = described.by_tag(self.entries, self._placed, _TABLES)
            found = by_description(idx, [e for t in tags for e in self._described.get(t, ())], name,
                                   lambda value: self._as_written(board, value))
        return found

    def _kind_alone(self, board: str, name: str) -> None:
        """A kind of bus named alone ("Serial", "I2C", "SPI"): an error naming the pin of each of its signals that
        the board gives one ("Serial TX = PD1, Serial RX = PD0"), and each pin a signal could be where it gives
        several; nothing when no signal of the kind resolves."""
        kind = BUS_KINDS[name.strip().lower()]
        found: dict[str, str] = {}
        for role in _PRIMARY_ROLES[kind]:
            spelled = f"{name.strip()} {role}"
            try:
                found.setdefault(self.resolve(board, spelled).name, spelled)
            except AmbiguousPinError as exc:
                for n, p in exc.choices:
                    found.setdefault(p, n)
                for p in sorted(exc.pins, key=natural):
                    found.setdefault(p, p)
            except PinError:
                continue
        if len(found) > 1:
            pins = sorted(found, key=natural)
            raise AmbiguousPinError(self._names(board).board_id, name, pins, choices=[(found[p], p) for p in pins])

    def _noted(self, board: str, name: str, pin: Pin) -> Pin:
        idx = self._names(board)
        return noted([idx, *(self._names(b) for b in idx.shared)], name, pin)

    def _spelled_otherwise(self, board: str, name: str) -> Pin | None:
        """Step 6, for a name nothing answers to as written: its other spellings (:mod:`edge_agent.pins.spellings`),
        a silkscreen label giving two names of one pin (``D13/SCK``; ``D0/D1`` is two pins, an error), and on a
        board without a physical header ``pin 13``, the board's pin number 13. Every spelling that resolves must
        give the same pin."""
        idx = self._names(board)
        s = name.strip()
        parts = [p.strip() for p in s.split("/")]
        if len(parts) > 1 and all(parts):
            said: dict[str, tuple[str, Pin]] = {}
            could: list[set[str]] = []  # the pins a part names when it names several (SCK on a board with two SPIs)
            for part in parts:
                try:
                    pin = self.resolve(board, part)
                except AmbiguousPinError as exc:
                    could.append(exc.pins)
                except PinError:
                    return None  # a part that names no pin: the label is not known
                else:
                    said.setdefault(pin.name, (part, pin))
            if len(said) > 1:
                raise AmbiguousPinError(idx.board_id, s, sorted(said, key=natural),
                                        choices=[(part, pin) for pin, (part, _) in said.items()])
            if not said or any(set(said) - pins for pins in could):
                return None  # only ambiguous parts, or one that cannot be the pin the others name
            return next(iter(said.values()))[1]
        spellings = board_spellings(idx, s)
        found: dict[str, tuple[str, Pin]] = {}
        refused: AmbiguousPinError | None = None
        for spelling in spellings:
            try:
                pin = self._as_written(board, spelling)
            except AmbiguousPinError as exc:
                refused = refused or exc
                continue
            except PinError:
                continue
            found.setdefault(pin.name, (spelling, pin))
        pins = set(found)
        named = [(w, p) for p, (w, _) in found.items()]
        if refused is not None and (not found or pins - refused.pins):
            pins |= refused.pins  # one spelling is ambiguous and no other settles it
            named += [(n, p) for n, p in refused.choices if p not in found]
        if len(pins) > 1:
            every = {p for _, p in named} == pins  # each pin has a name of its own to type
            raise AmbiguousPinError(idx.board_id, s, sorted(pins, key=natural), choices=named if every else None)
        if not found:
            return None
        spelled, pin = next(iter(found.values()))
        return self._noted(board, spelled, pin)  # the notes of the spelling that answers (USART1 TX for USART1 TXD)

    def _as_written(self, board: str, name: str | int) -> Pin:
        """Steps 1 to 5 (see the module docstring)."""
        if isinstance(name, str) and not name.strip():
            raise UnknownPinError(board, name, [])
        idx = self._names(board)
        if idx.shared:
            return self._lookup_shared(idx, name)
        if idx.board is None:
            return self._lookup_names(idx, str(name))
        pin = native(idx, name)
        if pin is not None:
            return pin
        if int_value(name) is not None:
            raise UnknownPinError(idx.board_id, str(name), number_hint(idx))
        k = name_key(str(name))
        if k in idx.bus_roles:
            return idx.pin(idx.bus_roles[k])
        pin = only_bus_role(idx, str(name))
        if pin is not None:
            return pin
        hits = idx.functions.get(k)
        if hits:
            if len(hits) > 1:
                raise AmbiguousPinError(idx.board_id, str(name), sorted(hits, key=natural))
            return idx.pin(next(iter(hits)))
        power = _power_at(idx.board, str(name))
        if power is not None:  # J8-2, "pin 6": a supply or ground position, said as such rather than "unknown"
            raise UnknownPinError(idx.board_id, str(name), [], power=power)
        members(idx, str(name))  # a bus or converter named alone: an error naming its signals' pins
        raise unknown(idx, str(name))

    def _lookup_names(self, idx: BoardNames, name: str) -> Pin:
        found = by_name(idx, name)
        if found is None and (role := bus_role(name) or bare_role(name)) is not None:
            found = named_role(idx, *role, name)
        if found is None and int_value(name) is not None:
            found = numbered(idx, name)
        if found is None and int_value(name) is None:
            found = self._on_the_header(idx, name)
        if found is None:
            members(idx, name)  # a bus or converter named alone: an error naming its signals' pins
            raise unknown(idx, name)
        return with_names(idx, found)

    def _on_the_header(self, idx: BoardNames, name: str) -> Pin | None:
        """A name of the 40-pin header (I2C1 SCL, PWM0, PCM CLK) on a HAT that uses that pin: a board known only
        from datasheets that write its header positions ("pin 16") sits on the header several board files share,
        so the header's names of the pins it uses are its names too. A pin the HAT does not use stays unknown."""
        if not any(POSITION.fullmatch(s) for s in idx.exact):
            return None
        for tag in sorted(self._tags):
            owners = self._owners(tag)
            if len(owners) < 2 or not all(self._boards[b].physical_header for b in owners):
                continue
            try:
                pin = self.resolve(tag, name)
            except PinError:
                continue
            try:
                return by_name(idx, pin.name)
            except AmbiguousPinError:
                return None
        return None

    def disputes(self, board: str, name: str) -> list[tuple[str, str, str]]:
        """(spelling, pin, source) of every datasheet name spelled like `name` when the datasheets give such
        names different pins (the index keeps one and logs a warning); empty when they agree.

        A pin that decides what may be written must not depend on which file sorts first: the write policy
        refuses an allow-list entry with a dispute.
        """
        idx = self._names(board)
        k = name_key(name)
        lost = idx.dropped.get(k, [])
        if not lost:
            return []
        names = [*idx.keyed.get(k, []), *lost]
        if len({n.pin.name for n in names}) < 2:
            return []
        return [(n.spelling, n.pin.name, n.source) for n in names]

    def aliases_for(self, board: str) -> dict[str, Pin]:
        """Every datasheet name of a board that names one pin (as written -> pin), sorted by name. A name the
        datasheets give several pins (I2C3 SDA on GPIO2 and GPIO4 of a Pi 4) is no alias of either: see
        :meth:`names_of_several`."""
        idx = self._names(board)
        several = self.names_of_several(board)
        out: dict[str, Pin] = {}
        for spelling in sorted(idx.exact, key=lambda s: (name_key(s), s)):
            for n in idx.exact[spelling] if spelling not in several else ():
                if n.rank != _NATIVE and n.entry is not None and n.entry.alias == spelling:
                    out.setdefault(spelling, n.pin)
        return out

    def names_of_several(self, board: str) -> dict[str, list[str]]:
        """Datasheet names of a board that name several of its pins, as written -> those pins, sorted by name."""
        return names_of_several(self._names(board))

    def sources_for(self, board: str, pin: str) -> list[tuple[str, str]]:
        """(datasheet name, source) of every datasheet name of `pin` on `board`."""
        idx = self._names(board)
        out = []
        for spelling in sorted(idx.exact, key=lambda s: (name_key(s), s)):
            for n in idx.exact[spelling]:
                if n.rank != _NATIVE and n.entry is not None and n.pin.name == pin and n.entry.alias == spelling:
                    out.append((spelling, n.entry.source))
                    break
        return out

    def pins_on(self, board: str, name: str | int) -> PinReport:
        """Inverse lookup: what is on this pin or header position (labels, bus roles, datasheet names)."""
        b = self.board(board)
        if b is None:
            owners = self._owners(board.strip().lower())
            if not owners:
                raise PinError(f"{board} is known only from datasheets, which name pins but not what sits on them; "
                               f"`edge-agent pins resolve NAME --board {board}` gives the pin a name stands for")
            try:
                pin = self.resolve(board, name)  # a shared tag: a pin every board sharing it agrees on
            except UnknownPinError as exc:
                if exc.power is None:
                    raise
                return PinReport(board.strip().lower(), str(name), None, power=exc.power)  # the same rail on each
            return PinReport(board.strip().lower(), str(name), pin,
                             aliases=tuple(self.sources_for(board, pin.name)))
        power = _power_at(b, str(name))
        if power is not None:
            return PinReport(b.id, str(name), None, power=power)
        pin = self.resolve(b.id, name)
        labels = tuple(lbl for lbl, p in [*b.leds.items(), *b.buttons.items(), *b.names.items()] if p == pin.name)
        if b.integers == "bcm" and pin.number is not None:
            labels += (f"BCM{pin.number}",)
        return PinReport(b.id, str(name), pin, labels=labels, aliases=tuple(self.sources_for(b.id, pin.name)))

    def check(self, boards: Iterable[str] | None = None) -> list[Contradiction]:
        """Datasheet names that contradict a board file, for every board file (or the given ones)."""
        out: list[Contradiction] = []
        for b in sorted(boards) if boards is not None else sorted(self._boards):
            out.extend(self._names(b).contradictions)
        return out
