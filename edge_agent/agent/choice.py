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

:func:`plan` goes one step further for a small model: what the message asks is sorted into an action
on the bench now (drive a pin, read a pin, scan the bus, read the sensor), a lookup (which pin, register
or address something is: the documentation given with the message answers it) or neither. An action
gets only its tools (and a reply that answers it without calling one is asked once to call it); a
lookup gets no bench tool; an order needs no verb the lists know: a message that is not a question and
names a pin with a level ("LD2 on", "PA8 to 0"), or starts with a verb of its own and names a thing a
line drives ("fire the relay"), is offered the write, and one that names a pin or the bus without a
change ("check D7", "sweep the I2C bus") is offered the read or the scan;
a question is never offered a write ("what voltage is the supply set to?", "what would happen if I
set D7 high?").

``tool_choice = "all"`` offers every tool of the mode (compact or full) on every turn. The lists are
data: the word patterns below are the whole rule. The tools keep their registration order, so the
same choice gives the same request prefix (a local server reuses its cache for it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_W = re.IGNORECASE
# A change asked for: verbs of driving outputs or writing.
# A verb that moves a line only with its level ("light D13 up", "bring D7 high", "get LD2 on") counts
# when a word or three stand between them; "bring up the datasheet" asks for no change.
CHANGE = re.compile(r"\b(turn|switch|set|drive|write|toggle|blink|flash|pulse|light\s+(\S+\s+){0,3}?up|enable|"
                    r"disable|activate|deactivate|de-?energi[sz]e|energi[sz]e|power\s+(on|off|up|down)|"
                    r"(make|bring|get|raise|lower)\s+(\S+\s+){1,3}?(high|low|on|off)|pull\s+(\S+\s+)?(high|low|up|down)|"
                    r"put|change|clear|send|program|configure|reset|start|stop)\b", _W)
PIN_NAME = re.compile(r"\b(P[A-K]\d{1,2}|GPIO\s?\d{1,2}|D\d{1,2}|A\d|LD\d|B\d|CN\d+-\d+|pin\s?\d+)\b", _W)
# Things on a GPIO line: the pin words, and what a bench commonly hangs off one (driven or read).
GPIO = re.compile(r"\b(pins?|gpio\w*|leds?|lights?|lamps?|buttons?|switch\w*|relays?|buzzers?|beepers?|sirens?|"
                  r"fans?|motors?|heaters?|pumps?|valves?|solenoids?|locks?|mosfets?|outputs?|"
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


# --- what the message asks for ------------------------------------------------------------------------

# A question by its first word (a change asked politely, "can you turn...", "please set...", is still a
# request); a change held back ("don't do it", "what would happen if I set...") is none.
QUESTION = re.compile(r"^\W*(what|which|where|when|who|whose|why|how|is|are|was|were|does|do|did|has|have|should|"
                      r"would|tell\s+me\s+(what|which|where|why|how))\b", _W)
POLITE = re.compile(r"\b(can|could|would|will)\s+you\b|\bplease\b", _W)
HELD_BACK = re.compile(r"\b(don'?t|do\s+not|never|without|just\s+explain|only\s+explain|no\s+need|what\s+if|"
                       r"would\s+happen|if\s+i|how\s+(do|would|can|should)\s+i|how\s+to)\b", _W)
# "Which pin / register / address ... is" asks where something is, not what it reads now.
WHERE_IS = re.compile(r"\b(which|what)(\s+is|\s+are|\s+does|\s+do)?(\s+the)?\s+((mcu|stm32|gpio|arduino|i2c|spi|uart|"
                      r"native|physical|header|morpho|7-bit|8-bit)\s+)?(pins?|registers?|address(es)?|header|connector|"
                      r"ports?|bits?|chip\s+id|id|alias\w*|functions?|peripherals?|channel)\b|\bwhere\s+(is|are)\b",
                      _W)
NOW = re.compile(r"\b(now|currently|at\s+the\s+moment|right\s+now|live|present\s+level|actual|in\s+use|occupied|"
                 r"taken)\b", _W)
# "on" followed by a pin, a thing or an article says where something is ("the LED on D13", "what is A3 on
# the MCU"), not a level.
# After "turn", "switch" or "power" it is the level again ("turn on the LED").
_ON = (r"(?:(?<=turn\s)|(?<=switch\s)|(?<=power\s))on|"
       r"on(?!\s+(?:the|a|an|my|this|that|its|pin|port|header|board|line|bus|gpio|p[a-k]\d+|[ad]\d+|ld\d|b\d)\b)")
# The present state of a pin asked for.
PIN_STATE = re.compile(r"\b(read|reads|reading|level|state|status|now|currently|(is|are)\b.{0,40}\b(" + _ON +
                       r"|off|high|low|pressed|lit|set|active|released|driven|asserted|powered|enabled|"
                       r"energi[sz]ed))\b", _W)
# Devices on the bus asked for.
BUS_NOW = re.compile(r"\b(scan\w*|devices?|respond\w*|detect\w*|present|attached|connected|found|how\s+many|"
                     r"answer\w*|acknowledg\w*|list|show|find|see|visible|alive|online|in\s+use|on\s+the\s+bus|"
                     r"what('?s|\s+is)\s+on)\b", _W)
BUS = re.compile(r"\b(i2c\w*|i²c|twi|bus(es)?|scan\w*|0x[0-9a-f]{2}|bme\s?280|sensors?|devices?|eeprom|displays?|"
                 r"oled|ssd1306|mcp23017|pca9685|24c02|expanders?)\b", _W)
# A reading of the sensor asked for (not its registers, ranges or formulas).
QUANTITY = re.compile(r"\b(temperature|temp|humid\w*|pressure|climate|weather|hot|cold|warm|degrees|celsius|"
                      r"fahrenheit|hpa|air)\b", _W)
SPEC = re.compile(r"\b(registers?|address(es)?|range|accuracy|datasheet|spec\w*|formula|oversampl\w*|bits?|"
                  r"calibrat\w*|compensat\w*|resolution|typical|maximum|minimum|max|min|mode|filter|standby|"
                  r"chip\s+id|id)\b", _W)
REGISTER_WRITE = re.compile(r"\b(registers?|0x[0-9a-f]{2}|i2c|eeprom|bytes?)\b", _W)


@dataclass
class Plan:
    """The tools a message is offered and whether its answer needs a tool result."""

    tools: list[str] = field(default_factory=list)
    require: bool = False  # an action: its answer needs a tool result
    kind: str = "talk"  # action, lookup, talk (what the message was taken for)


LEVEL = re.compile(r"\b(" + _ON + r"|off|high|low|[01]|lit|true|false)\b", _W)
# How an order that is not a change starts: asking, reading, telling, greeting, remembering; and a
# statement about the bench ("the relay is on D7", "my LED is off").
NOT_AN_ORDER = re.compile(
    r"^\W*(please\s+)?(tell|show|give|list|find|look|read|check|measure|scan|explain|describe|say|compare|calc\w*|"
    r"comput\w*|convert|help|thanks?|thank\s+you|cheers|hi|hello|hey|good|remember|remind|note|store|save|forget|recall|"
    r"search|monitor|watch|wait|print|report|count|name|identify|translate|define|verify|confirm|test|probe|"
    r"status|state|level|value|reading|summar\w*|the|a|an|my|our|your|this|that|these|those|it|its|it's|there|"
    r"here|he|she|they|you|i(?!'d\s+like|\s+(?:want|need|would\s+like))|we(?!'d\s+like|\s+(?:want|need|would\s+like))|"
    r"ok|okay|yes|no|nope|sure|why|because|if|when|while|after|before|so|and|but|or)\b", _W)
# Things a line drives: an order about one of them needs no known verb ("kill the LED", "open the valve").
OUTPUT = re.compile(r"\b(leds?|lights?|lamps?|relays?|buzzers?|beepers?|sirens?|fans?|motors?|heaters?|pumps?|"
                    r"valves?|solenoids?|locks?|mosfets?|transistors?|outputs?|\w+_led)\b", _W)


# The bus itself named (not a device on it).
I2C_BUS = re.compile(r"\b(i2c\w*|i²c|twi|smbus|bus(es)?)\b", _W)
# An order to look at something now, as opposed to telling, explaining or greeting.
READ_ORDER = re.compile(r"^\W*(please\s+)?(check|read|sample|poll|monitor|watch|test|verify|probe|get|fetch|report|"
                        r"give|show)\b", _W)
# A question inside an order ("remind me which pin...", "let me know whether..."): it asks, it does not order.
EMBEDDED_QUESTION = re.compile(r"\b(me|us|know|wonder)\s+(which|what|where|whether|if|how|why|when|who)\b", _W)
# A part on the bus that can be read as a whole ("read the BME280").
SENSOR_PART = re.compile(r"\b(sensors?|bme\s?280)\b", _W)


def is_order(message: str) -> bool:
    """True when the message is an order to look at something now rather than a question, a request
    to tell or explain, a greeting or a statement: it starts with a verb of reading or checking, or
    with no known opening at all; it is not held back and does not end in a question mark."""
    text = message or ""
    if HELD_BACK.search(text) or QUESTION.match(text) or text.rstrip().endswith("?"):
        return False
    order = POLITE.sub(" ", text).strip(" ,.!")
    return READ_ORDER.match(order) is not None or NOT_AN_ORDER.match(order) is None


def asks_change(message: str, *, named: bool | None = None) -> bool:
    """True when the message asks for something to change now (not a question about it, not held back).

    A known change verb ("turn", "set", "switch"...) is one way to ask. The other is an order that no word
    list anticipates: a message that is not a question, not held back and does not start by asking,
    telling or stating, which names a pin (``named``; by default a pin name written in the message) with
    a level ("LD2 on", "D3 to 1", "PB5 needs to be at 0 V"), or starts with a verb of its own and names a
    thing a line drives ("kill the LED on D13", "open the drain valve"). The forced call (only the
    named pins, only the level asked for) and the autonomy policy stay the guard on what it can do.
    """
    text = message or ""
    if HELD_BACK.search(text):
        return False
    polite = POLITE.search(text) is not None
    if QUESTION.match(text) is not None and not polite:
        return False
    if CHANGE.search(text) is not None:
        return True
    if text.rstrip().endswith("?") and not polite:
        return False
    order = POLITE.sub(" ", text).strip(" ,.!")
    if named is None:
        named = PIN_NAME.search(text) is not None
    if NOT_AN_ORDER.match(order) or EMBEDDED_QUESTION.search(order):
        return False
    first = order.split()[0] if order.split() else ""
    verbless = named and LEVEL.search(order) is not None
    own_verb = bool(first) and PIN_NAME.fullmatch(first.strip(",.:;")) is None and \
        (OUTPUT.search(order) is not None or (named and LEVEL.search(order) is not None))
    return verbless or own_verb


def plan(message: str, available: Sequence[str], *, board_words: Sequence[str] = (), pins_named: bool = False,
         documented: bool = False) -> Plan:
    """What `message` asks for and the tools (from `available`, in its order) it is offered.

    `documented` says the message comes with datasheet or pin context: a lookup is then answered from
    it, without a tool; without it a lookup may search (``pin_resolve``, ``datasheet_search``).
    """
    text = message or ""
    low = text.lower()
    named = pins_named or PIN_NAME.search(text) is not None or any(w and w.lower() in low for w in board_words)
    pinish = named or GPIO.search(text) is not None
    change = asks_change(text, named=named)
    lookup = WHERE_IS.search(text) is not None and NOW.search(text) is None
    wanted: list[str] = []
    if change:
        if REGISTER_WRITE.search(text) and not pinish:
            wanted.append("i2c_write")
        elif pinish:
            wanted.append("gpio_write")
        elif SPI.search(text):
            wanted.append("spi_transfer")
    if not lookup:
        # an order that is not a change and names no documentation ("check D7", "probe the I2C bus") asks
        # for the present state of what it names
        order = not change and is_order(text) and not SPEC.search(text)
        # "D7 high?": a pin and a level asked about
        state = named and LEVEL.search(text) is not None and text.rstrip().endswith("?")
        if not change and pinish and (PIN_STATE.search(text) or order and named or state) and not BUS.search(text):
            wanted.append("gpio_read")
        if BUS.search(text) and BUS_NOW.search(text) and not QUANTITY.search(text) or re.search(r"\bscan\b", low) \
                or not change and is_order(text) and I2C_BUS.search(text) and not QUANTITY.search(text) \
                and not re.search(r"\b(registers?|datasheet|spec\w*)\b", low):
            wanted.append("i2c_scan")
        if QUANTITY.search(text) and not SPEC.search(text) or order and SENSOR_PART.search(text):
            wanted.append("sensor_read")
    action = [t for t in available if t in wanted]
    if action:
        return Plan(action, require=True, kind="action")
    if change:  # a change no offered tool can make: the model says so, with nothing to call
        return Plan([], kind="action")
    # a part's documented facts asked for ("what is the BME280 chip ID?")
    spec = SPEC.search(text) is not None and BUS.search(text) is not None
    if lookup or named or spec or LOOKUP.search(text) or DATASHEET.search(text):
        if documented:
            return Plan([], kind="lookup")
        return Plan([t for t in available if t in ("pin_resolve", "datasheet_search")], kind="lookup")
    return Plan([], kind="talk")


def named_pins(message: str) -> list[str]:
    """The pin names the message spells out (PA5, D7, LD2, GPIO17...), as written."""
    return list(dict.fromkeys(m.group(0) for m in PIN_NAME.finditer(message or "")))


# Tools whose calls name a pin: an action on named pins is done when each named pin was called.
PIN_TOOLS = ("gpio_write", "gpio_read")


def still_needed(tools: Sequence[str], pins: Sequence[str],
                 done: Sequence[tuple[str, object]]) -> tuple[list[str], list[str]]:
    """What an action still needs after the calls `done` ((tool, arguments) pairs, run or refused):
    the tools of `tools` not called yet and, for a pin tool, the pins the message named (`pins`) that
    no call named yet (as written, case-insensitive). A pin tool with no pin named is needed until
    it was called once."""
    called = {name for name, _ in done}
    touched = {str(args.get("pin", "")).strip().lower() for name, args in done
               if name in PIN_TOOLS and isinstance(args, dict)}
    left_pins = [p for p in pins if p.lower() not in touched] if any(t in PIN_TOOLS for t in tools) else []
    left = [t for t in tools if (left_pins if t in PIN_TOOLS and pins else t not in called)]
    return left, left_pins


# Verbs that carry the level themselves ("kill the LED on D13" is off, "energise the relay" is on).
ON_WORDS = re.compile(r"\b(" + _ON + r"|high|up|light\s+up|enable|activate|start|(?<!de-)energi[sz]e|illuminate|"
                      r"1)\b", _W)
OFF_WORDS = re.compile(r"\b(off|low|down|disable|deactivate|stop|clear|kill|cut|shut|de-?energi[sz]e|extinguish|"
                       r"0)\b", _W)


def asked_level(message: str) -> int | None:
    """The level a write request asks for: 1 when it speaks only of on/high, 0 only of off/low, else None
    (both, as in "LD2 on and D7 off", or neither)."""
    on, off = ON_WORDS.search(message or "") is not None, OFF_WORDS.search(message or "") is not None
    return 1 if on and not off else 0 if off and not on else None
