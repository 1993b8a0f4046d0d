"""A pin looked up by what its datasheet says it does: "illumination LEDs" is the pin whose row says "illumination
LEDs enable (output)", "reset" the pin a sentence calls "the reset line".

A HAT's or board's notes often give a pin no name at all, only a use: a header table's Use or Notes column ("| 7 |
GPIO4 | illumination LEDs enable (output) |"), a sentence ("P0.18 is the reset line", "GP23 selects the regulator
mode"). Those descriptions are kept beside the names (entries of kind ``description``, never names themselves) and
read last, when no name, spelling or bus role answers. The descriptions holding every word of the name are its
mentions: mentions of one pin, one of them with at least half of its words in the name, make the name that pin;
mentions of several pins ("RGB LED" in "RGB LED data" and "RGB LED clock", "LCD" in "LCD backlight" and "LCD chip
select") make it ambiguous, an error naming each, never a pick. A word that names what many pins can do or carry
("pwm", "clock", "data", "enable") says nothing alone.

Words are compared lowercased, a plural as its singular, without the words that say nothing about which pin it is
("pin", "gpio", "line", "the", ...), and a short form as the word it stands for ("mic" is "microphone"). A
description is read a clause at a time (up to a comma or semicolon) and without what it holds in brackets
("(output)"), and only a description in words is read: "TIM2 CH1" or "B1 USER" is a name, looked up as one.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Iterator, Sequence

from edge_agent.pins.ranges import CHIP_PIN
from edge_agent.pins.sections import AliasEntry

_WORD = re.compile(r"[a-z0-9]+")
_BRACKETS = re.compile(r"\([^()]*\)")
_CLAUSES = re.compile(r"[,;]| - ")
#: Words that say nothing about which pin is meant.
_UNTELLING = frozenset({"pin", "pins", "gpio", "gpios", "line", "lines", "signal", "the", "a", "an", "of", "on", "for",
                        "to", "at", "and", "or", "with", "is", "are", "default", "bcm", "header", "physical",
                        # a pin with no use of its own: "plain GPIO", "leave free", "spare", "unused", "reserved"
                        "plain", "free", "leave", "spare", "unused", "reserved", "general", "purpose", "not", "used"})
#: Words that many pins of a board can do or carry: alone, they name none of them.
_GENERIC = frozenset({"pwm", "clock", "clk", "data", "enable", "chip", "select", "input", "output", "high", "low",
                      "read", "write", "sense", "power", "analog", "digital", "interrupt", "irq", "alt", "function",
                      "mode", "timer", "channel", "bus", "port", "serial", "uart", "spi", "i2c", "led", "button"})
#: "P0.18 is the reset line", "P0.09/P0.10 are the NFC antenna pads", "GP23 selects the regulator mode": the three
#: forms a datasheet defines a pin's use in (each looked for as a plain string costs a scan of every file).
_PROSE = re.compile(rf"(?<![\w./-])((?:{CHIP_PIN.pattern})(?:/(?:{CHIP_PIN.pattern}))*)"
                    r" (?:is the|are the|selects the) "
                    r"([A-Za-z][^.,;:()\n]{2,40})")
#: A pin list ending just before: in "GPIO0, GPIO2 and GPIO15 are the strapping pins" GPIO15 is one of several.
_LISTED = re.compile(rf"(?:{CHIP_PIN.pattern}|\d)(?:,| and| or|-)\s*$")
#: The words after a pin that say what it is or does, found as plain strings (a file is scanned at memchr speed).
_PROSE_MARKS = (" is the ", " are the ", " selects the ")


def _marks(text: str) -> Iterator[int]:
    """Where a verb saying what a pin is follows a number (a chip pin ends in its number): most sentences of a
    datasheet say what something else is."""
    for mark in _PROSE_MARKS:
        at = text.find(mark)
        while at >= 0:
            if at and text[at - 1].isdigit():
                yield at
            at = text.find(mark, at + 1)


#: Short forms a name is typed in, as the datasheets write the word.
_SHORT = {"mic": "microphone", "temp": "temperature", "btn": "button", "xtal": "crystal", "osc": "oscillator"}


def words(text: str) -> frozenset[str]:
    """The telling words of a name or description, lowercased, plurals as their singular, short forms written out."""
    out = set()
    for w in _WORD.findall(text.lower()):
        if w in _UNTELLING:
            continue
        w = _SHORT.get(w, w)
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return frozenset(out)


_PLAIN_WORD = re.compile(r"\b[a-z]{3,}\b")


def in_words(text: str) -> bool:
    """Whether `text` says something in words (one lowercase word at least: "RGB LED data", "reset line"), not only
    identifiers ("TIM2 CH1", "ADC1 IN1", "B1 USER"), which are names and looked up as names."""
    return _PLAIN_WORD.search(text) is not None


def clauses(cell: str) -> list[str]:
    """A description cell's clauses in words (:func:`in_words`), without what brackets hold: "PCM/I2S frame sync, PWM1
    alt" is two; "I2C1 SDA", only an identifier, none (it is a name, kept as one)."""
    if not in_words(cell):
        return []  # most cells of a pin table: a name or a pin, no word
    parts = (" ".join(part.split()) for part in _CLAUSES.split(_BRACKETS.sub(" ", cell)))
    return [c for c in parts if in_words(c) and words(c)]


def in_prose(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, description, pin) for each sentence saying what a chip pin (or a slash list of them) is or does."""
    for at in sorted(_marks(text)):
        start = text.rfind("\n", 0, at) + 1
        m = _PROSE.search(text, max(start, at - 40), at + 60)
        if m is None or not m.start() < at + 1 <= m.end() or _LISTED.search(text, max(0, m.start() - 12), m.start()):
            continue
        line = text.count("\n", 0, m.start()) + 1
        for pin in m.group(1).split("/"):
            yield line, m.group(2).strip(), pin


def matching(descriptions: Iterable[AliasEntry], name: str) -> dict[str, list[AliasEntry]]:
    """The descriptions that mention `name` (see the module docstring), by the pin they describe, those covering
    half their words or more first; {} when the name mentions one pin without covering half of a description."""
    asked = words(name)
    found: dict[str, list[AliasEntry]] = {}
    if not asked or asked <= _GENERIC or all(w.isdigit() for w in asked):  # "physical pin 0" is a position
        return found
    covered = False
    for e in descriptions:
        held = words(e.alias)
        if asked <= held:
            close = 2 * len(asked) >= len(held)
            covered = covered or close
            hits = found.setdefault(e.value, [])
            if close:
                hits.insert(0, e)
            else:
                hits.append(e)
    return found if covered or len(found) > 1 else {}


def by_tag(names: Iterable[AliasEntry], placed: Sequence[tuple[int, AliasEntry]],
           name_kinds: Container[str]) -> dict[str, list[AliasEntry]]:
    """The descriptions of each tag's pins, in the order the datasheets give them: the description entries
    (`placed`, each with its place among all the entries) and the names of several words in words (of a kind in
    `name_kinds`, the tables': "illumination LEDs enable" in a name column describes its pin too) among `names`,
    the other entries in their order."""
    got: dict[str, list[AliasEntry]] = {}
    for e in _in_order(names, placed):
        if e.tag is not None and (e.kind == "description" or e.kind in name_kinds and " " in e.alias.strip()) and \
                in_words(e.alias):
            got.setdefault(e.tag, []).append(e)
    return got


def _in_order(names: Iterable[AliasEntry], placed: Sequence[tuple[int, AliasEntry]]) -> Iterator[AliasEntry]:
    """`names` with each of `placed` put back at its place."""
    rest = iter(names)
    at = 0
    for place, e in placed:
        while at < place:
            yield next(rest)
            at += 1
        yield e
        at += 1
    yield from rest
