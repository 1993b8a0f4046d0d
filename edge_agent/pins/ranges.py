"""Pin ranges written in a datasheet's prose and cells: ``A0-A15``, ``D22-D53``, ``P0.00-P0.31``.

A range names every pin in it: the Mega's "16 analog inputs (A0-A15)" says A12 is a pin of the board even
where no table lists it. A range set equal to another range of the same length maps them pin by pin:
"D2-D7 = PD2-PD7" (also "are", "is", "map to") makes D3 the port pin PD3; so does a slash list set equal
to another ("D0/D1 = PD0/PD1").

An Arduino board numbers its analog inputs after its digital pins, and a datasheet writes that as a range of
analog pins followed by a range of numbers of the same length: "A0-A15 as 54-69", "A8-A15 (62-69)". Each
number then names its analog pin as a digital pin number, bare and with its D (69 and D69 are the Mega's
A15), as entries of kind ``prose``; so does a range of digital pins written after the inputs with "at" or "as"
("A0-A5 at D46-D51": the Arduino core of a Nucleo numbers A0 as D46).

A name written in brackets after a chip pin ("GPIO3 (I2C1 SCL)") or a chip pin in brackets after a name ("D16 (PC10)")
in prose names that pin too (kind ``prose``); a bus role alone in brackets ("PA2 (TX)") does not, being the role of
one of several buses.

A name set equal to one pin ("D2 = INT0" in the Nano's notes, "LED_BUILTIN = LED_GREEN = PA5" in a Nucleo's) names
that pin: an entry of kind ``equal``, read after the names of tables and alias lines and only where the pin it is set
equal to is already a pin of the board. Only names written as constants are read so (capitals, digits and ``_``:
``INT0``, ``USER_BTN``), never a word of prose ("D0 = serial RX").

A Broadcom GPIO written with its place on the 40-pin header and set equal to a name ("GPIO2 pin 3 = SDA", as an
add-on board's notes say which header pins its bus uses) names that pin, and so does the place ("pin 3"): kind
``prose``.
The header position makes the name explicit, so a bus role alone is read here too.

Plain ranges give entries of kind ``range``, the weakest: a name any table or alias line gives answers first
(see :class:`edge_agent.pins.PinIndex`). Mapped ranges give entries of kind ``prose``, like an alias line.

Only ranges whose two ends carry the same prefix are read (``A8-A15``, not ``GPIO32-39``): a number after a
dash is too often a value range. Found from the dashes that stand before a pin prefix (one scan a file), since
every file of a large library is read this way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from edge_agent.pins.spellings import ROLE_WORDS, bare_role

#: Prefixes of pin names a range may carry, longest first within a family (not IO: "IO0-IO3" are a QSPI bus's
#: data lines as often as an ESP32's pins).
_RANGE = re.compile(r"(?<![A-Za-z0-9_.])(GPIO|GP|P[A-L]|P\d\.|D|A)(\d{1,2})[-\u2013]\1(\d{1,2})(?![A-Za-z0-9_])")
_MAPS_TO = re.compile(r"\s*(?:=|->|are|is|map to|maps to)\s*")
_MARK = re.compile(r"-[ADGP]")
#: The Arduino numbers an analog range stands for, written after it: "A0-A15 as 54-69", "A8-A15 (62-69)".
_NUMBERS = re.compile(r"\s*(?:as|=|\()\s*(\d{1,3})\s*[-\u2013]\s*(\d{1,3})(?![\d.])(?!\s*[A-Za-z%])")
#: Words putting an analog range at the digital pins that also name it: "A0-A5 at D46-D51", "used as D14-D19".
_AT = re.compile(r"\s*(?:at|as|used as)\s*")
#: The longest range read (a port of 32 pins, a Mega's 54 digital pins).
MAX_SPAN = 64


def span(prefix: str, first: str, last: str) -> list[str] | None:
    """The names from `prefix` `first` to `prefix` `last` (P0.00-P0.31 keeps two digits); None for a span that is
    empty, backwards or longer than :data:`MAX_SPAN`."""
    a, b = int(first), int(last)
    if b <= a or b - a >= MAX_SPAN:
        return None
    width = len(first) if first.startswith("0") and len(first) > 1 else 0  # P0.00-P0.31 keeps two digits
    return [f"{prefix}{i:0{width}d}" if width else f"{prefix}{i}" for i in range(a, b + 1)]


def _dashes(text: str) -> Iterator[int]:
    """Where a dash stands before a pin prefix (or an en dash stands): the places a range can be."""
    for m in _MARK.finditer(text):  # a pattern with a literal first character: scanned at memchr speed
        yield m.start()
    if not text.isascii():
        at = text.find("\u2013")
        while at >= 0:
            yield at
            at = text.find("\u2013", at + 1)


def _found(text: str) -> Iterator[re.Match[str]]:
    """Every range in `text`, in order, each once."""
    starts: set[int] = set()
    for at in _dashes(text):
        if at > 0 and text[at - 1].isdigit():
            m = _RANGE.search(text, max(0, at - 8), at + 8)
            while m is not None and m.end() <= at:
                m = _RANGE.search(text, m.end(), at + 8)
            if m is not None and m.start() < at < m.end():
                starts.add(m.start())
    for start in sorted(starts):
        m = _RANGE.match(text, start)
        if m is not None:
            yield m


_ONE = r"(?:GPIO|GP|P[A-L]|P\d\.|D|A)\d{1,2}"
#: Slash lists of pins set equal to each other: "D0/D1 = PD0/PD1".
_LISTS = re.compile(rf"(?<![A-Za-z0-9_.])((?:{_ONE}/)+{_ONE})\s*(?:=|->|are|is|map to|maps to)\s*((?:{_ONE}/)+{_ONE})"
                    r"(?![A-Za-z0-9_])")
_SLASH = re.compile(r"/[ADGP]")
#: A bracket that can hold a pin or a name: after a capital or a digit and opening on a capital (not the "(input
#: only)" notes most brackets of a datasheet hold). The bracket comes first, so the scan runs at a plain search's speed.
_OPEN = re.compile(r"\((?:(?<=[A-Z0-9]\()|(?<=[A-Z0-9] \())(?=[A-Z][^()\n]{0,39}\))")
_ONE_PIN = re.compile(_ONE)


def _pin_lists(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, name, pin) for each pair of slash lists of pins set equal to each other, pin by pin."""
    seen: set[int] = set()
    for mark in _SLASH.finditer(text):  # a literal first character: one fast scan a file
        at = mark.start()
        line_start = text.rfind("\n", 0, at) + 1
        if line_start in seen:
            continue
        seen.add(line_start)
        line_end = text.find("\n", at)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        for m in _LISTS.finditer(line):
            names, pins = m.group(1).split("/"), m.group(2).split("/")
            if len(names) == len(pins):
                lineno = text.count("\n", 0, line_start) + 1
                yield from ((lineno, n, p) for n, p in zip(names, pins, strict=True))
        for m in _PAIRED.finditer(line):  # "P0.00/P0.01 are the 32.768 kHz crystal (XL1/XL2)"
            pins, names = m.group(1).split("/"), m.group(3).split("/")
            if len(pins) == len(names) and all(constant_name(n) for n in names):
                lineno = text.count("\n", 0, line_start) + 1
                yield from ((lineno, n, p) for n, p in zip(names, pins, strict=True))


#: Names and pins set equal in a chain (``D2 = INT0``, ``LED_BUILTIN = LED_GREEN = PA5``), whole words on both sides.
_CHAIN = re.compile(r"(?<![\w/.\-])`?[A-Za-z][\w.]*`?(?:\s*=\s*`?[A-Za-z][\w.]*`?)+(?![\w/\-])")
_NEAR_PIN = re.compile(r"(?:GPIO|GP|P[A-L]|P\d\.|(?<![A-Za-z])[DA])\d")
CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*\d[A-Z0-9_]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{2,}")


def _equal_names(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, name, pin) for each constant set equal to a pin (see the module docstring)."""
    at = text.find("=")
    while at >= 0:
        if not _NEAR_PIN.search(text, max(0, at - 12), at + 12):  # most "=" of a datasheet are in registers
            at = text.find("=", at + 1)
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        for chain in _CHAIN.finditer(text, start, end):
            parts = [p.strip(" `").rstrip(".") for p in chain.group(0).split("=")]  # "USER_BTN = PC13."
            pins = [p for p in parts if _ONE_PIN.fullmatch(p)]
            if len(pins) == 1:
                line = text.count("\n", 0, start) + 1
                yield from ((line, p, pins[0]) for p in parts if p != pins[0] and CONSTANT.fullmatch(p))
        at = text.find("=", end)


#: A chip's own pin spelling (PA5, P0.13, GPIO17, GP25): what a name in brackets beside it names.
CHIP_PIN = re.compile(r"P[A-L]\d{1,2}|P\d\.\d{1,2}|GPIO\d{1,2}|GP\d{1,2}")
#: A slash list of chip pins, then in its clause a bracketed slash list of their names: "P0.00/P0.01 are the
#: 32.768 kHz crystal (XL1/XL2)".
_PAIRED = re.compile(rf"(?<![\w.])((?:(?:{CHIP_PIN.pattern})/)+(?:{CHIP_PIN.pattern}))(?![\w./-])"
                     r"((?:[^()\n;.]|\.(?=\S)){0,60}?)\(([A-Za-z0-9_]+(?:/[A-Za-z0-9_]+)+)\)")


def constant_name(word: str) -> bool:
    """Whether a bracketed word is a name written as a constant (LRCLK, XL1), not a bus role alone (TX, CLK) or a
    chip pin."""
    return bool(CONSTANT.fullmatch(word)) and word.lower() not in ROLE_WORDS and not CHIP_PIN.fullmatch(word)


#: What stands before a bracket: a name, maybe after its bus instance ("I2S0 SCLK", "D16", "GPIO18").
_BEFORE = re.compile(r"(?<![\w.\-])((?:[A-Z][A-Za-z0-9]*\d )?[A-Za-z][A-Za-z0-9_.]*)\s?$")
#: A name inside brackets: a constant, or a bus instance and its signal ("I2C1 SCL", "SPI0 CE0").
_INSIDE = re.compile(rf"(?:{CONSTANT.pattern})|[A-Z][A-Z0-9]*\d [A-Z][A-Z0-9]*")


_NAMED = re.compile(rf"(?:(?<=\()|(?<=,)|(?<=, ))(?:{CHIP_PIN.pattern}|{_INSIDE.pattern})(?:,|$)")


def _bracketed_names(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, name, pin) for a name written in brackets after a chip pin ("GPIO3 (I2C1 SCL)", "GP29 (ADC3)") or a
    chip pin written in brackets after a name ("D16 (PC10)", "I2S0 WS (GPIO19)"). A bus role alone ("PA2 (TX)")
    is the role of one of several buses, not a name of the pin, and is left out."""
    for m in _OPEN.finditer(text):
        at = m.start()
        end = text.find(")", at)
        if not _NAMED.search(text, at + 1, end):
            continue  # "(USART0, USB)", "(A4)": neither a name nor a chip pin in it
        inner = [x.strip() for x in text[at + 1:end].split(",")]
        before = _BEFORE.search(text, max(0, at - 24), at)
        if before is None or text[text.rfind("\n", 0, at) + 1:at].lstrip().startswith("|"):
            continue  # nothing named before it, or a table's cell (its notes are the table parser's)
        outer = before.group(1)
        if CHIP_PIN.fullmatch(outer):  # an Arduino name in brackets ("PA4 (A2)") is the header tables' to give
            pairs = [(x, outer) for x in inner if _INSIDE.fullmatch(x) and not _ONE_PIN.fullmatch(x)]
        elif sum(1 for x in inner if CHIP_PIN.fullmatch(x)) == 1 and all(
                CHIP_PIN.fullmatch(x) or _INSIDE.fullmatch(x) for x in inner) and (
                _ONE_PIN.fullmatch(outer) or _INSIDE.fullmatch(outer)):  # not "ADC2 (GPIO0, 2, 4, 12-15)"
            pin = next(x for x in inner if CHIP_PIN.fullmatch(x))
            pairs = [(outer, pin), *((x, pin) for x in inner if x != pin and _INSIDE.fullmatch(x))]
        else:
            continue
        pairs = [(n, p) for n, p in pairs if bare_role(n) is None and not CHIP_PIN.fullmatch(n)]
        if pairs:
            line = text.count("\n", 0, at) + 1
            yield from ((line, n, p) for n, p in pairs)


#: "GPIO2 pin 3 = SDA": a Broadcom GPIO, its header place and the name it has there (found from "GPIO", a literal).
_POSITIONED = re.compile(r"GPIO(\d{1,2}) pin (\d{1,2}) ?= ?([A-Z][A-Za-z0-9_]*)(?![\w/])")


def _positioned(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, name, pin) for each GPIO written with its header place and set equal to a name (see the module
    docstring): the name and the place ("pin 3") both name it."""
    for m in _POSITIONED.finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_."):
            continue  # part of a longer word
        line = text.count("\n", 0, m.start()) + 1
        pin = f"GPIO{m.group(1)}"
        yield line, m.group(3), pin
        yield line, f"pin {m.group(2)}", pin


def pin_ranges(text: str) -> list[tuple[int, str, str, str]]:
    """(line number, name, value, kind) for each pin a range in `text` names: value = the name itself (kind
    ``range``), or the pin of the range it is set equal to (kind ``prose``)."""
    out: list[tuple[int, str, str, str]] = []
    mapped: set[int] = set()  # starts of ranges read as the right-hand side of a mapping
    for m in _found(text):
        if m.start() in mapped:
            continue
        names = span(m.group(1), m.group(2), m.group(3))
        if names is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        sep = _MAPS_TO.match(text, m.end())
        other = _RANGE.match(text, sep.end()) if sep is not None else None
        values = span(other.group(1), other.group(2), other.group(3)) if other is not None else None
        if other is not None and values is not None and len(values) == len(names):
            mapped.add(other.start())
            out.extend((line, n, v, "prose") for n, v in zip(names, values, strict=True))
        else:
            out.extend((line, n, n, "range") for n in names)
            if m.group(1) == "A":  # the digital numbers of an Arduino's analog inputs, when written after them
                num = _NUMBERS.match(text, m.end())
                if num is not None and int(num.group(2)) - int(num.group(1)) == len(names) - 1:
                    first = int(num.group(1))
                    out.extend((line, spelling.format(first + i), n, "prose")
                               for i, n in enumerate(names) for spelling in ("{}", "D{}"))
                elif (at := _AT.match(text, m.end())) is not None and (d := _RANGE.match(text, at.end())) is not None:
                    # "A0-A5 at D46-D51": an Arduino core's digital numbers for the inputs, another name of each
                    digital = span(d.group(1), d.group(2), d.group(3)) if d.group(1) == "D" else None
                    if digital is not None and len(digital) == len(names):
                        mapped.add(d.start())
                        out.extend((line, dn, n, "prose") for dn, n in zip(digital, names, strict=True))
    out.extend((line, n, p, "prose") for line, n, p in _pin_lists(text))
    out.extend((line, n, p, "equal") for line, n, p in _equal_names(text))
    out.extend((line, n, p, "prose") for line, n, p in _bracketed_names(text))
    out.extend((line, n, p, "prose") for line, n, p in _positioned(text))
    return out
