"""Other names a board's prose gives a chip pin: a colour, a bracketed other name, a bracketed list of names.

- An LED a sentence names by its colour and gives a chip pin: "The green ACT LED is BCM GPIO29" makes "green LED"
  and "green ACT LED" names of GPIO29. A sentence about an LED no pin drives ("the red PWR LED is driven by the
  expander") names nothing.
- A list item whose name is followed by other names in brackets and then its pin: "PCM FS (frame sync / LRCLK):
  GPIO19" makes LRCLK a name of GPIO19. Only a bracket holding one such name is read: "SPI0 (CE0, CE1): GPIO8"
  says nothing about which of the two is GPIO8.
- Pins in a slash list followed in the same clause by a bracketed slash list of names as long: "P0.00/P0.01 are the
  32.768 kHz crystal (XL1/XL2)" makes XL1 a name of P0.00 and XL2 of P0.01 (read with the other slash lists, by
  :mod:`.ranges`, in the same look at the lines holding a slash).
- A library's serial or bus object that a sentence places on its peripheral's pins, each with its role in brackets:
  "`Serial` is USART2 on PA2 (TX) / PA3 (RX)" makes "Serial TX" PA2 and "Serial RX" PA3 (the Arduino core's
  `Serial` on a Nucleo is the ST-LINK's USART2, not whichever USART a board file routes first).

Only names written as constants are read (capitals and digits: LRCLK, XL1), never a word of prose, and never a bus
role alone (TX, SDA, CLK): that is the role of one of several buses. A colour's entry is of kind ``equal``: it names
the pin only where the pin is already one of the board's (a datasheet may well describe an LED of another model).
A bracketed name is of kind ``prose``, like a chip pin's other name in brackets after it ("GPIO3 (I2C1 SCL)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from edge_agent.pins.ranges import CHIP_PIN, constant_name

_PIN = rf"(?:{CHIP_PIN.pattern})(?![\w./-])"
_LED_MARK = re.compile(r"LED (?:is|sits) ")
_COLOURED_LED = re.compile(r"\b[Tt]he (green|red|yellow|amber|orange|blue|white) "
                           r"((?:[A-Z]{2,5}|user|status|activity) )?"
                           rf"LED (?:is|is on|sits on|is driven by) (?:BCM )?({CHIP_PIN.pattern})\b")
_ROLE = r"(TX|RX|SDA|SCL|MOSI|MISO|SCK)"
#: "`Serial` is USART2 on PA2 (TX) / PA3 (RX)": a library's object, its peripheral, and its two pins with their roles.
_PORT_OBJECT = re.compile(rf"`([A-Z][A-Za-z]*\d?)` is ([A-Z][A-Z0-9]*\d) on ({CHIP_PIN.pattern}) \({_ROLE}\)\s*/\s*"
                          rf"({CHIP_PIN.pattern}) \({_ROLE}\)")
#: "- PCM FS (frame sync / LRCLK): GPIO19": a list item's name, its other names in brackets, then its pin.
_ITEM_MARK = re.compile(r"\):")
_ITEM = re.compile(r"[ \t]*(?:[-*][ \t]+)?[A-Z][A-Za-z0-9 _]{0,23}?[ \t]*"
                   rf"\(([^()\n]{{1,60}})\)[ \t]*:[ \t]*({_PIN})")


def prose_names(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(line, name, pin, kind) for each other name of a chip pin the prose of `text` gives (see the module
    docstring)."""
    yield from ((line, name, pin, "equal") for line, name, pin in coloured_leds(text))
    for port in _PORT_OBJECT.finditer(text):  # a literal backtick first: scanned at a plain search's speed
        line = text.count("\n", 0, port.start()) + 1
        for pin, role in (port.group(3, 4), port.group(5, 6)):
            yield line, f"{port.group(1)} {role.upper()}", pin, "equal"
    # found from a literal mark ("):"), so a file is scanned at a plain search's speed and only the lines holding
    # it are matched
    for start in _lines_with(text, _ITEM_MARK):
        m = _ITEM.match(text, start)
        if m is not None:
            names = [n for n in re.split(r"\s*[/,]\s*", m.group(1).strip()) if constant_name(n)]
            if len(names) == 1:
                yield text.count("\n", 0, start) + 1, names[0], m.group(2), "prose"


def _lines_with(text: str, mark: re.Pattern[str]) -> Iterator[int]:
    """The start of each line holding `mark`, once."""
    last = -1
    for m in mark.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if start != last:
            last = start
            yield start


def coloured_leds(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, name, pin) for an LED a sentence names by its colour and gives a chip pin."""
    for mark in _LED_MARK.finditer(text):  # a literal first: the sentence is matched only where "LED is" stands
        m = _COLOURED_LED.search(text, max(0, mark.start() - 24), mark.end() + 24)
        if m is not None and m.end() > mark.start():
            line = text.count("\n", 0, m.start()) + 1
            yield line, f"{m.group(1)} LED", m.group(3)
            if m.group(2):
                yield line, f"{m.group(1)} {m.group(2)}LED", m.group(3)

