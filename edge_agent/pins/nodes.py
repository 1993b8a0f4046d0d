"""Devicetree names that a datasheet's prose links to a name of the board.

A Zephyr board's devicetree gives its LEDs and buttons node names and aliases (``led0``, ``sw0``, ``pwm-led0``,
``green_led_1``), and a board's notes often write some of them only in a sentence about the LED, never beside a pin:

- "`pwm-led0` drives LED1 through PWM0 channel 0";
- "`bootloader-led0` and `mcuboot-led0` also point at LED1, and `mcuboot-button0` at Button 1";
- "the devicetree node for the user LED is `green_led_1` (label "User LD4")".

A node's label (the string a devicetree gives it for people: ``label = "Green LED 0"``) names what its node names:
"`green_led_1` (label "User LD4")" makes "User LD4" a name of LD4, and a table cell "led0 (label "Green LED 0")"
makes "Green LED 0" a name of the pin its row gives led0.

Each such name is linked to the first name of the board written after the link ("drives", "points at", "is",
"=", "at", "maps to") or inside its label: a chip pin, a name holding a number (LED1, LD4, GPIO0) or a
button, switch or LED and its number ("Button 1"). What follows a bracket, "through", "with" or "via" is
how the name drives it, not what it is.

Only names written the way a devicetree writes them are read: in code quotes, lower case, with a digit or a
separator (`led0`, `pwm-led0`); a quoted word such as `button` or `Serial` is a library's object, and a
peripheral's node (`uart-0`, `i2c1`) is a bus, not a pin. A name after "no" ("No `led0` alias"), linked by a
negated verb, or linked to several chip pins is left out. The entries are of kind ``equal``: a linked name
answers only where what it is linked to is already a name of the board, so a link to a bus (`uart-0` = uart0)
or to nothing the board names gives nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from edge_agent.pins.ranges import CHIP_PIN

#: A devicetree name as a devicetree writes it: lower case, digits, "-" and "_".
_NAME = r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*"
_NODE = rf"`({_NAME})`"
#: One or more quoted names ("`a` and `b`", "`a`, `b`"), then the word that links them.
_LINKED = re.compile(
    rf"{_NODE}((?:\s*(?:,|\band\b|,\s*and\b)\s*`{_NAME}`)*)"
    r"\s+(?:also\s+)?(?:drives|drive|points?\s+at|is|are|=|at|maps?\s+to)\s+")
_LABEL = re.compile(rf"{_NODE}\s+\(label\s+\"([^\"\n]+)\"\)")
#: A table cell's node with its label: "led0 (label "Green LED 0")".
_CELL_LABEL = re.compile(rf"\s*({_NAME})\s+\(label\s+\"([^\"\n|]+)\"\)\s*")
_ONE_NODE = re.compile(_NODE)
#: Where the clause of a link ends: a clause mark or a bracket.
_CLAUSE_END = re.compile(r"[,;:()|]|\.(?:\s|$)")
#: Where what a name is linked to ends inside its clause: the words saying how the link works.
_HOW = re.compile(r"\s(?:through|with|via|and|but|when|if)\s")
#: A name of the board in the words after a link: a button or LED and its number, or a name holding a number.
_TARGET = re.compile(r"\b(?:Button|Switch|LED|Key|SW)\s\d{1,2}\b|\bP\d\.\d{1,2}\b|\b[A-Z][A-Za-z]*\d+\b")
_NEGATED = re.compile(r"\b(?:not|no|never)\b", re.IGNORECASE)
#: A node that is a peripheral instance (`uart-0`, `i2c_1`, `spi2`): a bus, which a sentence places on several pins.
_PERIPHERAL = re.compile(r"(?:i2c|spi|qspi|uart|usart|lpuart|i2s|can|usb|adc|dac|pwm|tim|timer|wdt|watchdog)[-_]?\d*")
_CHIP_PIN = re.compile(rf"\b(?:{CHIP_PIN.pattern})\b")


def _has_mark(name: str) -> bool:
    return any(c.isdigit() or c in "-_" for c in name) and not _PERIPHERAL.fullmatch(name)


def node_links(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, name, linked name) for each devicetree name `text`'s prose links to a name, and each node's label (see
    the module docstring). Table rows are the table parser's (:func:`cell_label`) and are skipped."""
    if "`" not in text:
        return
    for m in _LINKED.finditer(text):
        if _in_table_row(text, m.start()) or _NEGATED.search(text, max(0, m.start() - 4), m.start()):
            continue
        target = _first_target(text, m.end())
        if target is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        for name in _ONE_NODE.findall(m.group(0)):
            if _has_mark(name):
                yield line, name, target
    for m in _LABEL.finditer(text):
        found = _TARGET.search(m.group(2))
        if found is not None and _has_mark(m.group(1)) and not _in_table_row(text, m.start()):
            line = text.count("\n", 0, m.start()) + 1
            yield line, m.group(1), found.group(0)
            yield line, " ".join(m.group(2).split()), found.group(0)


def cell_label(cell: str) -> str | None:
    """The label a table cell gives its devicetree node (``led0 (label "Green LED 0")``: Green LED 0), if any: the
    table parser names the row's pin by it too."""
    m = _CELL_LABEL.fullmatch(cell) if "(label" in cell else None
    return " ".join(m.group(2).split()) if m is not None and _has_mark(m.group(1)) else None


def _in_table_row(text: str, at: int) -> bool:
    return text[text.rfind("\n", 0, at) + 1:at].lstrip().startswith("|")


def _first_target(text: str, at: int) -> str | None:
    """The first name of the board written from `at` up to where the link's object ends."""
    clause = _CLAUSE_END.search(text, at, at + 120)
    stop = clause.start() if clause is not None else min(len(text), at + 120)
    if len(set(_CHIP_PIN.findall(text, at, stop))) > 1:
        return None  # a link to several pins ("on P0.06 and P0.08": a bus's)
    how = _HOW.search(text, at, stop)
    words = text[at:how.start() if how is not None else stop]
    if _NEGATED.search(words):
        return None
    found = _TARGET.search(words)
    return " ".join(found.group(0).split()) if found is not None else None
