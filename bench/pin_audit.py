"""Pin-index audit: every name a datasheet writes beside a pin must resolve to that pin.

The hidden pin lookups are names copied from datasheets, so instead of guessing questions this walks
both datasheet directories (the bundled one and ../shared/corpus/datasheets) and collects every place
where a name stands next to a pin:

* pin-table rows (every (name, pin) pair of a row, two-pair rows, one-column-per-board tables of the
  generic notes), with the row's header position (``pin 16``, ``J8-16``, ``J1-3``) where a column gives it;
* bus tables (``| uart2 | GPIO0 | GPIO1 |``, ``| I2C1 SCL / SDA | PB8 / PB9 |``, ``SDA P0.26, SCL P0.27``):
  the role of a numbered bus in the usual spellings (``UART2 TXD``, ``uart2_txd``, ``UART2 TX``);
* ``Pin Aliases`` lines, and prose that writes ``name = pin`` or ``pin (name)`` / ``name (pin)``;
* each board file's numbers in its convention (``17``, ``BCM17``, ``IO2``, ``GP25`` / ``GPIO25``, ``D13``) and header
  positions (``J8-11``, ``pin 11``, ``J8:11``, ``BOARD11``, ``CN5-6``);
* every name that resolves, typed again in other case and separators (``i2c1 sda``, ``I2C1-SDA``, ``I2C1SDA``).

Each claim is resolved with the pin index (``edge-agent pins resolve NAME --board TAG``). A name is right
when it gives the row's pin; when the datasheets give the same name to several pins of the board (the
Pico's function table lists I2C0 SDA on GP0, GP4, GP8...), the right answer is an ambiguity error that
lists the row's pin, and a pick is reported apart. The extractor is written independently of the parser in
``edge_agent/pins/datasheet.py`` and is broader on purpose; it reads no question or lookup set.

    .venv/bin/python -m bench pin_audit            # counts per class and file, and each failure
    .venv/bin/python -m bench pin_audit -v --picked --suggested  # also each pick, and each refusal whose error
                                                   # suggests the spelling that gives the pin
"""

from __future__ import annotations

import logging
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from edge_agent.errors import AmbiguousPinError, PinError, UnknownBoardError, UnknownPinError
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import PinIndex, name_key
from edge_agent.pins.spellings import alternatives
from edge_agent.rag import pin_index_for
from edge_agent.rag.files import read_text, scan

REPO = Path(__file__).resolve().parents[1]

#: A chip's own pin spelling: STM32/AVR ports, nRF port.pin, GPIOn, a Pico's GPn, an ESP32's IOn.
NATIVE = re.compile(r"P[A-L]\d{1,2}|P\d\.\d{1,2}|GPIO\d{1,2}|GP\d{1,2}|IO\d{1,2}")
#: Names that stand for one pin on any board that has them (an anchor of a prose claim).
ANCHOR = re.compile(rf"(?:{NATIVE.pattern}|D\d{{1,2}}|A\d{{1,2}})")
_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_PAREN = re.compile(r"\(([^()]*)\)")
#: One word of a name: letters, digits and _ . # + - (``I2C1``, ``P0.13``, ``LED_BUILTIN``, ``relay.one``).
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.#+\-]*")
_POSITION_HEADS = ("physical pin", "phys", "physical", "position", "no.", "no", "header pin", "edge pin", "pin")
_BUSES = re.compile(r"^(i2c|spi|uart|usart|serial|can|i2s|pcm)\d{0,2}$", re.IGNORECASE)
_ROLES = frozenset({"tx", "rx", "txd", "rxd", "rts", "cts", "sda", "scl", "sck", "sclk", "mosi", "miso", "cs", "nss",
                    "ce0", "ce1", "ce2", "ss", "csn", "ws", "bck", "din", "dout"})
#: Two spellings of one bus signal that every datasheet family mixes: a UART's TX is its TXD, an SPI clock SCK or
#: SCLK. Only spellings that never name a different signal.
SAME_ROLE = {"tx": "txd", "txd": "tx", "rx": "rxd", "rxd": "rx", "sck": "sclk", "sclk": "sck"}


@dataclass(frozen=True)
class Claim:
    """`name` is written beside `pin` (as the datasheet writes it) for `board` at `where`."""

    board: str
    name: str
    pin: str
    where: str  # file and line
    cls: str  # what kind of writing it comes from


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    return [c.strip().replace("`", "").replace("**", "").strip() for c in s.split("|")]


def _tables(lines: list[str]) -> Iterator[tuple[int, str, list[str], list[tuple[int, list[str]]]]]:
    """(header line, nearest heading, header cells, [(line, cells)]) of every table outside code fences."""
    heading = ""
    fence = False
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith("```"):
            fence = not fence
        elif not fence and s.startswith("#"):
            heading = s.lstrip("#").strip()
        elif not fence and "|" in s and i + 1 < len(lines) and _SEP.match(lines[i + 1].strip()):
            rows = []
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                rows.append((j + 1, _cells(lines[j])))
                j += 1
            yield i + 1, heading, _cells(lines[i]), rows
            i = j
            continue
        i += 1


def _pin_in(cell: str, head: str) -> str | None:
    """The pin a cell holds: a native spelling (a trailing note dropped), or a bare number under a BCM/GPIO head."""
    value = re.sub(r"\s*\([^)]*\)\s*$", "", cell).strip()
    first = re.split(r" / |,", value)[0].strip()  # "GP28 / ADC2", "GP0, edge pin 1"
    if NATIVE.fullmatch(first):
        return first
    inner = _PAREN.findall(cell)
    if len(inner) == 1 and NATIVE.fullmatch(inner[0].strip()):  # "I2C1 SDA (GPIO2)"
        return inner[0].strip()
    words = set(re.split(r"[^a-z0-9]+", head.lower()))
    if first.isdigit() and words & {"bcm", "gpio"}:
        return f"GPIO{int(first)}"
    return None


def _pin_list(cell: str) -> bool:
    parts = [p.strip() for p in re.split(r"\s*/\s*", _PAREN.sub(" ", cell))]
    return len(parts) > 1 and sum(1 for p in parts if NATIVE.fullmatch(p)) > 1


def _is_name(text: str, loose: bool) -> bool:
    """A pin name, not prose: one to three words, each with a capital or a digit (``I2C1 SDA``, ``Button 3``,
    ``LED_BUILTIN``, ``relay.one``); `loose` (a name column) also takes one plain word (``Green``, ``Buzzer``)."""
    words = text.split()
    if not 1 <= len(words) <= 3 or not all(_WORD.fullmatch(w) for w in words) or re.fullmatch(r"[\d\-]+", text):
        return False  # "62-69" is a range of numbers, not a name
    if len(words) == 1 and (loose or "_" in text or "." in text):
        return True
    return all(any(c.isupper() or c.isdigit() for c in w) for w in words) and words[0][0].isupper() or (
        len(words) == 1 and any(c.isdigit() for c in text) and not text.isdigit())


#: Words that say what a pin is wired to, not what it is called (``ST-LINK VCP``, ``Arduino I2C``, ``Pi TX``).
_NOT_NAMES = frozenset({"arduino", "usb", "st-link", "j-link", "vcom", "vcp", "pi", "console", "shell", "mcumgr",
                        "output", "input", "hat", "piglow", "pwm", "serial", "phat"})


def _names_in(cell: str, loose: bool) -> list[str]:
    """Names a cell gives: parts split at `` / `` and commas, what brackets hold, each kept if it is a name."""
    out = []
    # a note in brackets after another pin's name belongs to that pin ("D1 (TX) / D0 (RX)")
    inner = [i for part in cell.split(" / ") if not ANCHOR.fullmatch(_PAREN.sub(" ", part).strip())
             for i in _PAREN.findall(part)]
    outer = _PAREN.sub(" ", cell)
    for part in [*re.split(r" / |,|;", outer), *(p for i in inner for p in re.split(r",|;| / ", i))]:
        part = " ".join(part.split())
        if (part and _is_name(part, loose) and not part.isdigit() and not _BUSES.fullmatch(part)
                and not any(w.lower() in _NOT_NAMES for w in part.split())):
            out.append(part)
    return out


_NAME_HEADS = frozenset({"alias", "name", "label", "signal", "arduino", "constant", "component", "relay", "input",
                         "output", "led", "button", "channel", "item", "define", "use", "function", "board"})
_SKIP_HEADS = frozenset({"direction", "active", "address", "register", "value", "meaning", "part", "overlay",
                         "index", "wiringpi", "source", "parts", "controller", "range", "pair"})


def _header_kind(head: str) -> str:
    words = set(re.split(r"[^a-z0-9]+", head.lower())) - {""}
    if head.strip().lower() in _POSITION_HEADS or words & {"physical", "phys"}:
        return "position"
    if words & _SKIP_HEADS:
        return "skip"
    return "name" if words & _NAME_HEADS else "function"


def _period(header: list[str]) -> int:
    low = [h.lower() for h in header]
    for k in range(2, len(low) // 2 + 1):
        if len(low) % k == 0 and all(low[i] == low[i % k] for i in range(len(low))):
            return k
    return len(low)


def _table_claims(board: str, src: str, heading: str, header: list[str],
                  rows: list[tuple[int, list[str]]]) -> Iterator[Claim]:
    connector = re.search(r"\b(J\d{1,2}|CN\d{1,2})\s*$", heading)
    k = _period(header)
    for lo in range(0, len(header), k):
        head = header[lo:lo + k]
        kinds = [_header_kind(h) for h in head]
        for line, full in rows:
            if len(full) != len(header):
                continue
            cells = full[lo:lo + k]
            pins = [(c, p) for c, cell in enumerate(cells) if (p := _pin_in(cell, head[c])) is not None]
            if not pins or any(_pin_list(cell) or _ROLE_PIN.search(cell) for cell in cells):
                continue  # no pin, or pins listed per signal (``PA2 / PA3``, ``SCK P1.15``): a bus row (_bus_claims)
            pc, pin = pins[0]
            where = f"{src} line {line}"
            for c, cell in enumerate(cells):
                if c == pc or kinds[c] == "skip" or cell in ("", "-"):
                    continue
                if kinds[c] == "position" and cell.isdigit():
                    yield Claim(board, f"{connector.group(1)}-{int(cell)}" if connector else f"pin {int(cell)}",
                                pin, where, "header position")
                    continue
                for name in _names_in(cell, kinds[c] == "name"):
                    if c in {x for x, _ in pins} and name == _pin_in(name, ""):
                        continue
                    cls = "table name" if kinds[c] == "name" else "table function"
                    yield Claim(board, name, pin, where, cls)
            # a cell listing the pin with other names: "GP28 / ADC2", "GPIO36, ADC1_CH0, SENSOR_VP" (not its note)
            for name in _names_in(_PAREN.sub(" ", cells[pc]), True):
                if name != pin:
                    yield Claim(board, name, pin, where, "table name")


_ROLE_PIN = re.compile(rf"\b([A-Za-z]{{2,5}}\d?)\s+({NATIVE.pattern})\b")


def _bus_claims(board: str, src: str, header: list[str], rows: list[tuple[int, list[str]]]) -> Iterator[Claim]:
    """A bus named in a row's first cell with its signals' pins: a column per signal, ``SCL / SDA`` over
    ``PB8 / PB9``, or ``SDA P0.26, SCL P0.27`` listed in a cell."""
    roles = {c: h.lower() for c, h in enumerate(header) if h.lower() in _ROLES}
    for line, cells in rows:
        if len(cells) != len(header) or not cells:
            continue
        first = _PAREN.sub(" ", cells[0])
        words = first.split()
        buses = [w for w in re.split(r"\s*/\s*|\s+", first) if _BUSES.fullmatch(w)]
        buses += [b for b in (p.strip() for i in _PAREN.findall(cells[0]) for p in i.split(","))
                  if _BUSES.fullmatch(b)]
        if not buses:
            continue
        pairs: list[tuple[str, str]] = []
        for c, role in roles.items():
            pin = _pin_in(cells[c], header[c])
            if pin:
                pairs.append((role, pin))
        if len(words) >= 2 and "/" in first:  # | I2C1 SCL / SDA | PB8 / PB9 |
            sigs = [s.strip().lower() for s in " ".join(words[1:]).split("/")]
            for cell in cells[1:]:
                got = [p.strip() for p in cell.split("/")]
                if len(got) == len(sigs) and all(NATIVE.fullmatch(p) for p in got):
                    pairs += [(s, p) for s, p in zip(sigs, got, strict=True) if s in _ROLES]
                    break
        for cell in cells[1:]:
            pairs += [(m.group(1).lower(), m.group(2)) for m in _ROLE_PIN.finditer(cell)
                      if m.group(1).lower() in _ROLES]
        for bus in dict.fromkeys(buses):
            for role, pin in dict.fromkeys(pairs):
                yield Claim(board, f"{bus.upper()}_{role.upper()}", pin, f"{src} line {line}", "bus role")
                yield Claim(board, f"{bus.lower()} {role.lower()}", pin, f"{src} line {line}", "bus role spelling")
                if role in SAME_ROLE:
                    yield Claim(board, f"{bus.upper()} {SAME_ROLE[role].upper()}", pin, f"{src} line {line}",
                                "bus role synonym")


_ALIAS_SECTION = re.compile(r"^#{1,6}\s+pins?(?:\s+alias(?:es)?)?\s*$", re.IGNORECASE)
_EQ = re.compile(r"`?([A-Za-z][A-Za-z0-9_.]*)`?\s*=\s*`?([A-Za-z0-9][A-Za-z0-9_.]*)`?")
#: ``A = B [= C]`` with whole words on both sides (not the halves of ``D0/D1 = PD0/PD1`` or ``M=8, N=336``).
_CHAIN = re.compile(r"(?<![\w/.\-])(?:`?[A-Za-z0-9_.]+`?\s*=\s*)+`?[A-Za-z0-9_.]+`?(?![\w/\-])")
#: ``name (pin)`` or ``pin (name, ...)``; a name may be a bus instance and its signal (``I2S0 WS (GPIO19)``).
_NAME_PAREN = re.compile(r"\b((?:[A-Za-z][A-Za-z0-9]*\d )?[A-Za-z][A-Za-z0-9_.]*)\s*\(([^()]{1,40})\)")


def _prose_claims(board: str, src: str, lines: list[str], arduino: bool) -> Iterator[Claim]:
    """Alias lines, ``name = pin`` chains and ``pin (name)`` / ``name (pin)`` in prose and in table cells."""
    in_alias = False
    physical = False
    for n, raw in enumerate(lines, 1):
        s = raw.strip()
        where = f"{src} line {n}"
        if s.startswith("#"):
            in_alias = bool(_ALIAS_SECTION.match(s))
            physical = False
            continue
        if in_alias:
            if "physical header pin" in s.lower():
                physical = True
            body = re.sub(r"^[-*]\s+", "", s).replace("`", "")
            m = re.fullmatch(r"([A-Za-z0-9_.]+)\s*[:=]\s*([A-Za-z0-9_.]+)", body)
            if m:
                pin = f"pin {m.group(2)}" if physical and m.group(2).isdigit() else m.group(2)
                yield Claim(board, m.group(1), pin, where, "alias line")
            continue
        for chain in _CHAIN.finditer(s):
            parts = [p.strip(" `") for p in chain.group(0).split("=")]
            # the pin: a chip's own spelling, else an Arduino header name, else a bare number in the board's
            # own numbering (the ESP32 core's "SDA = 21" is GPIO21, the Nano's "LED_BUILTIN = 13" is D13)
            anchor = next((p for p in parts if NATIVE.fullmatch(p)), None) or next(
                (p for p in parts if ANCHOR.fullmatch(p)), None) or next((p for p in parts if p.isdigit()), None)
            if anchor is None:
                continue
            if anchor.isdigit() and parts[0] == anchor and re.search(r"\bpin $", s[:chain.start()]):
                anchor = f"pin {anchor}"  # "GPIO2 pin 3 = SDA": a place on the header, not a pin number
            for p in parts:
                if anchor.isdigit() and not re.fullmatch(r"[A-Z][A-Z0-9_]+", p):
                    continue  # "SDA = 21" in an Arduino core note, not "func=4" in a config line
                if p != anchor and not p.isdigit() and len(p) > 1 and _is_name(p, False):
                    yield Claim(board, p, anchor, where, "prose name = pin")
        for m in _NAME_PAREN.finditer(s):
            outer = m.group(1)
            inner = [x.strip() for x in re.split(r",|;", m.group(2))]
            if ANCHOR.fullmatch(outer):
                for x in inner:
                    if not ANCHOR.fullmatch(x) and _is_name(x, False) and x.lower() not in ("tx", "rx"):
                        yield Claim(board, x, outer, where, "prose pin (name)")
            else:
                anchors = [x for x in inner if ANCHOR.fullmatch(x)]
                if len(anchors) == 1 and _is_name(outer, False) and outer.upper() not in ("GPIO", "PIN"):
                    yield Claim(board, outer, anchors[0], where, "prose name (pin)")


def _board_columns(header: list[str], tags: list[str]) -> dict[int, list[str]]:
    """One column per board (the generic notes' ``| Header | Arduino Uno | NUCLEO-F401RE / F446RE |``)."""
    out: dict[int, list[str]] = {}
    for c, head in enumerate(header):
        flat = re.sub(r"[^a-z0-9/]", "", head.lower())
        parts = flat.split("/")
        found = [t for t in tags if t.replace("-", "") in flat.replace("/", "")]
        family = re.sub(r"[a-z0-9]+$", "", parts[0]) if found else ""
        for p in parts[1:]:
            found += [t for t in tags if family and t.replace("-", "") == family + p]
        if found:
            out[c] = list(dict.fromkeys(found))
    return out


def claims(root: Path, boards: list[str]) -> Iterator[Claim]:
    """Every claim of the datasheets under `root`, for the boards `boards` names (ids and tags)."""
    for f in scan(root)[0]:
        text = read_text(f)[0] or ""
        lines = text.split("\n")
        src = f.rel
        if f.board is None:  # a generic note: only its one-column-per-board tables name pins of a board
            for _, _, header, rows in _tables(lines):
                for col, tags in _board_columns(header, boards).items():
                    for tag in tags:
                        sub = [(line, [cells[0], cells[col]]) for line, cells in rows if len(cells) == len(header)]
                        yield from (replace(c, cls=f"generic {c.cls}")
                                    for c in _table_claims(tag, src, "", [header[0], "Pin"], sub))
            continue
        arduino = any(re.fullmatch(r"\|?\s*D\d{1,2}\b.*", ln.strip()) for ln in lines) or "arduino" in text.lower()
        for _, heading, header, rows in _tables(lines):
            yield from _table_claims(f.board, src, heading, header, rows)
            yield from _bus_claims(f.board, src, header, rows)
        yield from _prose_claims(f.board, src, lines, arduino and "Arduino" in text)


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    outcome: str  # "ok", "ok: ambiguous", "unknown", "unknown, suggests it", "wrong", "picked", "picked, noted",
    # "board file's routing" (and ", noted"), "refused", "anchor"
    got: str


def _canonical(index: PinIndex, board: str, pin: str) -> str | None:
    try:
        return index.resolve(board, pin).name
    except PinError:
        return None


def audit(index: PinIndex, found: list[Claim]) -> list[Verdict]:
    """Resolve every claim; a name the claims give several pins of one board must be refused listing them."""
    pins: dict[tuple[str, str], set[str]] = defaultdict(set)
    anchored: list[tuple[Claim, str | None]] = []
    for c in found:
        want = _canonical(index, c.board, c.pin)
        anchored.append((c, want))
        if want is not None:
            pins[(c.board, name_key(c.name))].add(want)
    out = []
    for c, want in anchored:
        if want is None:
            out.append(Verdict(c, "anchor", f"{c.pin} does not resolve"))
            continue
        several = pins[(c.board, name_key(c.name))]
        try:
            pin = index.resolve(c.board, c.name)
            got = pin.name
        except AmbiguousPinError as exc:
            listed = {_canonical(index, c.board, p) or p for p in exc.pins}
            ok = want in listed  # the name means several pins (here, or on the buses or functions it names)
            # and what the error says to type gives each pin it is offered for
            misled = next((f"ambiguous, but {n!r} gives {_canonical(index, c.board, n)}, not {p}"
                           for n, p in exc.choices if _canonical(index, c.board, n) != p), None)
            out.append(Verdict(c, "ok: ambiguous" if ok and misled is None else "refused",
                               misled or f"ambiguous {sorted(listed)}"))
            continue
        except UnknownPinError as exc:
            # refused, but the error names the spelling that gives the pin ("IN0": the closest is ADC1_IN0)
            hint = next((s for s in exc.suggestions if _canonical(index, c.board, s) == want), None)
            out.append(Verdict(c, "unknown" if hint is None else "unknown, suggests it", hint or type(exc).__name__))
            continue
        except PinError as exc:
            out.append(Verdict(c, "unknown", type(exc).__name__))
            continue
        if got == want:
            out.append(Verdict(c, "ok" if len(several) == 1 else _picked(pin.notes, several - {got}), got))
        elif _routed(index, c.board, c.name, got):
            noted = any(re.search(rf"\b{re.escape(want)}\b", note) for note in pin.notes)
            out.append(Verdict(c, "board file's routing, noted" if noted else "board file's routing", got))
        else:
            out.append(Verdict(c, _picked(pin.notes, several - {got}) if got in several else "wrong", got))
    return out


def _picked(notes: tuple[str, ...], others: set[str]) -> str:
    """A name the claims give several pins, answered with one: "picked, noted" when the answer's notes name every
    other pin (the alias line's choice, with the function's other pins said), else "picked"."""
    said = {p for note in notes for p in re.findall(r"[A-Za-z0-9_.]+", note)}
    return "picked, noted" if others <= said else "picked"


def _routed(index: PinIndex, board: str, name: str, got: str) -> bool:
    """Whether `name` is a bus signal the board file routes to `got`: the board file is the authority for its
    board, and a datasheet table giving the signal another pin describes another mapping of the peripheral
    (USART1 on PA9/PA10 on the Arduino header, on PB6/PB7 in a devicetree)."""
    b = index.board(board)
    keys = {name_key(n) for n in (name, *alternatives(name))}
    return b is not None and any(name_key(f"{bus}{r}") in keys and p == got
                                 for bus, rs in b.buses.items() for r, p in rs.items())


def roots() -> dict[str, Path]:
    shared = REPO.parent / "shared" / "corpus" / "datasheets"
    return {"bundled": bundled_datasheets_dir(), **({"shared": shared} if shared.is_dir() else {})}


def _variants(name: str) -> set[str]:
    """The same name typed another way: other case, separators swapped or dropped (a dot before a digit kept:
    ``P0.13`` is not ``P0 13``)."""
    out = {name.lower(), name.upper()}
    if re.search(r"[\s_\-]", name):
        out |= {re.sub(r"[\s_\-]+", sep, name) for sep in ("_", " ", "-", "")}
    return out - {name}


def board_claims(index: PinIndex) -> Iterator[Claim]:
    """What every board file says of its pins: its numbers in the board's convention and the usual spellings
    of them (BCM17, IO2, GP25 / GPIO25, D13), header positions with the other ways of writing a position."""
    for board_id in index.board_ids():
        b = index.board(board_id)
        assert b is not None
        where = f"board file {board_id}.toml"
        for p in b.pins:
            if p.number is not None:
                n = p.number
                spelled = {"bcm": [f"BCM{n}", f"GPIO{n}"], "arduino": [f"D{n}"] if not p.name.startswith("P") or
                           any(h == f"D{n}" for h in p.headers) else [],
                           "gpio": [f"GPIO{n}", f"IO{n}"] if p.name.startswith("GPIO") else [f"GP{n}", f"GPIO{n}"]}
                for name in [str(n), *spelled[b.integers]]:
                    yield Claim(board_id, name, p.name, where, "board number")
            for h in p.headers:
                yield Claim(board_id, h, p.name, where, "header position")
                m = re.fullmatch(r"([A-Za-z]+\d*)-(\d+)", h)
                if m and b.physical_header and m.group(1).lower() == b.physical_header.lower():
                    for name in (f"pin {m.group(2)}", f"{m.group(1)}:{m.group(2)}", f"BOARD{m.group(2)}"):
                        yield Claim(board_id, name, p.name, where, "header position")


def run() -> dict[str, list[Verdict]]:
    """Verdicts per datasheet directory. A shared tag's claims are asked of the tag and of each board sharing it;
    every claim's name is also asked in other case and separators."""
    out = {}
    for corpus, root in roots().items():
        index = pin_index_for(root)
        boards = index.known_boards()
        found = []
        for c in dict.fromkeys([*claims(root, boards), *board_claims(index)]):
            try:
                owners = index.applies_to(c.board)
            except UnknownBoardError:
                continue
            found.append(c)
            if index.board(c.board) is None:
                found += [Claim(b, c.name, c.pin, c.where, c.cls) for b in owners]
        verdicts = audit(index, list(dict.fromkeys(found)))
        typed = [Claim(v.claim.board, t, v.claim.pin, v.claim.where, "spelling variant") for v in verdicts
                 if v.outcome.startswith("ok") for t in _variants(v.claim.name)]
        out[corpus] = verdicts + audit(index, [*dict.fromkeys(typed), *(v.claim for v in verdicts)])[:len(
            dict.fromkeys(typed))]
    return out


def main() -> None:
    logging.disable(logging.WARNING)
    verdicts = run()
    bad = ("unknown", "wrong", "refused", "anchor") + (("picked",) if "--picked" in sys.argv else ()) + (
        ("unknown, suggests it",) if "--suggested" in sys.argv else ())
    for corpus, vs in verdicts.items():
        total = Counter(v.outcome for v in vs)
        print(f"{corpus}: {len(vs)} claims: " + ", ".join(f"{k} {n}" for k, n in sorted(total.items())))
        by_class = Counter((v.claim.cls, v.outcome) for v in vs if v.outcome in bad)
        for (cls, outcome), n in sorted(by_class.items()):
            print(f"  {cls:22} {outcome:8} {n}")
        if "-v" in sys.argv:
            for v in sorted(vs, key=lambda v: (v.claim.cls, v.outcome, v.claim.where)):
                if v.outcome in bad:
                    c = v.claim
                    print(f"    [{c.cls} / {v.outcome}] {c.board}: {c.name!r} -> want {c.pin}, got {v.got}  "
                          f"({c.where})")


if __name__ == "__main__":
    main()
