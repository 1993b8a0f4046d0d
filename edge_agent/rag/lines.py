"""Where a chunk's lines hold a question's words: the finders the answer windows use (:func:`query.window`), and
the evidence that one line answers (:func:`line_share`, rule 8 of :mod:`query`).

A lookup is answered by one row or line: a register table's row naming the setting, a note's sentence. The
section where one line holds most of the question's words (weighted by idf) is the one that answers, where a
section holding the same words scattered over its lines is about something else.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import chain

from edge_agent.rag.text import spellings

GPIO_TERM = re.compile(r"gpio(\d+)")
_PART_NAME = re.compile(r"([a-z]+)(\d[a-z0-9]*)")


#: What a question asks for, and how a line writes it: an address is a hex byte, a voltage a number of volts, a
#: current, rate or time a number with its unit, a pin a chip pin, a header row's number or "pin 7".
_KINDS = [
    (re.compile(r"\baddress|\baddr\b"), re.compile(r"0x[0-9a-f]{2}")),
    (re.compile(r"\bvoltage|\bvolts?\b|\bsupply\b"), re.compile(r"\d(?:\.\d+)?\s?v\b")),
    (re.compile(r"\bcurrent\b|\bma\b"), re.compile(r"\d\s?(?:ma|\u00b5a|ua|a)\b")),
    (re.compile(r"\bfrequency|\bbaud|\bhz\b|\bhow fast|\bspeed\b|\brate\b"),
     re.compile(r"\d\s?(?:[kmg]?hz|baud|sps|bps)\b|\d{4,}")),
    (re.compile(r"\bhow long|\bdelay|\btimeout|\bwait\b"), re.compile(r"\d\s?(?:ms|us|\u00b5s|s|ns|min)\b")),
    (re.compile(r"\b(?:which|what) (?:gpio|pin|bcm)|\bpin number"),
     re.compile(r"gpio ?\d|\bp[a-k]\d|\bgp\d|\bd\d{1,2}\b|\bpin \d|\|\s*\d{1,2}\s*\|")),
]
#: A line not writing what the question asks for counts its words at this share (see :func:`line_share`).
UNTYPED = 0.3


def answer_kind(question: str) -> re.Pattern[str] | None:
    """How a line writes the value `question` asks for (an address, voltage, current, rate, time or pin), if it asks
    for one: the line that answers "which address" writes a hex byte, not only the question's words."""
    low = question.lower()
    for asks, value in _KINDS:
        if asks.search(low):
            return value
    return None


def line_share(text: str, heading: str, weights: Mapping[str, float], exact: Collection[str],
               typed: re.Pattern[str] | None = None) -> float:
    """The share of the question's words (`weights`: term -> idf) that one line of a section holds, at best.

    A line is read as an engineer reads it: with the section's own heading (the last part of `heading`) and, for a
    table row, the table's header row. Words are found in the lowercased text as :func:`window` finds them: exact
    tokens and words of one or two letters as whole tokens, others as written or in a spelling the vocabulary folds
    into them, a part name also hyphenated (``mpu6050`` in ``MPU-6050``). With `typed` (:func:`answer_kind`), a line
    that does not write the kind of value the question asks for counts its words at :data:`UNTYPED` of their weight.
    """
    total = math.fsum(weights.values())
    if total <= 0.0:
        return 0.0
    low = text.lower()
    own = heading.rsplit(" > ", 1)[1].lower() if " > " in heading else ""
    in_heading = 0.0
    lines: dict[int, set[str]] = {}
    for term, weight in weights.items():
        written = _written(term, term in exact)
        if own and next(iter(_hits(own, term, written)), None) is not None:
            in_heading += weight  # the heading is read with every line of its section
            continue
        seen, at, i = -1, 0, 0
        for pos in _hits(low, term, written):
            i += low.count("\n", at, pos)
            at = pos
            if i != seen:
                lines.setdefault(i, set()).add(term)
                seen = i
    if not lines:
        return in_heading / total
    split = low.split("\n") if typed is not None or ("|" in low and len(lines) > 1) else []
    if "|" in low and len(lines) > 1:  # a table row is read with its header row, when that holds a word too
        heads = [i for i in lines if split[i].startswith("|") and (i == 0 or not split[i - 1].startswith("|"))]
        for head in heads:
            for i, held in lines.items():
                if i > head and table_head(split, i) == head:
                    lines[i] = held | lines[head]
    # fsum: a line's words are a set, whose order changes with the interpreter's hash seed; a float sum in that
    # order could differ in its last bit from one process to the next and so flip a tie between two sections
    return (in_heading + max(math.fsum(weights[t] for t in held) * (
        1.0 if typed is None or typed.search(split[i]) else UNTYPED) for i, held in lines.items())) / total


def asked_weights(idf: dict[str, float]) -> dict[str, float]:
    """The question's words weighted for :func:`line_share`: by idf, but "gpio" (asking for a number, which only a
    line writing a numbered GPIO holds) as much as the most telling other word. Every board's datasheet writes
    GPIO, so by idf alone a line holding the question's rarer words and no number ("two white illumination
    LEDs beside it") would beat the header row that answers ("| 7 | GPIO4 | illumination LEDs enable |")."""
    if "gpio" in idf and len(idf) > 1:
        idf["gpio"] = max(w for t, w in idf.items() if t != "gpio")
    return idf


@lru_cache(maxsize=4096)
def _written(term: str, exact: bool) -> tuple[str, ...]:
    """How a question term is looked for in text: () as a whole token (an exact token, a word of one or two
    letters), else the spellings to find as substrings."""
    if exact or len(term) <= 2:
        return ()
    written = [w for w in (term, *spellings(term)) if len(w) > 2]
    if (m := _PART_NAME.fullmatch(term)) is not None:
        written.append(f"{m.group(1)}-{m.group(2)}")
    return tuple(written)


#: "which gpio" asks for a line's number: the word counts where a numbered GPIO is written (GPIO24, GPIO 4) or
#: heads a table column of numbers, not in prose about "any two GPIOs".
_NUMBERED_GPIO = re.compile(r"gpio ?\d|\| *gpio *\|")


def _hits(low: str, term: str, written: tuple[str, ...]) -> Iterable[int]:
    """Where lowercased text holds a question term, ascending."""
    if term == "gpio":
        return (m.start() for m in _NUMBERED_GPIO.finditer(low))
    if not written:
        return exact_hits(low, term)
    if len(written) == 1:
        return finds(low, written[0])
    return sorted(chain.from_iterable(finds(low, w) for w in written))


def finds(text: str, term: str) -> Iterator[int]:
    """Start of each occurrence of `term` in `text`."""
    at = text.find(term)
    while at >= 0:
        yield at
        at = text.find(term, at + 1)


def exact_hits(low: str, term: str) -> Iterator[int]:
    """Where lowercased text holds an exact term as a token of its own, ascending: ``gpio1`` not inside
    ``gpio17``, ``0`` not inside ``ce0`` or ``0x40``; a peripheral family (``i2c``) also in its instances
    (``i2c0``); hex numbers and pin names also in the spellings the tokenizer folds into them (``0x0d``,
    ``PA_05``, ``BCM17``, ``IO17``). Plain string searches and character tests: questions bring new numbers
    all the time, and compiling a pattern for each would cost more than the search."""
    prefixes: tuple[str, ...]
    if (m := _HEX_TERM.fullmatch(term)) is not None:
        core, prefixes = m.group(1), ("0x",)
    elif (m := GPIO_TERM.fullmatch(term)) is not None:
        core, prefixes = m.group(1), ("gpio", "bcm", "io")
    elif (m := _PORT_TERM.fullmatch(term)) is not None:
        core, prefixes = m.group(2), ("p" + m.group(1),)
    else:
        core, prefixes = term, ("",)
    digit_end = core[-1].isdigit()
    n = len(low)
    for at in finds(low, core):
        end = at + len(core)
        if end < n and (low[end] in _DIGITS if digit_end else low[end] in _LETTERS):
            continue  # the term goes on: gpio17 inside gpio170, i2c inside i2cx
        if digit_end and end + 1 < n and low[end] == "x" and low[end + 1] in _HEX_DIGITS:
            continue  # 0 as the start of 0x40
        start = at
        if prefixes[0]:
            while start > 0 and low[start - 1] == "0" and core != "0":  # leading zeros: 0x0d, pa05
                start -= 1
            if start > 0 and low[start - 1] in " _" and prefixes[0] != "0x":  # GPIO 17, PA_5
                start -= 1
            hit = next((p for p in prefixes if low.startswith(p, start - len(p))), None)
            if hit is None:
                continue
            start -= len(hit)
        first = low[start] if start < n else ""
        if start > 0 and low[start - 1] in (_DIGITS + _LETTERS + "." if first.isdigit() else _LETTERS):
            continue  # the term is the end of a longer one: 1 inside 11, gpio inside xgpio
        yield at


_DIGITS = "0123456789"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_HEX_DIGITS = _DIGITS + "abcdef"
_HEX_TERM = re.compile(r"0x([0-9a-f]+)")
_PORT_TERM = re.compile(r"p([a-l])(\d{1,2})")


def table_head(lines: list[str], i: int) -> int:
    """The first line of the Markdown table line `i` belongs to (its header row), or -1."""
    if not lines[i].startswith("|"):
        return -1
    while i > 0 and lines[i - 1].startswith("|"):
        i -= 1
    return i
