"""Which tools a message gets: few and simple ones, chosen from what the message asks.

A small model offered every schema copies arguments between them, calls tools nobody asked for (a
``gpio_write`` for "say hello in French") and reads a long prompt slowly. With
``[agent] tool_choice = "question"`` (the default) each turn offers only the tools the message's words
call for:

- a write tool only when the message asks for a change (turn, set, switch, blink, toggle, write...):
  a question, a lookup or small talk never gets one;
- GPIO reads for pins, LEDs and buttons; the I2C scan for buses and addresses; the sensor for
  temperature, humidity and pressure; pin and datasheet lookups for pins, registers and specs;
- no tool at all when the message names nothing on the bench (small talk, arithmetic).

``tool_choice = "all"`` offers every tool of the mode (compact or full) on every turn. The lists are
data: the word patterns below are the whole rule. The tools keep their registration order, so the
same choice gives the same request prefix (a local server reuses its cache for it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_W = re.IGNORECASE
# A change asked for: verbs of driving outputs or writing.
CHANGE = re.compile(r"\b(turn|switch|set|drive|write|toggle|blink|flash|pulse|light\s+up|enable|disable|"
                    r"activate|deactivate|power\s+(on|off|up|down)|make\s+\S+\s+(high|low)|pull\s+(high|low)|"
                    r"put|change|clear|send|program|configure|reset|start|stop)\b", _W)
PIN_NAME = re.compile(r"\b(P[A-K]\d{1,2}|GPIO\s?\d{1,2}|D\d{1,2}|A\d|LD\d|B\d|CN\d+-\d+|pin\s?\d+)\b", _W)
GPIO = re.compile(r"\b(pins?|gpio\w*|leds?|lights?|buttons?|switch\w*|relays?|buzzers?|fans?|motors?|outputs?|"
                  r"inputs?|levels?|high|low|pressed|lit|\w+_(led|button|pin))\b", _W)
I2C = re.compile(r"\b(i2c\w*|i²c|twi|smbus|bus(es)?|scan\w*|address(es)?|devices?|peripherals?|0x[0-9a-f]{2}|"
                 r"eeprom|registers?)\b", _W)
SPI = re.compile(r"\b(spi\w*|mosi|miso|sck|chip\s+select|cs\d?)\b", _W)
SENSOR = re.compile(r"\b(sensors?|temperature|temp|humidity|pressure|bme\s?280|climate|weather|degrees|"
                    r"celsius|hpa|measure\w*|readings?)\b", _W)
LOOKUP = re.compile(r"\b(pins?|pinout|header|datasheets?|registers?|spec\w*|voltage|current|timing|"
                    r"address(es)?|alias\w*|which|where|wired|connected|connector|morpho|arduino|\w+_(led|button|pin))\b",
                    _W)
DATASHEET = re.compile(r"\b(datasheets?|registers?|spec\w*|voltage|current|timing|maximum|minimum|max|min|"
                       r"range|rating|frequency|clock|baud|reset|mode|bits?|how\s+(do|does|to)|what\s+does)\b", _W)
BOARD = re.compile(r"\b(boards?|capabilit\w*|what\s+can|connected|status|adapters?)\b", _W)
MEMORY = re.compile(r"\b(remember|note|forget|recall|memor\w*|earlier|last\s+time)\b", _W)


def choose(message: str, available: Sequence[str], *, board_words: Sequence[str] = (),
           pins_named: bool = False) -> list[str]:
    """The tools (from `available`, in its order) that `message` calls for.

    `board_words` are names that point at the bench (board ids, adapter names); `pins_named` says the
    pin index found a pin alias in the message. Either gets the message the pin tools.
    """
    text = message or ""
    low = text.lower()
    named = pins_named or PIN_NAME.search(text) is not None or any(w and w.lower() in low for w in board_words)
    gpio = named or GPIO.search(text) is not None
    i2c = I2C.search(text) is not None
    spi = SPI.search(text) is not None
    sensor = SENSOR.search(text) is not None
    change = CHANGE.search(text) is not None
    wanted: set[str] = set()
    if gpio:
        wanted |= {"gpio_read", "pin_resolve"}
        if change:
            wanted.add("gpio_write")
    if i2c:
        wanted |= {"i2c_scan", "i2c_read"}
        if change:
            wanted.add("i2c_write")
    if spi and change:
        wanted.add("spi_transfer")
    if sensor:
        wanted.add("sensor_read")
    if named or LOOKUP.search(text):
        wanted.add("pin_resolve")
    if DATASHEET.search(text) or (named and not change):
        wanted.add("datasheet_search")
    if BOARD.search(text):
        wanted |= {"hardware_board_info", "hardware_capabilities"}
    if MEMORY.search(text):
        wanted |= {"memory_recall", "memory_store"}
        if change or "forget" in low:
            wanted.add("memory_forget")
    return [t for t in available if t in wanted]
